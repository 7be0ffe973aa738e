/* SPDX-License-Identifier: Apache-2.0 */
/* TPM 2.0 quote, signature and public-area marshalling (big-endian). */
#include "tpm_marshal.h"

#include <string.h>

#include <openssl/sha.h>

#include "uie/err.h"

/* TPMA_OBJECT: fixedTPM | fixedParent | sensitiveDataOrigin | userWithAuth | restricted | sign */
#define AK_ATTRIBUTES 0x00050072u

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

/* A TPM2B: u16 size, then that many bytes (at most max). */
static int get_2b(struct uie_rbuf *b, uint8_t *out, uint16_t *len, size_t max)
{
	uint16_t n;
	int r;

	if ((r = uie_tpm_get16(b, &n)) != UIE_OK)
		return r;
	if (n > max)
		return UIE_E_LIMIT;
	if ((r = uie_rbuf_bytes(b, out, n)) != UIE_OK)
		return r;
	*len = n;
	return UIE_OK;
}

static void put_2b(struct uie_wbuf *w, const uint8_t *p, uint16_t n)
{
	uie_tpm_put16(w, n);
	uie_wbuf_bytes(w, p, n);
}

void uie_tpm_quote_put(struct uie_wbuf *w, const struct uie_tpm_quote *q)
{
	uie_tpm_put32(w, q->magic);
	uie_tpm_put16(w, q->type);
	put_2b(w, q->signer, q->signer_len);
	put_2b(w, q->extra, q->extra_len);
	uie_tpm_put64(w, q->clock);
	uie_tpm_put32(w, q->reset_count);
	uie_tpm_put32(w, q->restart_count);
	uie_wbuf_u8(w, q->safe);
	uie_tpm_put64(w, q->firmware_version);
	uie_tpm_put32(w, q->nsel);
	for (uint32_t i = 0; i < q->nsel && i < UIE_TPM_MAX_BANKS; i++) {
		uie_tpm_put16(w, q->sel[i].hash);
		uie_wbuf_u8(w, q->sel[i].size_of_select);
		uie_wbuf_bytes(w, q->sel[i].select, q->sel[i].size_of_select);
	}
	put_2b(w, q->pcr_digest, q->pcr_digest_len);
}

static int get_selection(struct uie_rbuf *b, struct uie_tpm_quote *q)
{
	int r;

	if ((r = uie_tpm_get32(b, &q->nsel)) != UIE_OK)
		return r;
	if (q->nsel > UIE_TPM_MAX_BANKS)
		return UIE_E_LIMIT;
	for (uint32_t i = 0; i < q->nsel; i++) {
		struct uie_tpm_pcr_sel *s = &q->sel[i];

		if ((r = uie_tpm_get16(b, &s->hash)) != UIE_OK ||
		    (r = uie_rbuf_u8(b, &s->size_of_select)) != UIE_OK)
			return r;
		if (s->size_of_select > UIE_TPM_PCR_SELECT_MAX)
			return UIE_E_LIMIT;
		if ((r = uie_rbuf_bytes(b, s->select, s->size_of_select)) != UIE_OK)
			return r;
	}
	return UIE_OK;
}

int uie_tpm_quote_parse(const uint8_t *p, size_t len, struct uie_tpm_quote *out)
{
	struct uie_rbuf b;
	int r;

	memset(out, 0, sizeof(*out));
	uie_rbuf_init(&b, p, len);
	if ((r = uie_tpm_get32(&b, &out->magic)) != UIE_OK ||
	    (r = uie_tpm_get16(&b, &out->type)) != UIE_OK)
		goto fail;
	/* TPMU_ATTEST is a union selected by type: only the quote arm is known here. */
	if (out->type != UIE_TPM_ST_ATTEST_QUOTE) {
		r = UIE_E_FORMAT;
		goto fail;
	}
	if ((r = get_2b(&b, out->signer, &out->signer_len, sizeof(out->signer))) != UIE_OK ||
	    (r = get_2b(&b, out->extra, &out->extra_len, sizeof(out->extra))) != UIE_OK ||
	    (r = uie_tpm_get64(&b, &out->clock)) != UIE_OK ||
	    (r = uie_tpm_get32(&b, &out->reset_count)) != UIE_OK ||
	    (r = uie_tpm_get32(&b, &out->restart_count)) != UIE_OK ||
	    (r = uie_rbuf_u8(&b, &out->safe)) != UIE_OK ||
	    (r = uie_tpm_get64(&b, &out->firmware_version)) != UIE_OK ||
	    (r = get_selection(&b, out)) != UIE_OK ||
	    (r = get_2b(&b, out->pcr_digest, &out->pcr_digest_len, sizeof(out->pcr_digest))) != UIE_OK ||
	    (r = uie_rbuf_end(&b)) != UIE_OK)
		goto fail;
	return UIE_OK;
fail:
	memset(out, 0, sizeof(*out));
	return r;
}

void uie_tpm_sig_put(struct uie_wbuf *w, const struct uie_tpm_ecdsa_sig *s)
{
	uie_tpm_put16(w, s->sig_alg);
	uie_tpm_put16(w, s->hash_alg);
	put_2b(w, s->r, s->r_len);
	put_2b(w, s->s, s->s_len);
}

int uie_tpm_sig_parse(const uint8_t *p, size_t len, struct uie_tpm_ecdsa_sig *out)
{
	struct uie_rbuf b;
	int r;

	memset(out, 0, sizeof(*out));
	uie_rbuf_init(&b, p, len);
	if ((r = uie_tpm_get16(&b, &out->sig_alg)) != UIE_OK)
		goto fail;
	if (out->sig_alg != UIE_TPM_ALG_ECDSA) {
		r = UIE_E_ALG;
		goto fail;
	}
	if ((r = uie_tpm_get16(&b, &out->hash_alg)) != UIE_OK ||
	    (r = get_2b(&b, out->r, &out->r_len, sizeof(out->r))) != UIE_OK ||
	    (r = get_2b(&b, out->s, &out->s_len, sizeof(out->s))) != UIE_OK ||
	    (r = uie_rbuf_end(&b)) != UIE_OK)
		goto fail;
	return UIE_OK;
fail:
	memset(out, 0, sizeof(*out));
	return r;
}

void uie_tpm_ecc_public_put(struct uie_wbuf *w, const uint8_t x[32], const uint8_t y[32])
{
	uie_tpm_put16(w, UIE_TPM_ALG_ECC);        /* type */
	uie_tpm_put16(w, UIE_TPM_ALG_SHA256);     /* nameAlg */
	uie_tpm_put32(w, AK_ATTRIBUTES);          /* objectAttributes */
	uie_tpm_put16(w, 0);                      /* authPolicy: empty */
	uie_tpm_put16(w, UIE_TPM_ALG_NULL);       /* symmetric */
	uie_tpm_put16(w, UIE_TPM_ALG_ECDSA);      /* scheme */
	uie_tpm_put16(w, UIE_TPM_ALG_SHA256);     /*   its hash */
	uie_tpm_put16(w, UIE_TPM_ECC_NIST_P256);  /* curveID */
	uie_tpm_put16(w, UIE_TPM_ALG_NULL);       /* kdf */
	put_2b(w, x, 32);                         /* unique.ecc.x */
	put_2b(w, y, 32);                         /* unique.ecc.y */
}

int uie_tpm_ecc_name(const uint8_t x[32], const uint8_t y[32], uint8_t name[34])
{
	uint8_t pub[128];
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
