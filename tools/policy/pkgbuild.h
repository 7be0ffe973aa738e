/* SPDX-License-Identifier: Apache-2.0 */
/* Building signed packages and their Bloom hints (the TTP side). */
#ifndef UIE_TOOLS_PKGBUILD_H
#define UIE_TOOLS_PKGBUILD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <openssl/evp.h>

#include "uie/policy.h"
#include "uie/slog.h"

struct pkg_params {
	uint64_t epoch;
	uint64_t bind_seq;
	uint8_t bind_pcr[UIE_PCR_LEN];
	bool hint;          /* add the Bloom hint of the table's ALLOW digests */
	uint32_t hint_bits; /* bits per ALLOW digest in the hint (0: the default) */
};

/*
 * The Bloom hint of a loaded table for a package of the given epoch, with a
 * random salt and bits_per_key bits per ALLOW digest (0: the default);
 * *out is malloc'ed (caller frees).  UIE_E_STATE when the table is not
 * ENFORCE with default DENY (a miss would prove nothing).
 */
int pkg_hint_alloc(const struct uie_policy *pol, uint64_t epoch, uint32_t bits_per_key, uint8_t **out,
		   size_t *len);

/* Signs table into a package (docs/FORMATS.md section 4); *out malloc'ed (caller frees). */
int pkg_build_alloc(EVP_PKEY *key, const uint8_t *table, size_t tlen, const struct pkg_params *pp,
		    uint8_t **out, size_t *len);

#endif
