/* SPDX-License-Identifier: Apache-2.0 */
#include "pkgbuild.h"

#include <stdlib.h>
#include <string.h>

#include <openssl/rand.h>

#include "uie/err.h"
#include "uie/package.h"

#include "bloom.h"
#include "keys.h"
#include "pubkey.h"

int pkg_hint_alloc(const struct uie_policy *pol, uint64_t epoch, uint32_t bits_per_key, uint8_t **out,
		   size_t *len)
{
	size_t dlen = uie_hash_len(pol->hash_alg), hlen;
	uint32_t nallow = 0, nbits;
	uint64_t salt[2];
	uint8_t *h, k;
	int r;

	*out = NULL;
	*len = 0;
	if (pol->mode != UIE_MODE_ENFORCE || pol->default_action != UIE_DENY)
		return UIE_E_STATE;
	for (uint32_t i = 0; i < pol->nrules; i++)
		nallow += pol->rules[(size_t)i * pol->rule_len + 2] == UIE_ALLOW;
	uie_bloom_params(nallow, bits_per_key, &nbits, &k);
	if (!(hlen = uie_bloom_encoded_len(nbits)))
		return UIE_E_LIMIT;
	if (RAND_bytes((unsigned char *)salt, sizeof(salt)) != 1)
		return UIE_E_CRYPTO;
	if (!(h = malloc(hlen)))
		return UIE_E_NOMEM;
	r = uie_bloom_init(h, hlen, pol->hash_alg, k, epoch, salt, nbits);
	for (uint32_t i = 0; r == UIE_OK && i < pol->nrules; i++) {
		const uint8_t *q = pol->rules + (size_t)i * pol->rule_len;

		if (q[2] == UIE_ALLOW)
			r = uie_bloom_add(h, hlen, q + pol->rule_len - dlen, dlen);
	}
	if (r != UIE_OK) {
		free(h);
		return r;
	}
	*out = h;
	*len = hlen;
	return UIE_OK;
}

int pkg_build_alloc(EVP_PKEY *key, const uint8_t *table, size_t tlen, const struct pkg_params *pp,
		    uint8_t **out, size_t *len)
{
	struct uie_package p = { 0 };
	struct uie_policy pol;
	uint8_t *hint = NULL, *buf = NULL, sig[UIE_PACKAGE_MAX_SIG];
	size_t hlen = 0, cap, blen;
	int r;

	*out = NULL;
	*len = 0;
	if ((r = uie_policy_load(table, tlen, &pol)) != UIE_OK)
		return r;
	if (pp->hint && (r = pkg_hint_alloc(&pol, pp->epoch, pp->hint_bits, &hint, &hlen)) != UIE_OK)
		return r;
	p.version = UIE_PACKAGE_VERSION;
	p.sig_alg = UIE_SIG_ECDSA_P256_SHA256;
	p.hash_alg = pol.hash_alg;
	p.epoch = pp->epoch;
	p.bind_seq = pp->bind_seq;
	memcpy(p.bind_pcr, pp->bind_pcr, UIE_PCR_LEN);
	p.table = table;
	p.table_len = tlen;
	p.hint = hint;
	p.hint_len = hlen;
	cap = UIE_PACKAGE_HDR_LEN + tlen + hlen + 2 + UIE_PACKAGE_MAX_SIG;
	if ((r = uie_pubkey_id(key, p.key_id)) != UIE_OK)
		goto out;
	r = UIE_E_NOMEM;
	if (!(buf = malloc(cap)))
		goto out;
	if ((r = uie_package_encode(&p, buf, cap, &blen)) != UIE_OK ||
	    (r = EVP_Digest(buf, blen, p.package_hash, NULL, EVP_sha256(), NULL) == 1
			 ? UIE_OK
			 : UIE_E_CRYPTO) != UIE_OK ||
	    (r = keys_sign_digest(key, p.package_hash, sig, sizeof(sig), &p.sig_len)) != UIE_OK)
		goto out;
	p.sig = sig;
	if ((r = uie_package_encode(&p, buf, cap, &blen)) != UIE_OK)
		goto out;
	*out = buf;
	*len = blen;
	buf = NULL;
out:
	free(buf);
	free(hint);
	return r;
}
