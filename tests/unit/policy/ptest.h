/* SPDX-License-Identifier: Apache-2.0 */
/* Fixtures of the policy unit tests: a real core over an in-memory log, keys, packages. */
#ifndef UIE_TEST_POLICY_PTEST_H
#define UIE_TEST_POLICY_PTEST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <openssl/evp.h>

#include "uie/core.h"
#include "uie/package.h"

#include "host_platform.h"

#define PT_MAX_RECS 256

/* A core whose sink keeps every record and the vPCR16 after each prefix. */
struct pt_core {
	struct uie_host_platform hp;
	struct uie_core core;
	uint8_t recs[PT_MAX_RECS][UIE_LOG_RECORD_LEN];
	uint8_t pcr[PT_MAX_RECS + 1][UIE_PCR_LEN]; /* pcr[i]: after i records */
	size_t n;
};

/* Sets up the platform and a bootstrap core (one MONITOR_START record). */
void pt_core_init(struct pt_core *pc);
void pt_core_fini(struct pt_core *pc);

/* The pcr_at callback of uie_package_install over a pt_core. */
int pt_pcr_at(void *ctx, uint64_t seq, uint8_t pcr[UIE_PCR_LEN]);

/* Logs one bootstrap EXECVE decision so the log grows. */
void pt_core_event(struct pt_core *pc, uint8_t fill);

/* A fresh P-256 key; when trust is set, the platform of pc trusts it. */
EVP_PKEY *pt_key(struct pt_core *pc, bool trust);

/* A table: n ALLOW rules for EXECVE/MAIN on digests d[0..n) (sha256), optional extra DENY. */
size_t pt_table(uint8_t *out, size_t cap, uint8_t mode, uint8_t def, const uint8_t (*d)[32], uint32_t n);

/* Encodes p (version, algs, table... as given), signs with key, returns malloc'ed bytes. */
uint8_t *pt_sign(EVP_PKEY *key, struct uie_package *p, size_t *len);

/* A package of table bound to the current end of pc's log, epoch given; malloc'ed. */
uint8_t *pt_package(struct pt_core *pc, EVP_PKEY *key, const uint8_t *table, size_t tlen, uint64_t epoch,
		    bool hint, size_t *len);

/* The core fields a rejection must not change. */
struct pt_snap {
	uint8_t mode;
	bool have_policy;
	uint64_t epoch, next_seq;
	struct uie_policy policy;
	uint8_t policy_id[UIE_SHA256_LEN];
	uint8_t vpcr[UIE_PCR_LEN];
};
void pt_snap(const struct pt_core *pc, struct pt_snap *s);

/*
 * Asserts that exactly one POLICY_REJECT record carrying err was appended
 * since s, and that nothing else changed (vPCR16 moved by that record only).
 */
void pt_assert_rejected(const struct pt_core *pc, const struct pt_snap *s, int err);

#endif
