/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The fast-path hint (docs/FORMATS.md section 4, "Bloom hint"): a Bloom
 * filter over the object digests of a policy's ALLOW rules.  A query that
 * misses proves that no ALLOW rule names the digest, so under an ENFORCE
 * policy whose default is DENY the monitor would refuse the request; a
 * hit proves nothing.  The filter never grants anything.
 *
 * Parsing references the caller's bytes; building writes into a caller
 * buffer.  Freestanding; no allocation, no hashing through the platform
 * (bit positions are derived from the digest, which is already a
 * cryptographic hash, mixed with a per-hint salt).
 */
#ifndef UIE_CORE_BLOOM_H
#define UIE_CORE_BLOOM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "uie/policy.h"

#define UIE_BLOOM_MAGIC "UIEBLM01" /* 8 bytes */
#define UIE_BLOOM_VERSION 1
#define UIE_BLOOM_HDR_LEN 48
#define UIE_BLOOM_MAX_K 16
#define UIE_BLOOM_MIN_BITS 64u
#define UIE_BLOOM_MAX_BITS (1u << 31) /* 256 MiB of bits: above any package */
#define UIE_BLOOM_BITS_PER_ITEM 10u   /* with k = 7: about 0.8 % false positives */
#define UIE_BLOOM_K 7u

struct uie_bloom {
	uint16_t hash_alg; /* digest algorithm of the keys */
	uint8_t k;         /* bit positions per key, 1..UIE_BLOOM_MAX_K */
	uint64_t epoch;    /* epoch of the package that carries it */
	uint64_t salt[2];
	uint32_t nbits;      /* multiple of 64, UIE_BLOOM_MIN_BITS..UIE_BLOOM_MAX_BITS */
	uint32_t nitems;     /* keys inserted (informative) */
	const uint8_t *bits; /* nbits / 8 bytes */
};

/*
 * Validates an encoded hint and fills *out (cleared first), referencing buf.
 * Return: UIE_OK, UIE_E_INVAL, UIE_E_TRUNCATED, UIE_E_FORMAT (magic,
 * reserved, length or size not exact), UIE_E_VERSION, UIE_E_ALG, UIE_E_LIMIT.
 */
int uie_bloom_parse(const uint8_t *buf, size_t len, struct uie_bloom *out);

/*
 * False only when digest is certainly not in the filter (a definite miss).
 * Any doubt (NULL filter, digest of another length) answers true, so a
 * caller can only ever skip the monitor towards DENY.
 */
bool uie_bloom_maybe_contains(const struct uie_bloom *b, const uint8_t *digest, size_t dlen);

/*
 * Filter size for n keys at bits_per_key bits each (0: UIE_BLOOM_BITS_PER_ITEM):
 * *nbits (multiple of 64) and *k; 0 bits if the filter would be too large.
 */
void uie_bloom_params(uint32_t n, uint32_t bits_per_key, uint32_t *nbits, uint8_t *k);

/* Encoded length of a filter of nbits bits, or 0 when nbits is invalid. */
size_t uie_bloom_encoded_len(uint32_t nbits);

/*
 * Writes an empty filter (header and zero bits) into out[0..cap).
 * Return: UIE_OK, UIE_E_INVAL, UIE_E_ALG, UIE_E_LIMIT, UIE_E_OVERFLOW.
 */
int uie_bloom_init(uint8_t *out, size_t cap, uint16_t hash_alg, uint8_t k, uint64_t epoch,
		   const uint64_t salt[2], uint32_t nbits);

/*
 * Adds a digest to an encoded filter made by uie_bloom_init (its length is
 * len) and counts it.  Return: UIE_OK or the parse error, UIE_E_ALG when
 * dlen does not match the filter's algorithm.
 */
int uie_bloom_add(uint8_t *buf, size_t len, const uint8_t *digest, size_t dlen);

/*
 * Whether a valid filter may be published for an installed policy: the
 * policy is ENFORCE with default DENY (otherwise a miss proves nothing),
 * the algorithm and epoch match, and every ALLOW rule's digest is in the
 * filter.  Return: UIE_OK, UIE_E_STATE (mode or default), UIE_E_ALG,
 * UIE_E_EPOCH, UIE_E_FORMAT (an ALLOW digest is missing).
 */
int uie_bloom_check_policy(const struct uie_bloom *b, const struct uie_policy *pol, uint64_t epoch);

#endif
