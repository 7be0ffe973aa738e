/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The fs-verity digest of a file the monitor measures: for a file with
 * fs-verity the kernel checks every page read against a Merkle tree whose
 * root this digest names, so the digest names the content, whatever the
 * file's identity, and the content cannot change.  It keys the
 * measurement cache (cache.h) and makes the request IMMUTABLE.
 */
#ifndef UIE_MONITOR_VERITY_H
#define UIE_MONITOR_VERITY_H

#include <stdbool.h>
#include <stdint.h>

#define UIE_VERITY_MAX 64 /* FS_VERITY_MAX_DIGEST_SIZE */

struct uie_verity {
	uint16_t alg; /* FS_VERITY_HASH_ALG_*; 0: none */
	uint16_t len;
	uint8_t digest[UIE_VERITY_MAX];
};

/*
 * The digest of fd's file (FS_IOC_MEASURE_VERITY) when the VFS marks it a
 * verity file (statx STATX_ATTR_VERITY: only ext4, f2fs and btrfs set it;
 * a FUSE daemon can answer the ioctl but cannot set the flag); false
 * otherwise, with *v cleared.
 */
bool uie_verity_of(int fd, struct uie_verity *v);

#endif
