/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Measuring one file the way the monitor will (docs/FORMATS.md section 1)
 * and guessing the manifest role it would be asked about in: shared by
 * `uie ref scan` and `uie policy check`.  Hosted (tools only).
 */
#ifndef UIE_TOOLS_SCAN_H
#define UIE_TOOLS_SCAN_H

#include <stdbool.h>

#include "uie/platform.h"
#include "uie/types.h"

enum uie_scan_kind {
	UIE_SCAN_OBJECT = 0, /* *role and *d are set */
	UIE_SCAN_OTHER,      /* neither ELF nor an executable #! script: no entry */
	UIE_SCAN_UNUSABLE,   /* ELF without code, relocatable or malformed: counted as skipped */
};

/*
 * Measures the open regular file fd (named path, for the role guess):
 * ELF objects get their object digest, executable files that start with
 * "#!" their whole-file digest (role SCRIPT).  *kind says which;
 * returns UIE_OK or the I/O error reading it.  alg: the digest algorithm.
 */
int uie_scan_measure(const struct uie_platform *pl, uint16_t alg, int fd, const char *path,
		     enum uie_scan_kind *kind, const char **role, struct uie_digest *d);

#endif
