/* SPDX-License-Identifier: Apache-2.0 */
/*
 * `uie attest --enrol --fleet NAME`: the machine's side of enrolment by
 * attestation (docs/VERIFIER.md 3.8).  The verifier's 64-byte nonce goes
 * to the SVSM (the monitor standing for one, SNP_REPORT; or configfs-tsm
 * on an SEV-SNP guest with --configfs DIR); its answer, with the vTPM's
 * EK and AK (TPM_KEYS), goes to the verifier, which answers a credential
 * sealed to the EK for the AK's name; the vTPM activates it (ACTIVATE)
 * and the secret goes back.  Then the machine is enrolled with that AK.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <openssl/crypto.h>

#include "attest.h"
#include "b64.h"
#include "conn.h"
#include "credential.h"
#include "fileio.h"
#include "hex.h"
#include "snp_fetch.h"
#include "uie/bridge.h"
#include "uie/err.h"

#define CMD "uie attest --enrol"
#define REFERENCE_MAX (4u << 20)
#define POLICY_MAX (4u << 20)

/* One attribute of a configfs-tsm report entry (a file of a plain directory in tests). */
static int put_attr(const char *dir, const char *name, const void *p, size_t n)
{
	char path[4096];
	int fd, r;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	if ((fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644)) < 0)
		r = uie_err_from_errno(errno);
	else {
		r = uie_fd_write_all(fd, p, n);
		if (close(fd) != 0 && r == UIE_OK)
			r = uie_err_from_errno(errno);
	}
	if (r != UIE_OK)
		fprintf(stderr, CMD ": %s: %s\n", path, uie_file_err_str(r));
	return r;
}

/*
 * configfs-tsm (Documentation/ABI/testing/configfs-tsm-report): the entry
 * dir (made when missing), asked of the SVSM for the vTPM's service with
 * the nonce as inblob; reading outblob has the kernel generate the report.
 */
static int from_configfs(const char *dir, const uint8_t nonce[UIE_SNP_NONCE_LEN], struct uie_snp_tsm *tsm)
{
	static const char provider[] = "svsm", guid[] = UIE_SNP_GUID_VTPM;
	struct uie_snp_why why;
	int r;

	if (mkdir(dir, 0755) != 0 && errno != EEXIST) {
		fprintf(stderr, CMD ": %s: %s\n", dir, strerror(errno));
		return uie_err_from_errno(errno);
	}
	if ((r = put_attr(dir, "service_provider", provider, strlen(provider))) != UIE_OK ||
	    (r = put_attr(dir, "service_guid", guid, strlen(guid))) != UIE_OK ||
	    (r = put_attr(dir, "inblob", nonce, UIE_SNP_NONCE_LEN)) != UIE_OK)
		return r;
	if ((r = uie_snp_tsm_read(dir, tsm, &why)) != UIE_OK)
		fprintf(stderr, CMD ": %s\n", why.msg);
	return r;
}

/* The SVSM's answer for nonce: configfs-tsm's, or the monitor's. */
static int snp_report(const struct attest_opts *o, int fd, const uint8_t nonce[UIE_SNP_NONCE_LEN],
		      struct uie_snp_tsm *tsm)
{
	struct uie_snp_why why;
	int r;

	if (o->configfs)
		return from_configfs(o->configfs, nonce, tsm);
	if ((r = uie_tool_snp_report(fd, nonce, tsm, &why)) != UIE_OK)
		uie_tool_snp_report_err(CMD, o->socket, r, &why);
	return r;
}

/* POST path with body; *reply the answer of status want (else said, and an error). */
static int post(struct uie_http *h, const struct attest_opts *o, const char *step, json_t *body,
		json_t **reply, long *status)
{
	char path[256];
	int r;

	*reply = NULL;
	snprintf(path, sizeof(path), "/v1/machines/%s/enrolment/%s", o->machine, step);
	r = uie_http_json(h, "POST", path, body, status, reply);
	json_decref(body);
	return r;
}

static int set_b64(json_t *o, const char *key, const uint8_t *p, size_t n)
{
	char *s = uie_b64_encode_alloc(p, n);
	int r = s && json_object_set_new(o, key, json_string(s)) == 0 ? UIE_OK : UIE_E_NOMEM;

	free(s);
	return r;
}

/* --reference and --policy files into the body, as an enrolment by hand carries them. */
static int usual_fields(const struct attest_opts *o, json_t *body)
{
	json_t *pols = NULL;
	uint8_t *buf = NULL;
	size_t n = 0;
	int r;

	if (json_object_set_new(body, "interval", json_integer(o->interval ? (json_int_t)o->interval : 60)))
		return UIE_E_NOMEM;
	if (o->reference) {
		if ((r = uie_file_read_alloc(o->reference, REFERENCE_MAX, &buf, &n)) != UIE_OK) {
			fprintf(stderr, CMD ": %s: %s\n", o->reference, uie_file_err_str(r));
			return r;
		}
		r = json_object_set_new(body, "reference", json_stringn((const char *)buf, n)) ? UIE_E_FORMAT
											       : UIE_OK;
		free(buf);
		if (r != UIE_OK) {
			fprintf(stderr, CMD ": %s: not UTF-8 text\n", o->reference);
			return r;
		}
	}
	if (o->npolicies && (!(pols = json_array()) || json_object_set_new(body, "policies", pols)))
		return UIE_E_NOMEM;
	for (unsigned i = 0; i < o->npolicies; i++) {
		char *s;

		if ((r = uie_file_read_alloc(o->policies[i], POLICY_MAX, &buf, &n)) != UIE_OK) {
			fprintf(stderr, CMD ": %s: %s\n", o->policies[i], uie_file_err_str(r));
			return r;
		}
		s = uie_b64_encode_alloc(buf, n);
		free(buf);
		if (!s || json_array_append_new(pols, json_string(s))) {
			free(s);
			return UIE_E_NOMEM;
		}
		free(s);
	}
	return UIE_OK;
}

/* The evidence body: the nonce, the fleet, the SVSM's answer, the vTPM's keys, the usual fields. */
static json_t *evidence(const struct attest_opts *o, const char *nonce_hex, const struct uie_snp_tsm *tsm,
			const uint8_t *ek, size_t ek_len, const uint8_t *ak, size_t ak_len)
{
	json_t *b = json_pack("{s:s, s:s, s:b}", "nonce", nonce_hex, "fleet", o->fleet, "single",
			      tsm->single);

	if (!b || !tsm->aux || set_b64(b, "report", tsm->report, tsm->report_len) != UIE_OK ||
	    set_b64(b, "certs", tsm->aux, tsm->aux_len) != UIE_OK ||
	    set_b64(b, "manifest", tsm->manifest, tsm->manifest_len) != UIE_OK ||
	    set_b64(b, "ek", ek, ek_len) != UIE_OK || set_b64(b, "ak", ak, ak_len) != UIE_OK ||
	    usual_fields(o, b) != UIE_OK) {
		if (b && !tsm->aux)
			fprintf(stderr, CMD ": the SVSM's answer has no certificates (auxblob)\n");
		json_decref(b);
		return NULL;
	}
	return b;
}

/* The credential of the verifier's answer opened by the vTPM: the secret as hex. */
static int activate(int fd, const char *sock, json_t *answer, char hex[2 * UIE_CRED_MAX + 1])
{
	json_t *c = json_object_get(answer, "credential");
	const uint8_t *blob, *secret;
	uint8_t *file = NULL, cred[UIE_CRED_MAX];
	size_t fl = 0, bl, sl, cl = 0;
	int r;

	if (uie_b64_decode_alloc(json_string_value(c), json_string_length(c), &file, &fl) != UIE_OK ||
	    uie_credential_file_parse(file, fl, &blob, &bl, &secret, &sl) != UIE_OK) {
		fprintf(stderr, CMD ": the verifier's credential is malformed\n");
		free(file);
		return UIE_E_PEER;
	}
	r = uie_bridge_activate(fd, blob, bl, secret, sl, cred, &cl);
	free(file);
	if (r == UIE_E_KEY || r == UIE_E_SIGNATURE || r == UIE_E_FORMAT || r == UIE_E_LIMIT)
		fprintf(stderr, CMD ": the vTPM refused the credential: %s\n", uie_credential_reason(r));
	else if (r != UIE_OK)
		uie_tool_peer_err(CMD, sock, r);
	else
		uie_hex_encode(hex, cred, cl);
	OPENSSL_cleanse(cred, sizeof(cred));
	return r;
}

/* The enrolment nonce; *enrolled when the verifier knows the machine already. */
static int enrol_nonce(struct uie_http *h, const struct attest_opts *o, uint8_t nonce[UIE_SNP_NONCE_LEN],
		       bool *enrolled)
{
	const char *e;
	json_t *reply, *n;
	long status = 0;
	int r;

	*enrolled = false;
	r = post(h, o, "nonce", NULL, &reply, &status);
	e = json_string_value(json_object_get(reply, "error"));
	if (r == UIE_OK && status == 409 && e && !strcmp(e, "exists")) {
		fprintf(stderr, CMD ": machine %s is enrolled already\n", o->machine);
		*enrolled = true;
	} else if ((r = attest_answer("enrolment nonce", r, status, 201, reply)) == UIE_OK &&
		   (n = json_object_get(reply, "nonce"),
		    uie_hex_decode(json_string_value(n), json_string_length(n), nonce, UIE_SNP_NONCE_LEN) !=
			    UIE_OK)) {
		fprintf(stderr, CMD ": the verifier's nonce answer is malformed\n");
		r = UIE_E_PEER;
	}
	json_decref(reply);
	return r;
}

/* Evidence, credential, secret: the machine enrolled when UIE_OK. */
static int prove(struct uie_http *h, const struct attest_opts *o, int fd,
		 const uint8_t nonce[UIE_SNP_NONCE_LEN])
{
	char nonce_hex[2 * UIE_SNP_NONCE_LEN + 1], secret_hex[2 * UIE_CRED_MAX + 1];
	uint8_t *ek = NULL, *ak = NULL;
	size_t ek_len = 0, ak_len = 0;
	struct uie_snp_tsm tsm = { 0 };
	json_t *body, *reply = NULL;
	long status = 0;
	int r;

	uie_hex_encode(nonce_hex, nonce, UIE_SNP_NONCE_LEN);
	if ((r = uie_bridge_tpm_keys_alloc(fd, &ek, &ek_len, &ak, &ak_len)) != UIE_OK) {
		uie_tool_peer_err(CMD, o->socket, r);
		return r;
	}
	if ((r = snp_report(o, fd, nonce, &tsm)) != UIE_OK)
		goto out;
	if (!(body = evidence(o, nonce_hex, &tsm, ek, ek_len, ak, ak_len))) {
		r = UIE_E_NOMEM;
		goto out;
	}
	r = post(h, o, "evidence", body, &reply, &status);
	if ((r = attest_answer("enrolment evidence", r, status, 201, reply)) != UIE_OK ||
	    (r = activate(fd, o->socket, reply, secret_hex)) != UIE_OK)
		goto out;
	json_decref(reply);
	reply = NULL;
	body = json_pack("{s:s, s:s}", "nonce", nonce_hex, "secret", secret_hex);
	OPENSSL_cleanse(secret_hex, sizeof(secret_hex));
	r = body ? post(h, o, "activate", body, &reply, &status) : UIE_E_NOMEM;
	if ((r = attest_answer("enrolment activation", r, status, 201, reply)) == UIE_OK) {
		json_dumpf(reply, stdout, JSON_COMPACT);
		putchar('\n');
		fflush(stdout);
	}
out:
	json_decref(reply);
	uie_snp_tsm_free(&tsm);
	free(ek);
	free(ak);
	return r;
}

int attest_enrol(struct uie_http *h, const struct attest_opts *o, int fd)
{
	uint8_t nonce[UIE_SNP_NONCE_LEN];
	bool enrolled;
	int r;

	if ((r = enrol_nonce(h, o, nonce, &enrolled)) != UIE_OK || enrolled)
		return r;
	return prove(h, o, fd, nonce);
}
