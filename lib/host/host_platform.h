/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The hosted platform: OpenSSL 3 libcrypto for hashes and signatures,
 * clock_gettime for time, and objects read through file descriptors.
 */
#ifndef UIE_HOST_PLATFORM_H
#define UIE_HOST_PLATFORM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "host_object.h"
#include "uie/platform.h"

#define UIE_HOST_HASH_SLOTS 4
#define UIE_HOST_MAX_KEYS 8

struct uie_host_platform {
	struct uie_platform pl;
	void *hash_slot[UIE_HOST_HASH_SLOTS]; /* EVP_MD_CTX *, owned */
	void *md_sha256, *md_sha384;          /* EVP_MD *, fetched once, owned */
	unsigned char slot_busy[UIE_HOST_HASH_SLOTS];
	void *keys[UIE_HOST_MAX_KEYS]; /* EVP_PKEY *, owned */
	uint8_t key_ids[UIE_HOST_MAX_KEYS][32];
	unsigned nkeys;
};

/* Sets up hp->pl; uie_host_platform_fini releases everything. */
int uie_host_platform_init(struct uie_host_platform *hp);
void uie_host_platform_fini(struct uie_host_platform *hp);

/*
 * Trusts a policy-signing public key (PEM or DER SubjectPublicKeyInfo
 * file); its key id (SHA-256 of the DER) is written to key_id if not NULL.
 */
int uie_host_platform_add_key_file(struct uie_host_platform *hp, const char *path, uint8_t key_id[32]);

#endif
