/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Policy module: the compiled policy table of docs/FORMATS.md section 2.
 * Loading validates a table in place (no copy, no allocation); the caller
 * keeps the bytes alive while the table is installed.  Lookup is pure:
 * deny rules, then allow rules, then the default action.
 */
#ifndef UIE_POLICY_H
#define UIE_POLICY_H

#include <stddef.h>
#include <stdint.h>

#include "uie/types.h"

#define UIE_POLICY_MAGIC "UIEPOLT1" /* 8 bytes */
#define UIE_POLICY_VERSION 2        /* 1: no SCRIPT role, ANON rules never consulted */
#define UIE_POLICY_MAX_RULES (1u << 22)

struct uie_policy {
	const uint8_t *rules; /* nrules entries of rule_len bytes, canonical order */
	uint32_t nrules;
	uint32_t rule_len;
	uint16_t hash_alg;
	uint8_t mode;           /* UIE_MODE_MEASURE or UIE_MODE_ENFORCE */
	uint8_t default_action; /* UIE_ALLOW or UIE_DENY */
	uint16_t flags;         /* UIE_POLICY_REQUIRE_IMMUTABLE */
	uint32_t trusted_fs;    /* bit k: files on file systems of kind k (enum uie_fs_kind) may be granted */
};

/* uie_policy.flags: every file granted must be an immutable source (UIE_COND_IMMUTABLE). */
#define UIE_POLICY_REQUIRE_IMMUTABLE 0x0001
#define UIE_POLICY_FLAGS_ALL UIE_POLICY_REQUIRE_IMMUTABLE
/* The trusted_fs bits a table may set: kinds 1 .. UIE_FS__MAX - 1. */
#define UIE_POLICY_FS_ALL (((1u << UIE_FS__MAX) - 1) & ~1u)

/* What a table says about the sources of the files it allows (docs/FORMATS.md 2.1). */
struct uie_policy_sources {
	uint16_t flags;
	uint32_t trusted_fs;
};

/* One rule in host form (used by encoders and tests). */
struct uie_policy_rule {
	uint8_t event;  /* enum uie_event */
	uint8_t role;   /* enum uie_role */
	uint8_t action; /* enum uie_decision */
	uint8_t digest[UIE_DIGEST_MAX];
};

/* Validates a table and fills *out (cleared first); references buf. */
int uie_policy_load(const void *buf, size_t len, struct uie_policy *out);

/* Decision and reason for (event, role, digest); digest has hash_alg length. */
void uie_policy_lookup(const struct uie_policy *pol, uint8_t event, uint8_t role, const uint8_t *digest,
		       uint8_t *decision, uint16_t *reason);

/* Bytes needed to encode a table of n rules with the given algorithm. */
size_t uie_policy_encoded_len(uint16_t hash_alg, uint32_t n);

/*
 * Encodes a table.  `rules` must already be in canonical order (see
 * uie_policy_rule_cmp); UIE_E_ORDER otherwise.
 */
int uie_policy_encode(uint8_t mode, uint8_t default_action, uint16_t hash_alg,
		      const struct uie_policy_rule *rules, uint32_t n, uint8_t *out, size_t cap,
		      size_t *outlen);

/* The same with what the table says about sources (src NULL: nothing, as uie_policy_encode). */
int uie_policy_encode_sources(uint8_t mode, uint8_t default_action, uint16_t hash_alg,
			      const struct uie_policy_sources *src, const struct uie_policy_rule *rules,
			      uint32_t n, uint8_t *out, size_t cap, size_t *outlen);

/* Canonical order of rules: digest, then event, then role, then action. */
int uie_policy_rule_cmp(const struct uie_policy_rule *a, const struct uie_policy_rule *b, size_t dlen);

#endif
