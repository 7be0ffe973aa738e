/* SPDX-License-Identifier: Apache-2.0 */
/* vTPM facade: picks a backend from its spec and forwards every call. */
#include "vtpm_impl.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/core_names.h>
#include <openssl/evp.h>
#include <openssl/param_build.h>
#include <openssl/x509.h>

#include "hex.h"
#include "tpm_public.h"
#include "uie/err.h"

/* A host or port of a swtpm: spec must not smuggle other TCTI options. */
static int safe_tcti_word(const char *s, size_t n)
{
	if (n == 0)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (s[i] == ',' || s[i] == '=' || s[i] == ' ' || (unsigned char)s[i] < 0x21)
			return 0;
	return 1;
}

/* "HOST:PORT" (TCP) or "/PATH" (a unix socket, what a deployment should use). */
static int swtpm_conf(const char *rest, char *conf, size_t cap)
{
	const char *colon = strrchr(rest, ':');
	uint64_t port;

	if (rest[0] == '/') {
		if (!safe_tcti_word(rest, strlen(rest)))
			return UIE_E_INVAL;
		if (snprintf(conf, cap, "swtpm:path=%s", rest) >= (int)cap)
			return UIE_E_LIMIT;
		return UIE_OK;
	}
	if (!colon || !safe_tcti_word(rest, (size_t)(colon - rest)))
		return UIE_E_INVAL;
	if (uie_parse_u64(colon + 1, &port) != UIE_OK || port == 0 || port > 65535)
		return UIE_E_INVAL;
	if (snprintf(conf, cap, "swtpm:host=%.*s,port=%llu", (int)(colon - rest), rest,
		     (unsigned long long)port) >= (int)cap)
		return UIE_E_LIMIT;
	return UIE_OK;
}

int uie_vtpm_open(const char *spec, struct uie_vtpm **out)
{
	char conf[512];
	int r;

	if (!out)
		return UIE_E_INVAL;
	*out = NULL;
	if (!spec)
		return UIE_E_INVAL;
	if (!strncmp(spec, "builtin:", 8)) {
		if (spec[8] == '\0')
			return UIE_E_INVAL;
		return uie_vtpm_builtin_open(spec + 8, out);
	}
	if (!strncmp(spec, "swtpm:", 6)) {
		if ((r = swtpm_conf(spec + 6, conf, sizeof(conf))) != UIE_OK)
			return r;
		return uie_vtpm_tss_open(conf, out);
	}
	if (!strncmp(spec, "device:", 7)) {
		if (!safe_tcti_word(spec + 7, strlen(spec + 7)))
			return UIE_E_INVAL;
		if (snprintf(conf, sizeof(conf), "device:%s", spec + 7) >= (int)sizeof(conf))
			return UIE_E_LIMIT;
		return uie_vtpm_tss_open(conf, out);
	}
	return UIE_E_INVAL;
}

void uie_vtpm_free(struct uie_vtpm *t)
{
	if (t)
		t->ops->free(t);
}

int uie_vtpm_extend(struct uie_vtpm *t, const uint8_t lrh[UIE_PCR_LEN])
{
	if (!t || !lrh)
		return UIE_E_INVAL;
	return t->ops->extend(t, lrh);
}

int uie_vtpm_read_pcr16(struct uie_vtpm *t, uint8_t pcr[UIE_PCR_LEN])
{
	if (!t || !pcr)
		return UIE_E_INVAL;
	return t->ops->read_pcr16(t, pcr);
}

int uie_vtpm_quote_alloc(struct uie_vtpm *t, const uint8_t *nonce, size_t nonce_len, uint8_t **attest,
			 size_t *attest_len, uint8_t **sig, size_t *sig_len)
{
	if (!attest || !attest_len || !sig || !sig_len)
		return UIE_E_INVAL;
	*attest = *sig = NULL;
	*attest_len = *sig_len = 0;
	if (!t || !nonce || nonce_len < UIE_VTPM_NONCE_MIN || nonce_len > UIE_NONCE_MAX)
		return UIE_E_INVAL;
	return t->ops->quote_alloc(t, nonce, nonce_len, attest, attest_len, sig, sig_len);
}

int uie_vtpm_pubkey_alloc(struct uie_vtpm *t, uint8_t **der, size_t *len)
{
	if (!der || !len)
		return UIE_E_INVAL;
	*der = NULL;
	*len = 0;
	if (!t)
		return UIE_E_INVAL;
	return uie_vtpm_ecc_spki_alloc(t->x, t->y, der, len);
}

static int public_alloc(struct uie_vtpm *t, bool ek, uint8_t **pub, size_t *len)
{
	if (!pub || !len)
		return UIE_E_INVAL;
	*pub = NULL;
	*len = 0;
	if (!t)
		return UIE_E_INVAL;
	return uie_tpm_public_alloc(ek ? &t->ek_pub : &t->ak_pub, pub, len);
}

int uie_vtpm_ek_public_alloc(struct uie_vtpm *t, uint8_t **pub, size_t *len)
{
	return public_alloc(t, true, pub, len);
}

int uie_vtpm_ak_public_alloc(struct uie_vtpm *t, uint8_t **pub, size_t *len)
{
	return public_alloc(t, false, pub, len);
}

int uie_vtpm_activate_credential(struct uie_vtpm *t, const uint8_t *blob, size_t blob_len,
				 const uint8_t *secret, size_t secret_len, uint8_t *cred, size_t *cred_len)
{
	if (!cred_len)
		return UIE_E_INVAL;
	*cred_len = 0;
	if (!t || !blob || !secret || !cred)
		return UIE_E_INVAL;
	return t->ops->activate(t, blob, blob_len, secret, secret_len, cred, cred_len);
}

int uie_vtpm_ecc_spki_alloc(const uint8_t x[32], const uint8_t y[32], uint8_t **der, size_t *len)
{
	uint8_t point[65];
	OSSL_PARAM_BLD *bld = NULL;
	OSSL_PARAM *params = NULL;
	EVP_PKEY_CTX *pctx = NULL;
	EVP_PKEY *pk = NULL;
	unsigned char *p = NULL;
	int n, r = UIE_E_CRYPTO;

	*der = NULL;
	*len = 0;
	point[0] = 0x04; /* uncompressed */
	memcpy(point + 1, x, 32);
	memcpy(point + 33, y, 32);
	if (!(bld = OSSL_PARAM_BLD_new()) ||
	    !OSSL_PARAM_BLD_push_utf8_string(bld, OSSL_PKEY_PARAM_GROUP_NAME, "prime256v1", 0) ||
	    !OSSL_PARAM_BLD_push_octet_string(bld, OSSL_PKEY_PARAM_PUB_KEY, point, sizeof(point)) ||
	    !(params = OSSL_PARAM_BLD_to_param(bld)) ||
	    !(pctx = EVP_PKEY_CTX_new_from_name(NULL, "EC", NULL)) || EVP_PKEY_fromdata_init(pctx) != 1 ||
	    EVP_PKEY_fromdata(pctx, &pk, EVP_PKEY_PUBLIC_KEY, params) != 1)
		goto out;
	if ((n = i2d_PUBKEY(pk, &p)) <= 0)
		goto out;
	/* Callers free() what they get: copy out of OpenSSL's allocator. */
	if (!(*der = malloc((size_t)n))) {
		r = UIE_E_NOMEM;
		goto out;
	}
	memcpy(*der, p, (size_t)n);
	*len = (size_t)n;
	r = UIE_OK;
out:
	OPENSSL_free(p);
	EVP_PKEY_free(pk);
	EVP_PKEY_CTX_free(pctx);
	OSSL_PARAM_free(params);
	OSSL_PARAM_BLD_free(bld);
	return r;
}
