/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A hashing-only platform for bulk replay.  OpenSSL 3 looks the algorithm
 * up again on every EVP_DigestInit_ex with EVP_sha256() (an implicit
 * fetch, about 0.4 us); fetching the EVP_MD once makes the two small
 * hashes per log record several times cheaper.
 */
#include <string.h>

#include <openssl/evp.h>

#include "uie/err.h"
#include "verify.h"

static void *md_for(struct uie_verify_platform *vp, uint16_t alg)
{
	return alg == UIE_HASH_SHA256 ? vp->md[0] : alg == UIE_HASH_SHA384 ? vp->md[1] : NULL;
}

static int vp_begin(void *pctx, uint16_t alg, void **h)
{
	struct uie_verify_platform *vp = pctx;
	void *md = md_for(vp, alg);

	*h = NULL;
	if (!md)
		return UIE_E_ALG;
	for (unsigned i = 0; i < UIE_VERIFY_HASH_SLOTS; i++) {
		if (vp->busy[i])
			continue;
		if (EVP_DigestInit_ex(vp->ctx[i], md, NULL) != 1)
			return UIE_E_CRYPTO;
		vp->busy[i] = 1;
		*h = vp->ctx[i];
		return UIE_OK;
	}
	return UIE_E_LIMIT;
}

static int vp_update(void *pctx, void *h, const void *p, size_t n)
{
	(void)pctx;
	return EVP_DigestUpdate(h, p, n) == 1 ? UIE_OK : UIE_E_CRYPTO;
}

static int vp_end(void *pctx, void *h, uint8_t *out)
{
	struct uie_verify_platform *vp = pctx;
	unsigned char tmp[EVP_MAX_MD_SIZE];
	unsigned int n = 0;
	int r = EVP_DigestFinal_ex(h, tmp, &n) == 1 ? UIE_OK : UIE_E_CRYPTO;

	if (r == UIE_OK && out)
		memcpy(out, tmp, n);
	for (unsigned i = 0; i < UIE_VERIFY_HASH_SLOTS; i++)
		if (vp->ctx[i] == h)
			vp->busy[i] = 0;
	return r;
}

int uie_verify_platform_init(struct uie_verify_platform *vp)
{
	memset(vp, 0, sizeof(*vp));
	vp->md[0] = EVP_MD_fetch(NULL, "SHA256", NULL);
	vp->md[1] = EVP_MD_fetch(NULL, "SHA384", NULL);
	for (unsigned i = 0; i < UIE_VERIFY_HASH_SLOTS; i++)
		vp->ctx[i] = EVP_MD_CTX_new();
	for (unsigned i = 0; i < UIE_VERIFY_HASH_SLOTS; i++)
		if (!vp->ctx[i] || !vp->md[0] || !vp->md[1]) {
			uie_verify_platform_fini(vp);
			return UIE_E_CRYPTO;
		}
	vp->pl.ctx = vp;
	vp->pl.hash.begin = vp_begin;
	vp->pl.hash.update = vp_update;
	vp->pl.hash.end = vp_end;
	return UIE_OK;
}

void uie_verify_platform_fini(struct uie_verify_platform *vp)
{
	if (!vp)
		return;
	for (unsigned i = 0; i < UIE_VERIFY_HASH_SLOTS; i++)
		EVP_MD_CTX_free(vp->ctx[i]);
	EVP_MD_free(vp->md[0]);
	EVP_MD_free(vp->md[1]);
	memset(vp, 0, sizeof(*vp));
}
