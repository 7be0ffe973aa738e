/* SPDX-License-Identifier: Apache-2.0 */
/* Enrolment by attestation: the evidence judged step by step, and the credential challenge (enrol.h). */
#include "enrol.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/rand.h>

#include "snp_tsm.h"
#include "tpm_public.h"
#include "uie/err.h"

__attribute__((format(printf, 3, 4))) static int fail(struct uie_enrol_verdict *v, int err, const char *fmt,
						      ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(v->why, sizeof(v->why), fmt, ap);
	va_end(ap);
	return v->err = err;
}

/* The VCEK (or VLEK) of the certificate table into *out. */
static int vcek_of(const struct uie_enrol_evidence *ev, X509 **out, struct uie_enrol_verdict *v)
{
	struct uie_snp_cert_table t;
	struct uie_snp_why why;
	enum uie_snp_cert_kind k;
	int r;

	*out = NULL;
	if (!ev->aux || !ev->aux_len)
		return fail(v, UIE_E_NOTFOUND, "report: no certificate table (auxblob): the VCEK is needed");
	if ((r = uie_snp_cert_table_parse(ev->aux, ev->aux_len, &t, &why)) != UIE_OK)
		return fail(v, r, "report: certificate table: %s", why.msg);
	k = t.der[UIE_SNP_CERT_VCEK] ? UIE_SNP_CERT_VCEK : UIE_SNP_CERT_VLEK;
	if (!t.der[k])
		return fail(v, UIE_E_NOTFOUND, "report: the certificate table holds no VCEK or VLEK");
	if (uie_snp_cert_parse_alloc(t.der[k], t.len[k], out) != UIE_OK)
		return fail(v, UIE_E_FORMAT, "report: the certificate table's %s is not X.509 DER",
			    k == UIE_SNP_CERT_VCEK ? "VCEK" : "VLEK");
	return UIE_OK;
}

static int report_step(const struct uie_enrol_evidence *ev, const struct uie_enrol_trust *t,
		       struct uie_enrol_verdict *v)
{
	struct uie_snp_evidence se = { .report = ev->report,
				       .report_len = ev->report_len,
				       .ask = t->ask,
				       .ark = t->ark,
				       .simulated_root = t->simulated };
	const char *msg;
	int r;

	if ((r = vcek_of(ev, &se.vcek, v)) != UIE_OK)
		return r;
	r = uie_snp_verify(&se, t->pol, &v->snp);
	X509_free(se.vcek);
	if (r == UIE_OK)
		return UIE_OK;
	msg = v->snp.why.msg;
	if (strncmp(msg, "report: ", 8) == 0)
		msg += 8;
	return fail(v, r, "report: %s%s", v->snp.simulated ? "SIMULATED root, " : "", msg);
}

/* The EK the report binds for this nonce, equal to the posted one. */
static int binding_step(const struct uie_enrol_evidence *ev, const uint8_t nonce[UIE_SNP_NONCE_LEN],
			struct uie_enrol_verdict *v)
{
	struct uie_snp_why why;
	const uint8_t *ek;
	TPMT_PUBLIC pub;
	size_t ek_len;
	int r;

	r = uie_snp_vtpm_ek(&v->snp.report, nonce, ev->manifest, ev->manifest_len, ev->single, &ek, &ek_len,
			    &why);
	if (r == UIE_E_NONCE)
		return fail(v, r,
			    "binding: REPORT_DATA is not SHA-512(nonce || manifest) for the nonce this "
			    "verifier issued");
	if (r != UIE_OK)
		return fail(v, r, "%s", why.msg);
	if ((r = uie_tpm_public_parse(ev->ek_pub, ev->ek_len, &pub)) != UIE_OK)
		return fail(v, r, "EK: the posted EK is not one marshalled TPM2B_PUBLIC");
	/* A TPM2B_PUBLIC is its 2-byte size and the TPMT_PUBLIC the manifest holds. */
	if (ev->ek_len != ek_len + 2 || memcmp(ev->ek_pub + 2, ek, ek_len) != 0)
		return fail(v, UIE_E_KEY,
			    "manifest: EK differs from the posted EK: the report binds another vTPM");
	return UIE_OK;
}

static int ak_step(const struct uie_enrol_evidence *ev, struct uie_enrol_verdict *v)
{
	const char *why = "";
	TPMT_PUBLIC pub;
	int r;

	if ((r = uie_tpm_public_parse(ev->ak_pub, ev->ak_len, &pub)) != UIE_OK)
		return fail(v, r, "AK: not one marshalled TPM2B_PUBLIC");
	if ((r = uie_tpm_ak_check(&pub, &why)) != UIE_OK)
		return fail(v, r, "%s", why);
	if ((r = uie_tpm_ak_spki_alloc(&pub, &v->ak_der, &v->ak_len)) != UIE_OK)
		return fail(v, r, "AK: %s",
			    r == UIE_E_ALG   ? "not an ECC P-256 key (what quotes are verified with)"
			    : r == UIE_E_KEY ? "not a point of P-256"
					     : "OpenSSL failed on its key");
	return UIE_OK;
}

int uie_enrol_check_evidence(const struct uie_enrol_evidence *ev, const uint8_t nonce[UIE_SNP_NONCE_LEN],
			     const struct uie_enrol_trust *t, struct uie_enrol_verdict *v)
{
	memset(v, 0, sizeof(*v));
	if (!ev->report || !ev->manifest || !ev->ek_pub || !ev->ak_pub || !t->pol)
		return fail(v, UIE_E_INVAL, "evidence: a report, a manifest, an EK and an AK are needed");
	if (report_step(ev, t, v) == UIE_OK && binding_step(ev, nonce, v) == UIE_OK &&
	    ak_step(ev, v) == UIE_OK)
		snprintf(v->why, sizeof(v->why), "%s", v->snp.simulated ? "ok (simulated root)" : "ok");
	return v->err;
}

void uie_enrol_verdict_free(struct uie_enrol_verdict *v)
{
	OPENSSL_free(v->ak_der);
	v->ak_der = NULL;
	v->ak_len = 0;
}

int uie_enrol_challenge_alloc(const uint8_t *ek_pub, size_t ek_len, const uint8_t *ak_pub, size_t ak_len,
			      uint8_t secret[UIE_ENROL_SECRET_LEN], uint8_t **cred, size_t *cred_len,
			      const char **why)
{
	uint8_t *blob = NULL, *sec = NULL;
	size_t bl = 0, sl = 0;
	struct uie_wbuf w;
	int r;

	*cred = NULL;
	*cred_len = 0;
	if (RAND_bytes(secret, UIE_ENROL_SECRET_LEN) != 1) {
		*why = "credential: no randomness for the secret";
		return UIE_E_CRYPTO;
	}
	if ((r = uie_credential_make(ek_pub, ek_len, ak_pub, ak_len, secret, UIE_ENROL_SECRET_LEN, &blob, &bl,
				     &sec, &sl, why)) == UIE_OK) {
		if (!(*cred = malloc(UIE_CRED_FILE_MAX)))
			r = UIE_E_NOMEM;
		else {
			uie_wbuf_init(&w, *cred, UIE_CRED_FILE_MAX);
			uie_credential_file_put(&w, blob, bl, sec, sl);
			*cred_len = w.len;
			r = w.err;
		}
	}
	free(blob);
	free(sec);
	if (r != UIE_OK) {
		OPENSSL_cleanse(secret, UIE_ENROL_SECRET_LEN);
		free(*cred);
		*cred = NULL;
		*cred_len = 0;
	}
	return r;
}
