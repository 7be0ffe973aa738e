/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The small interface through which the freestanding core reaches crypto,
 * time and object bytes.  lib/host/ provides the hosted implementation
 * (OpenSSL 3 libcrypto, clock_gettime, pread/mmap); a firmware-like host
 * (an SVSM) would provide its own.
 */
#ifndef UIE_PLATFORM_H
#define UIE_PLATFORM_H

#include <stddef.h>
#include <stdint.h>

#include "uie/types.h"

/*
 * Streaming hash.  The core never allocates: the context lives in storage
 * the platform owns; `hash_begin` hands out one that stays valid until
 * `hash_end`, which always releases it (also when `out` is NULL, to abort).
 */
struct uie_hash_ops {
	int (*begin)(void *pctx, uint16_t alg, void **h);
	int (*update)(void *pctx, void *h, const void *p, size_t n);
	/* Writes uie_hash_len(alg) bytes to out (unless NULL) and releases h. */
	int (*end)(void *pctx, void *h, uint8_t *out);
};

struct uie_platform {
	void *ctx;
	struct uie_hash_ops hash;
	/* Monotonic nanoseconds; may be NULL. */
	uint64_t (*now_ns)(void *ctx);
	/*
	 * Verifies an ECDSA signature (DER) over a message digest with the
	 * policy-signing public key identified by key_id (SHA-256 of its
	 * DER SubjectPublicKeyInfo).  UIE_OK, UIE_E_KEY (unknown key) or
	 * UIE_E_SIGNATURE.  May be NULL on hosts that never install policy.
	 */
	int (*verify)(void *ctx, const uint8_t key_id[32], const uint8_t *digest, size_t dlen,
		      const uint8_t *sig, size_t siglen);
};

/*
 * An object to measure.  `size` is the size the core may read.  When `map`
 * is not NULL it points to all `size` bytes (a read-only mapping) and the
 * core hashes from it directly; otherwise it calls `read`, which must fill
 * exactly `len` bytes or fail with UIE_E_IO.
 */
struct uie_object {
	void *ctx;
	uint64_t size;
	const uint8_t *map;
	int (*read)(void *ctx, uint64_t off, void *buf, size_t len);
};

/* One-shot hash through the platform: out receives uie_hash_len(alg) bytes. */
int uie_hash_buf(const struct uie_platform *pl, uint16_t alg, const void *p, size_t n, uint8_t *out);

/* Reads [off, off+len) of obj into buf, bounds-checked against obj->size. */
int uie_object_read(const struct uie_object *obj, uint64_t off, void *buf, size_t len);

#endif
