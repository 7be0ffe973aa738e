/* SPDX-License-Identifier: Apache-2.0 */
/* Execute permission over a range of one mapping (mapping.c), for mprotect and mremap. */
#ifndef UIE_GUEST_MAPPING_H
#define UIE_GUEST_MAPPING_H

#include <stdbool.h>
#include <stdint.h>

#include "maps.h"
#include "tmem.h"

/*
 * What becomes executable: length bytes of the mapping from lo on (more
 * than hi - lo when the mapping grows; the request names lo as its
 * address).  [lo, hi) holds the mapping's present pages, checked for
 * copies a write made (execmod); writable: asked writable too.
 */
struct uie_exec_range {
	uint64_t lo, hi, length;
	bool writable;
};

struct uie_sup;
/*
 * Asks the monitor about execute permission over x of mapping m of the
 * caller: role ANON for memory without a file (a JIT rule decides), else
 * the mapped file's bytes at m's offset of lo (the object digest only when
 * the monitor finds every byte inside the file's executable segments).
 * True only for an ALLOW; a diagnostic on stderr otherwise.
 */
bool uie_guest_grant_range(struct uie_sup *s, const struct uie_call *c, const struct uie_map *m,
			   const struct uie_exec_range *x);

#endif
