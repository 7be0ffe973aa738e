/* SPDX-License-Identifier: Apache-2.0 */
/*
 * `uie attest --verifier URL --machine ID`: the fleet verifier's agent
 * (docs/VERIFIER.md 6).  Asks the verifier for a nonce, relays it to the
 * monitor exactly as `uie evidence export` does, posts the AE and prints
 * the verdict; an accepted verdict is acknowledged to the monitor as a
 * checkpoint, so the next round carries only newer records.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "attest.h"
#include "subcmds.h"
#include "b64.h"
#include "cmd.h"
#include "conn.h"
#include "hex.h"
#include "http.h"
#include "machine_id.h"
#include "opts.h"
#include "uie/bridge.h"
#include "uie/err.h"

#define NONCE_LEN 32
#define EXIT_REJECTED 3

static void usage(FILE *f)
{
	fprintf(f, "usage: uie attest --verifier URL --machine ID [--socket PATH] [--interval S]\n"
		   "                  [--cacert PEM] [--cert PEM --key PEM] [--keep-records]\n"
		   "                  [--enrol --fleet NAME [--configfs DIR] [--reference FILE] [--policy "
		   "PKG]...]\n"
		   "exit codes: 0 accepted, 1 error, 2 usage, 3 rejected\n");
}

static int parse(int argc, char **argv, struct attest_opts *o)
{
	const struct uie_opt t[] = {
		UIE_OPT_STRING("verifier", 0, &o->http.base),
		UIE_OPT_STRING("machine", 0, &o->machine),
		UIE_OPT_STRING("socket", 0, &o->socket),
		UIE_OPT_NUMBER("interval", 0, o->interval, 1, 86400, "needs 1..86400 seconds"),
		UIE_OPT_STRING("cacert", 0, &o->http.cacert),
		UIE_OPT_STRING("cert", 0, &o->http.cert),
		UIE_OPT_STRING("key", 0, &o->http.key),
		UIE_OPT_FLAG("keep-records", 0, UIE_OPTK_SET, &o->keep_records),
		UIE_OPT_FLAG("enrol", 0, UIE_OPTK_SET, &o->enrol),
		UIE_OPT_STRING("fleet", 0, &o->fleet),
		UIE_OPT_STRING("configfs", 0, &o->configfs),
		UIE_OPT_STRING("reference", 0, &o->reference),
		UIE_OPT_LIST("policy", 0, o->policies, &o->npolicies, ATTEST_MAX_POLICIES),
		UIE_OPT_VERSION,
		UIE_OPT_END,
	};
	const struct uie_opts spec = {
		.prog = "uie attest", .opt = t, .usage = usage, .version = UIE_TOOL_VERSION
	};
	int rc;

	memset(o, 0, sizeof(*o));
	o->socket = UIE_BRIDGE_DEFAULT_PATH;
	if ((rc = uie_opts_parse(&spec, argc, argv)) != UIE_OPTS_GO)
		return rc;
	if (!o->http.base || !o->machine || !o->http.cert != !o->http.key || o->enrol != !!o->fleet ||
	    (!o->enrol && (o->configfs || o->reference || o->npolicies)))
		return uie_opts_usage(&spec);
	if (!uie_machine_id_ok(o->machine)) {
		fprintf(stderr, "uie attest: --machine '%s': an id is 1-%d characters of A-Z a-z 0-9 . _ -\n",
			o->machine, UIE_MACHINE_ID_MAX);
		return UIE_OPTS_EXIT_USAGE;
	}
	return UIE_OPTS_GO;
}

int attest_answer(const char *what, int r, long status, long want, json_t *reply)
{
	if (r != UIE_OK)
		return r;
	if (status == want && json_is_object(reply))
		return UIE_OK;
	fprintf(stderr, "uie attest: %s: HTTP %ld %s: %s\n", what, status,
		json_string_value(json_object_get(reply, "error")) ?: "",
		json_string_value(json_object_get(reply, "reason")) ?: "(no reason)");
	return UIE_E_PEER;
}

static int get_nonce(struct uie_http *h, const struct attest_opts *o, uint8_t nonce[NONCE_LEN],
		     uint64_t *since)
{
	char path[256];
	json_t *reply = NULL;
	long status;
	int r;

	snprintf(path, sizeof(path), "/v1/machines/%s/nonce", o->machine);
	r = uie_http_json(h, "POST", path, NULL, &status, &reply);
	if ((r = attest_answer("nonce", r, status, 201, reply)) == UIE_OK &&
	    (uie_hex_decode(json_string_value(json_object_get(reply, "nonce")),
			    json_string_length(json_object_get(reply, "nonce")), nonce,
			    NONCE_LEN) != UIE_OK ||
	     !json_is_integer(json_object_get(reply, "since")))) {
		fprintf(stderr, "uie attest: the verifier's nonce answer is malformed\n");
		r = UIE_E_PEER;
	}
	if (r == UIE_OK)
		*since = (uint64_t)json_integer_value(json_object_get(reply, "since"));
	json_decref(reply);
	return r;
}

/*
 * The AE from since; from record 0 when the monitor no longer has since
 * (it restarted with a shorter log).
 */
static int export_ae(int fd, const uint8_t nonce[NONCE_LEN], uint64_t since, uint8_t **ae, size_t *len)
{
	int r = uie_bridge_export_alloc(fd, nonce, NONCE_LEN, since, ae, len);

	if (r == UIE_E_RANGE && since)
		r = uie_bridge_export_alloc(fd, nonce, NONCE_LEN, 0, ae, len);
	if (r != UIE_OK)
		fprintf(stderr, "uie attest: the monitor did not export: %s\n", uie_err_str(r));
	return r;
}

static int post_ae(struct uie_http *h, const struct attest_opts *o, const uint8_t nonce[NONCE_LEN],
		   const uint8_t *ae, size_t len, long *status, json_t **reply)
{
	char path[256], hex[2 * NONCE_LEN + 1], *b64 = uie_b64_encode_alloc(ae, len);
	json_t *body;
	int r;

	uie_hex_encode(hex, nonce, NONCE_LEN);
	if (!b64 || !(body = json_pack("{s:s, s:s}", "nonce", hex, "evidence", b64))) {
		free(b64);
		return UIE_E_NOMEM;
	}
	free(b64);
	snprintf(path, sizeof(path), "/v1/machines/%s/attestations", o->machine);
	r = uie_http_json(h, "POST", path, body, status, reply);
	json_decref(body);
	return r;
}

/* Tells the monitor the verifier holds the records up to the verdict's next_seq. */
static int checkpoint(int fd, json_t *verdict)
{
	uint8_t pcr[UIE_PCR_LEN];
	uint64_t base;
	json_t *pj = json_object_get(verdict, "vpcr16"), *nj = json_object_get(verdict, "next_seq");
	int r;

	if (!json_is_integer(nj) || json_integer_value(nj) < 0 ||
	    uie_hex_decode(json_string_value(pj), json_string_length(pj), pcr, sizeof(pcr)) != UIE_OK)
		return UIE_E_PEER;
	if ((r = uie_bridge_checkpoint(fd, (uint64_t)json_integer_value(nj), pcr, &base)) != UIE_OK)
		fprintf(stderr, "uie attest: checkpoint at record %lld: %s\n",
			(long long)json_integer_value(nj), uie_err_str(r));
	return r;
}

/* One nonce-export-post exchange; *reply the verdict or error answer. */
static int exchange(struct uie_http *h, const struct attest_opts *o, int fd, bool full, long *status,
		    json_t **reply)
{
	uint8_t nonce[NONCE_LEN], *ae = NULL;
	uint64_t since = 0;
	size_t len = 0;
	int r;

	*reply = NULL;
	if ((r = get_nonce(h, o, nonce, &since)) != UIE_OK ||
	    (r = export_ae(fd, nonce, full ? 0 : since, &ae, &len)) != UIE_OK)
		return r;
	r = post_ae(h, o, nonce, ae, len, status, reply);
	free(ae);
	return r;
}

static bool is_error(json_t *reply, const char *code)
{
	const char *e = json_string_value(json_object_get(reply, "error"));

	return e && strcmp(e, code) == 0;
}

/* One round; with --enrol, enrolment first, until it succeeds once. */
static int round_once(struct uie_http *h, struct attest_opts *o)
{
	json_t *reply = NULL;
	long status = 0;
	bool rejected = false;
	int fd, r;

	if (uie_tool_connect("uie attest", o->socket, &fd) != UIE_OK)
		return UIE_EXIT_FAIL;
	if (o->enrol && attest_enrol(h, o, fd) != UIE_OK) {
		close(fd);
		return UIE_EXIT_FAIL;
	}
	o->enrol = false;
	r = exchange(h, o, fd, false, &status, &reply);
	if (r == UIE_OK && status == 409 && is_error(reply, "full_log_needed")) {
		json_decref(reply);
		r = exchange(h, o, fd, true, &status, &reply);
	}
	if ((r = attest_answer("attestation", r, status, 200, reply)) == UIE_OK) {
		json_dumpf(reply, stdout, JSON_COMPACT);
		putchar('\n');
		fflush(stdout);
		rejected = !json_is_true(json_object_get(reply, "accepted"));
		if (!rejected && !o->keep_records)
			r = checkpoint(fd, reply);
	}
	json_decref(reply);
	close(fd);
	return r != UIE_OK ? UIE_EXIT_FAIL : rejected ? EXIT_REJECTED : UIE_EXIT_OK;
}

int uie_cmd_attest(int argc, char **argv)
{
	struct attest_opts o;
	struct uie_http *h;
	int rc;

	if ((rc = parse(argc, argv, &o)) != UIE_OPTS_GO)
		return rc;
	if (uie_http_open_alloc(&o.http, &h) != UIE_OK)
		return UIE_EXIT_FAIL;
	do {
		rc = round_once(h, &o);
		if (o.interval)
			sleep((unsigned)o.interval);
	} while (o.interval);
	uie_http_free(h);
	return rc;
}
