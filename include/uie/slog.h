/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Evidence module: the secure-log record LR = <EM, OC, ER, LRH> of
 * docs/FORMATS.md section 3, its canonical little-endian encoding,
 * LRH = SHA-256(EM || OC || ER) and the extend
 * vPCR16 <- SHA-256(vPCR16 || LRH).  Freestanding; no allocation.
 */
#ifndef UIE_SLOG_H
#define UIE_SLOG_H

#include <stddef.h>
#include <stdint.h>

#include "uie/platform.h"
#include "uie/types.h"

#define UIE_LOG_PCR_INDEX 16
#define UIE_LOG_HASH_ALG UIE_HASH_SHA256 /* LRH and the vPCR bank */
#define UIE_PCR_LEN UIE_SHA256_LEN

/* Log event types (EM.event_type): the exec events keep enum uie_event values. */
enum uie_log_event {
	UIE_LOG_EXECVE = UIE_EV_EXECVE,
	UIE_LOG_MMAP_EXEC = UIE_EV_MMAP_EXEC,
	UIE_LOG_MPROTECT_EXEC = UIE_EV_MPROTECT_EXEC,
	UIE_LOG_MONITOR_START = 16, /* first record after the monitor starts */
	UIE_LOG_POLICY_INSTALL = 17,
	UIE_LOG_POLICY_REJECT = 18,
	UIE_LOG_FASTPATH_REJECT = 19, /* guest Bloom-hint rejection reported after the fact */
	UIE_LOG_MONITOR_RESTART = 20, /* first record of a monitor that found a previous log */
	UIE_LOG_POLICY_RESTORE = 21,  /* the policy in force before the restart, re-checked */
	UIE_LOG_WRITE_VIOLATION = 22, /* the file of a live approved executable mapping was written */
	UIE_LOG_REPEAT_COUNT = 23,    /* first-seen mode: requests an earlier record stands for */
	UIE_LOG_SUBJECT = 24,         /* first-seen mode: the program the record before was for */
	UIE_LOG__MAX
};

struct uie_log_record {
	/* EM: event metadata */
	uint64_t seq;       /* record number, 0-based, dense */
	uint32_t pcr_index; /* always UIE_LOG_PCR_INDEX */
	uint16_t event_type;
	uint64_t epoch; /* active policy epoch (0 in bootstrap) */
	/* OC: object context */
	uint8_t role;
	uint32_t pid; /* requesting process as reported by the guest (audit only) */
	struct uie_file_id id;
	uint64_t vaddr, length, file_offset; /* executable range (audit) */
	struct uie_digest digest;
	/* ER: event result */
	uint8_t mode;
	uint8_t decision;
	uint16_t reason;
	uint8_t scope;
	/* LRH, filled by encode and checked by decode */
	uint8_t lrh[UIE_PCR_LEN];
};

/* Fixed sizes of the canonical encoding (see docs/FORMATS.md). */
#define UIE_LOG_EM_LEN 24
#define UIE_LOG_OC_LEN 120
#define UIE_LOG_ER_LEN 8
#define UIE_LOG_BODY_LEN (UIE_LOG_EM_LEN + UIE_LOG_OC_LEN + UIE_LOG_ER_LEN)
#define UIE_LOG_RECORD_LEN (UIE_LOG_BODY_LEN + UIE_PCR_LEN)

/*
 * Encodes rec (its lrh is ignored) into out, computes LRH over the body,
 * appends it, and copies it into rec->lrh.
 */
int uie_log_encode(const struct uie_platform *pl, struct uie_log_record *rec,
		   uint8_t out[UIE_LOG_RECORD_LEN]);

/*
 * Decodes one record, validating every field's range and reserved bytes.
 * Does not recompute LRH (replay does, so that divergence is reported
 * with its record number); clears *out first.
 */
int uie_log_decode(const uint8_t *p, size_t len, struct uie_log_record *out);

/* LRH over an encoded record's body (its first UIE_LOG_BODY_LEN bytes). */
int uie_log_lrh(const struct uie_platform *pl, const uint8_t *rec, uint8_t lrh[UIE_PCR_LEN]);

/* pcr <- SHA-256(pcr || lrh). */
int uie_pcr_extend(const struct uie_platform *pl, uint8_t pcr[UIE_PCR_LEN], const uint8_t lrh[UIE_PCR_LEN]);

/*
 * Replays n concatenated encoded records starting from pcr (all zero for a
 * log that starts at record 0): checks each record decodes, carries the
 * expected record number (first_seq + i) and a correct LRH, and extends.
 * On divergence returns UIE_E_REPLAY (or the decode error) and sets
 * *bad_seq to the record number where it happened.
 */
int uie_log_replay(const struct uie_platform *pl, const uint8_t *recs, size_t len, uint64_t first_seq,
		   uint8_t pcr[UIE_PCR_LEN], uint64_t *bad_seq);

#endif
