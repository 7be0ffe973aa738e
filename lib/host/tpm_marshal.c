/* SPDX-License-Identifier: Apache-2.0 */
/* TPM 2.0 quote, signature and public-area marshalling through tpm2-tss (tss2-mu). */
#include "tpm_marshal.h"

#include <stdbool.h>
#include <string.h>

#include <openssl/sha.h>
#include <tss2/tss2_mu.h>

#include "uie/err.h"
#include "tpm_public.h"
#include "uie/types.h"

int uie_tpm_get16(struct uie_rbuf *b, uint16_t *v)
{
	uint8_t t[2];
	int r = uie_rbuf_bytes(b, t, sizeof(t));

	*v = r == UIE_OK ? (uint16_t)(t[0] << 8 | t[1]) : 0;
	return r;
}

int uie_tpm_get32(struct uie_rbuf *b, uint32_t *v)
{
	uint8_t t[4];
	int r = uie_rbuf_bytes(b, t, sizeof(t));

	*v = r == UIE_OK ? (uint32_t)t[0] << 24 | (uint32_t)t[1] << 16 | (uint32_t)t[2] << 8 | t[3] : 0;
	return r;
}

int uie_tpm_get64(struct uie_rbuf *b, uint64_t *v)
{
	uint32_t hi = 0, lo = 0;
	int r;

	*v = 0;
	if ((r = uie_tpm_get32(b, &hi)) != UIE_OK || (r = uie_tpm_get32(b, &lo)) != UIE_OK)
		return r;
	*v = (uint64_t)hi << 32 | lo;
	return UIE_OK;
}

void uie_tpm_put16(struct uie_wbuf *w, uint16_t v)
{
	uint8_t t[2] = { (uint8_t)(v >> 8), (uint8_t)v };

	uie_wbuf_bytes(w, t, sizeof(t));
}

void uie_tpm_put32(struct uie_wbuf *w, uint32_t v)
{
	uint8_t t[4] = { (uint8_t)(v >> 24), (uint8_t)(v >> 16), (uint8_t)(v >> 8), (uint8_t)v };

	uie_wbuf_bytes(w, t, sizeof(t));
}

void uie_tpm_put64(struct uie_wbuf *w, uint64_t v)
{
	uie_tpm_put32(w, (uint32_t)(v >> 32));
	uie_tpm_put32(w, (uint32_t)v);
}

/*
 * The structures themselves are tpm2-tss's (Tss2_MU_*): converted from and
 * to our fixed-size views, whose maxima are checked here, outside the
 * marshalling, together with the strictness tpm2-tss leaves to the caller
 * (attestation type, algorithm, trailing bytes).
 */
_Static_assert(sizeof(((TPM2B_NAME *)0)->name) >= UIE_TPM_NAME_MAX, "qualifiedSigner fits");
_Static_assert(sizeof(((TPM2B_DATA *)0)->buffer) >= UIE_TPM_DATA_MAX, "extraData fits");
_Static_assert(sizeof(((TPM2B_DIGEST *)0)->buffer) >= UIE_TPM_DIGEST_MAX, "pcrDigest fits");
_Static_assert(TPM2_NUM_PCR_BANKS >= UIE_TPM_MAX_BANKS, "PCR banks fit");
_Static_assert(TPM2_PCR_SELECT_MAX >= UIE_TPM_PCR_SELECT_MAX, "PCR selection fits");
_Static_assert(TPM2_MAX_ECC_KEY_BYTES >= UIE_TPM_ECC_MAX, "ECC parameters fit");
/* A verifier's nonce is the quote's extraData. */
_Static_assert(UIE_NONCE_MAX <= UIE_TPM_DATA_MAX, "every nonce fits extraData");

/* A tpm2-tss marshalling result as a project error. */
static int mu_err(TSS2_RC rc)
{
	switch (rc) {
	case TSS2_RC_SUCCESS: return UIE_OK;
	case TSS2_MU_RC_INSUFFICIENT_BUFFER: return UIE_E_TRUNCATED;
	case TSS2_MU_RC_BAD_SIZE: return UIE_E_LIMIT;
	default: return UIE_E_FORMAT;
	}
}

/*
 * Appends the n bytes a Tss2_MU_*_Marshal wrote into tmp, or latches its
 * error in w.  The caller stores rc first: n is set by that call.
 */
static void put_marshalled(struct uie_wbuf *w, TSS2_RC rc, const uint8_t *tmp, size_t n)
{
	if (rc == TSS2_RC_SUCCESS)
		uie_wbuf_bytes(w, tmp, n);
	else if (w->err == UIE_OK)
		w->err = UIE_E_OVERFLOW;
}

/* Copies a TPM2B's n bytes into a view of at most max bytes (UIE_E_LIMIT above it). */
static int take(uint8_t *dst, uint16_t *dst_len, const uint8_t *src, uint16_t n, size_t max)
{
	if (n > max)
		return UIE_E_LIMIT;
	memcpy(dst, src, n);
	*dst_len = n;
	return UIE_OK;
}

/* Our view of a quote as TPMS_ATTEST; false when a length is beyond the TPM's own maxima. */
static bool quote_to_tss(const struct uie_tpm_quote *q, TPMS_ATTEST *ta)
{
	TPML_PCR_SELECTION *sel = &ta->attested.quote.pcrSelect;

	memset(ta, 0, sizeof(*ta));
	if (q->signer_len > UIE_TPM_NAME_MAX || q->extra_len > UIE_TPM_DATA_MAX ||
	    q->pcr_digest_len > UIE_TPM_DIGEST_MAX || q->nsel > UIE_TPM_MAX_BANKS)
		return false;
	ta->magic = q->magic;
	ta->type = q->type;
	ta->qualifiedSigner.size = q->signer_len;
	memcpy(ta->qualifiedSigner.name, q->signer, q->signer_len);
	ta->extraData.size = q->extra_len;
	memcpy(ta->extraData.buffer, q->extra, q->extra_len);
	ta->clockInfo.clock = q->clock;
	ta->clockInfo.resetCount = q->reset_count;
	ta->clockInfo.restartCount = q->restart_count;
	ta->clockInfo.safe = q->safe;
	ta->firmwareVersion = q->firmware_version;
	sel->count = q->nsel;
	for (uint32_t i = 0; i < q->nsel; i++) {
		if (q->sel[i].size_of_select > UIE_TPM_PCR_SELECT_MAX)
			return false;
		sel->pcrSelections[i].hash = q->sel[i].hash;
		sel->pcrSelections[i].sizeofSelect = q->sel[i].size_of_select;
		memcpy(sel->pcrSelections[i].pcrSelect, q->sel[i].select, q->sel[i].size_of_select);
	}
	ta->attested.quote.pcrDigest.size = q->pcr_digest_len;
	memcpy(ta->attested.quote.pcrDigest.buffer, q->pcr_digest, q->pcr_digest_len);
	return true;
}

static int quote_from_tss(const TPMS_ATTEST *ta, struct uie_tpm_quote *q)
{
	const TPML_PCR_SELECTION *sel = &ta->attested.quote.pcrSelect;
	int r;

	q->magic = ta->magic;
	q->type = ta->type;
	if ((r = take(q->signer, &q->signer_len, ta->qualifiedSigner.name, ta->qualifiedSigner.size,
		      UIE_TPM_NAME_MAX)) != UIE_OK ||
	    (r = take(q->extra, &q->extra_len, ta->extraData.buffer, ta->extraData.size, UIE_TPM_DATA_MAX)) !=
		    UIE_OK ||
	    (r = take(q->pcr_digest, &q->pcr_digest_len, ta->attested.quote.pcrDigest.buffer,
		      ta->attested.quote.pcrDigest.size, UIE_TPM_DIGEST_MAX)) != UIE_OK)
		return r;
	q->clock = ta->clockInfo.clock;
	q->reset_count = ta->clockInfo.resetCount;
	q->restart_count = ta->clockInfo.restartCount;
	q->safe = ta->clockInfo.safe;
	q->firmware_version = ta->firmwareVersion;
	if (sel->count > UIE_TPM_MAX_BANKS)
		return UIE_E_LIMIT;
	q->nsel = sel->count;
	for (uint32_t i = 0; i < sel->count; i++) {
		if (sel->pcrSelections[i].sizeofSelect > UIE_TPM_PCR_SELECT_MAX)
			return UIE_E_LIMIT;
		q->sel[i].hash = sel->pcrSelections[i].hash;
		q->sel[i].size_of_select = sel->pcrSelections[i].sizeofSelect;
		memcpy(q->sel[i].select, sel->pcrSelections[i].pcrSelect, sel->pcrSelections[i].sizeofSelect);
	}
	return UIE_OK;
}

void uie_tpm_quote_put(struct uie_wbuf *w, const struct uie_tpm_quote *q)
{
	uint8_t tmp[sizeof(TPMS_ATTEST)];
	TPMS_ATTEST ta;
	size_t off = 0;
	TSS2_RC rc;

	if (!quote_to_tss(q, &ta)) {
		if (w->err == UIE_OK)
			w->err = UIE_E_LIMIT;
		return;
	}
	rc = Tss2_MU_TPMS_ATTEST_Marshal(&ta, tmp, sizeof(tmp), &off);
	put_marshalled(w, rc, tmp, off);
}

/* The fields before TPMU_ATTEST: a quote of ours needs both before the union is read. */
static int peek_header(const uint8_t *p, size_t len, uint32_t *magic, uint16_t *type)
{
	struct uie_rbuf b;
	int r;

	uie_rbuf_init(&b, p, len);
	if ((r = uie_tpm_get32(&b, magic)) != UIE_OK)
		return r;
	return uie_tpm_get16(&b, type);
}

int uie_tpm_quote_parse(const uint8_t *p, size_t len, struct uie_tpm_quote *out)
{
	TPMS_ATTEST ta;
	uint32_t magic;
	uint16_t type;
	size_t off = 0;
	int r;

	memset(out, 0, sizeof(*out));
	if ((r = peek_header(p, len, &magic, &type)) != UIE_OK)
		return r;
	/* TPMU_ATTEST is a union selected by type: only the quote arm is known here. */
	if (type != UIE_TPM_ST_ATTEST_QUOTE)
		return UIE_E_FORMAT;
	r = mu_err(Tss2_MU_TPMS_ATTEST_Unmarshal(p, len, &off, &ta));
	if (r == UIE_OK && off != len)
		r = UIE_E_FORMAT; /* trailing bytes */
	if (r == UIE_OK)
		r = quote_from_tss(&ta, out);
	if (r != UIE_OK)
		memset(out, 0, sizeof(*out));
	return r;
}

void uie_tpm_sig_put(struct uie_wbuf *w, const struct uie_tpm_ecdsa_sig *s)
{
	uint8_t tmp[sizeof(TPMT_SIGNATURE)];
	TPMT_SIGNATURE ts = { .sigAlg = s->sig_alg };
	size_t off = 0;
	TSS2_RC rc;

	if (s->r_len > UIE_TPM_ECC_MAX || s->s_len > UIE_TPM_ECC_MAX) {
		if (w->err == UIE_OK)
			w->err = UIE_E_LIMIT;
		return;
	}
	ts.signature.ecdsa.hash = s->hash_alg;
	ts.signature.ecdsa.signatureR.size = s->r_len;
	memcpy(ts.signature.ecdsa.signatureR.buffer, s->r, s->r_len);
	ts.signature.ecdsa.signatureS.size = s->s_len;
	memcpy(ts.signature.ecdsa.signatureS.buffer, s->s, s->s_len);
	rc = Tss2_MU_TPMT_SIGNATURE_Marshal(&ts, tmp, sizeof(tmp), &off);
	put_marshalled(w, rc, tmp, off);
}

int uie_tpm_sig_parse(const uint8_t *p, size_t len, struct uie_tpm_ecdsa_sig *out)
{
	const TPMS_SIGNATURE_ECDSA *e;
	TPMT_SIGNATURE ts;
	struct uie_rbuf b;
	size_t off = 0;
	int r;

	memset(out, 0, sizeof(*out));
	uie_rbuf_init(&b, p, len);
	if ((r = uie_tpm_get16(&b, &out->sig_alg)) != UIE_OK)
		goto fail;
	/* Only ECDSA is ours: any other arm of TPMU_SIGNATURE is refused before it is read. */
	if (out->sig_alg != UIE_TPM_ALG_ECDSA) {
		r = UIE_E_ALG;
		goto fail;
	}
	r = mu_err(Tss2_MU_TPMT_SIGNATURE_Unmarshal(p, len, &off, &ts));
	if (r == UIE_OK && off != len)
		r = UIE_E_FORMAT;
	if (r != UIE_OK)
		goto fail;
	e = &ts.signature.ecdsa;
	out->hash_alg = e->hash;
	if ((r = take(out->r, &out->r_len, e->signatureR.buffer, e->signatureR.size, UIE_TPM_ECC_MAX)) !=
		    UIE_OK ||
	    (r = take(out->s, &out->s_len, e->signatureS.buffer, e->signatureS.size, UIE_TPM_ECC_MAX)) !=
		    UIE_OK)
		goto fail;
	return UIE_OK;
fail:
	memset(out, 0, sizeof(*out));
	return r;
}

void uie_tpm_ecc_public_put(struct uie_wbuf *w, const uint8_t x[32], const uint8_t y[32])
{
	uint8_t tmp[sizeof(TPMT_PUBLIC)];
	TPMT_PUBLIC pub;
	size_t off = 0;
	TSS2_RC rc;

	uie_tpm_ak_template(&pub, x, y);
	rc = Tss2_MU_TPMT_PUBLIC_Marshal(&pub, tmp, sizeof(tmp), &off);
	put_marshalled(w, rc, tmp, off);
}

int uie_tpm_ecc_name(const uint8_t x[32], const uint8_t y[32], uint8_t name[34])
{
	uint8_t pub[sizeof(TPMT_PUBLIC)];
	struct uie_wbuf w;

	uie_wbuf_init(&w, pub, sizeof(pub));
	uie_tpm_ecc_public_put(&w, x, y);
	if (w.err != UIE_OK)
		return w.err;
	name[0] = UIE_TPM_ALG_SHA256 >> 8;
	name[1] = UIE_TPM_ALG_SHA256 & 0xff;
	if (!SHA256(pub, w.len, name + 2))
		return UIE_E_CRYPTO;
	return UIE_OK;
}
