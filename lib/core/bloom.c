/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Bloom hint over object digests (docs/FORMATS.md section 4).  Bit positions
 * use double hashing: two 64-bit words of the digest, each XORed with a
 * salt word and passed through the splitmix64 finalizer, give a and b;
 * position i is (a + i * (b | 1)) mod nbits.  The digest is already a
 * cryptographic hash, so the mixing only has to decorrelate the salted
 * words, not resist an adversary: a crafted collision yields a false
 * positive, which costs one monitor round trip and grants nothing.
 */
#include "bloom.h"

#include "uie/buf.h"
#include "uie/err.h"

#include "mem.h"

static uint64_t mix64(uint64_t z)
{
	z ^= z >> 30;
	z *= 0xbf58476d1ce4e5b9ull;
	z ^= z >> 27;
	z *= 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static bool nbits_ok(uint32_t nbits)
{
	return nbits >= UIE_BLOOM_MIN_BITS && nbits <= UIE_BLOOM_MAX_BITS && nbits % 64 == 0;
}

size_t uie_bloom_encoded_len(uint32_t nbits)
{
	return nbits_ok(nbits) ? UIE_BLOOM_HDR_LEN + (size_t)nbits / 8 : 0;
}

void uie_bloom_params(uint32_t n, uint32_t bits_per_key, uint32_t *nbits, uint8_t *k)
{
	uint64_t m = (uint64_t)n * (bits_per_key ? bits_per_key : UIE_BLOOM_BITS_PER_ITEM);

	m = (m + 63) / 64 * 64;
	if (m < UIE_BLOOM_MIN_BITS)
		m = UIE_BLOOM_MIN_BITS;
	*nbits = m <= UIE_BLOOM_MAX_BITS ? (uint32_t)m : 0;
	*k = UIE_BLOOM_K;
}

/* The hint in buf into *out (zeroed). */
static int bloom_parse(const uint8_t *buf, size_t len, struct uie_bloom *out)
{
	struct uie_rbuf b;
	int r;

	uie_rbuf_init(&b, buf, len);
	if ((r = uie_rbuf_magic_version(&b, UIE_BLOOM_MAGIC, 8, UIE_BLOOM_VERSION)) != UIE_OK ||
	    (r = uie_rbuf_u16(&b, &out->hash_alg)) != UIE_OK || (r = uie_rbuf_u8(&b, &out->k)) != UIE_OK ||
	    (r = uie_rbuf_zero(&b, 3)) != UIE_OK || (r = uie_rbuf_u64(&b, &out->epoch)) != UIE_OK ||
	    (r = uie_rbuf_u64(&b, &out->salt[0])) != UIE_OK ||
	    (r = uie_rbuf_u64(&b, &out->salt[1])) != UIE_OK ||
	    (r = uie_rbuf_u32(&b, &out->nbits)) != UIE_OK || (r = uie_rbuf_u32(&b, &out->nitems)) != UIE_OK)
		return r;
	if (!uie_hash_len(out->hash_alg))
		return UIE_E_ALG;
	if (out->k < 1 || out->k > UIE_BLOOM_MAX_K || !nbits_ok(out->nbits))
		return UIE_E_LIMIT;
	if ((r = uie_rbuf_view(&b, &out->bits, out->nbits / 8)) != UIE_OK)
		return r;
	return uie_rbuf_end(&b);
}

int uie_bloom_parse(const uint8_t *buf, size_t len, struct uie_bloom *out)
{
	int r = uie_out_begin(out, sizeof(*out), buf != NULL);

	return r != UIE_OK ? r : uie_out_end(out, sizeof(*out), bloom_parse(buf, len, out));
}

/* The two double-hashing words of a digest (dlen >= 16 for every algorithm). */
static void positions_seed(const struct uie_bloom *b, const uint8_t *d, uint64_t *h1, uint64_t *h2)
{
	*h1 = mix64(uie_le64(d) ^ b->salt[0]);
	*h2 = mix64(uie_le64(d + 8) ^ b->salt[1]) | 1;
}

bool uie_bloom_maybe_contains(const struct uie_bloom *b, const uint8_t *digest, size_t dlen)
{
	uint64_t h1, h2;

	if (!b || !b->bits || !digest || dlen != uie_hash_len(b->hash_alg) || !nbits_ok(b->nbits))
		return true;
	positions_seed(b, digest, &h1, &h2);
	for (unsigned i = 0; i < b->k; i++) {
		uint64_t p = (h1 + (uint64_t)i * h2) % b->nbits;

		if (!(b->bits[p / 8] & (1u << (p % 8))))
			return false;
	}
	return true;
}

int uie_bloom_init(uint8_t *out, size_t cap, uint16_t hash_alg, uint8_t k, uint64_t epoch,
		   const uint64_t salt[2], uint32_t nbits)
{
	struct uie_wbuf w;

	if (!out || !salt)
		return UIE_E_INVAL;
	if (!uie_hash_len(hash_alg))
		return UIE_E_ALG;
	if (k < 1 || k > UIE_BLOOM_MAX_K || !nbits_ok(nbits))
		return UIE_E_LIMIT;
	if (cap < uie_bloom_encoded_len(nbits))
		return UIE_E_OVERFLOW;
	uie_wbuf_init(&w, out, cap);
	uie_wbuf_bytes(&w, UIE_BLOOM_MAGIC, 8);
	uie_wbuf_u16(&w, UIE_BLOOM_VERSION);
	uie_wbuf_u16(&w, hash_alg);
	uie_wbuf_u8(&w, k);
	uie_wbuf_zero(&w, 3);
	uie_wbuf_u64(&w, epoch);
	uie_wbuf_u64(&w, salt[0]);
	uie_wbuf_u64(&w, salt[1]);
	uie_wbuf_u32(&w, nbits);
	uie_wbuf_u32(&w, 0);
	uie_wbuf_zero(&w, nbits / 8);
	return w.err;
}

int uie_bloom_add(uint8_t *buf, size_t len, const uint8_t *digest, size_t dlen)
{
	struct uie_bloom b;
	uint64_t h1, h2;
	uint8_t *bits;
	int r;

	if ((r = uie_bloom_parse(buf, len, &b)) != UIE_OK)
		return r;
	if (!digest || dlen != uie_hash_len(b.hash_alg))
		return UIE_E_ALG;
	bits = buf + UIE_BLOOM_HDR_LEN; /* parse proved the layout */
	positions_seed(&b, digest, &h1, &h2);
	for (unsigned i = 0; i < b.k; i++) {
		uint64_t p = (h1 + (uint64_t)i * h2) % b.nbits;

		bits[p / 8] |= (uint8_t)(1u << (p % 8));
	}
	if (b.nitems != UINT32_MAX)
		uie_put_le32(buf + UIE_BLOOM_HDR_LEN - 4, b.nitems + 1);
	return UIE_OK;
}

int uie_bloom_check_policy(const struct uie_bloom *b, const struct uie_policy *pol, uint64_t epoch)
{
	size_t dlen;

	if (!b || !pol || !b->bits)
		return UIE_E_INVAL;
	if (pol->mode != UIE_MODE_ENFORCE || pol->default_action != UIE_DENY)
		return UIE_E_STATE;
	if (b->hash_alg != pol->hash_alg)
		return UIE_E_ALG;
	if (b->epoch != epoch)
		return UIE_E_EPOCH;
	dlen = uie_hash_len(pol->hash_alg);
	/* A loaded table's rules are rule_len bytes: event, role, action, 0, digest. */
	for (uint32_t i = 0; i < pol->nrules; i++) {
		const uint8_t *q = pol->rules + (size_t)i * pol->rule_len;

		if (q[2] == UIE_ALLOW && !uie_bloom_maybe_contains(b, q + pol->rule_len - dlen, dlen))
			return UIE_E_FORMAT;
	}
	return UIE_OK;
}
