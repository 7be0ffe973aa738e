/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Measurement cache of the monitor: digests keyed by the full file
 * identity (dev, ino, size, mtime, ctime), the digest algorithm and the
 * class of the requested range.  An unchanged file is hashed once; any
 * write, truncation, chmod, rename or xattr change moves ctime (which user
 * space cannot set), so the key no longer matches and the file is measured
 * again.  A file with fs-verity is keyed by its fs-verity digest instead
 * (and its size): that names its content, which cannot change, so every
 * copy of it hits.  Bounded: UIE_CACHE_SETS x UIE_CACHE_WAYS entries, least
 * recently used way evicted.
 */
#ifndef UIE_MONITOR_CACHE_H
#define UIE_MONITOR_CACHE_H

#include <stdbool.h>
#include <stdint.h>

#include "uie/types.h"
#include "verity.h"

#define UIE_CACHE_SETS 1024
#define UIE_CACHE_WAYS 4

/*
 * The range class: uie_core_measure digests the whole object for EXECVE,
 * and the requested [off, off+len) for MMAP/MPROTECT (object digest when
 * the range lies in the ELF's executable segments, range digest otherwise),
 * so EXECVE keys carry off = len = 0 and the others their exact range.
 */
struct uie_cache_key {
	struct uie_file_id id; /* only its size when verity.alg is set */
	struct uie_verity verity;
	uint16_t alg;
	bool whole; /* EXECVE */
	uint64_t off, len;
};

struct uie_cache_entry {
	struct uie_cache_key key;
	struct uie_digest digest;
	uint8_t scope;
	bool used;
	uint64_t stamp; /* last use, for LRU within the set */
};

struct uie_cache {
	struct uie_cache_entry set[UIE_CACHE_SETS][UIE_CACHE_WAYS];
	uint64_t tick;
	uint64_t hits, misses;
};

/* Builds the key of a request (event, range) on a file of identity id. */
void uie_cache_key_make(struct uie_cache_key *k, const struct uie_file_id *id, uint16_t alg, uint16_t event,
			uint64_t off, uint64_t len);

/* Keys k by the file's fs-verity digest v instead of its identity. */
void uie_cache_key_verity(struct uie_cache_key *k, const struct uie_verity *v);

void uie_cache_init(struct uie_cache *c);

/* True on a hit, with the cached digest and scope copied out. */
bool uie_cache_get(struct uie_cache *c, const struct uie_cache_key *k, struct uie_digest *digest,
		   uint8_t *scope);

/* Stores a successful measurement, evicting the set's least recently used entry. */
void uie_cache_put(struct uie_cache *c, const struct uie_cache_key *k, const struct uie_digest *digest,
		   uint8_t scope);

#endif
