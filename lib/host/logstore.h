/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The monitor's secure-log store: every encoded record the core emits,
 * with the vPCR16 value after it, in one growable array.  It is the
 * core's struct uie_log_sink: an append extends the vTPM's PCR 16 and
 * stores the record, or fails and changes nothing, in which case the core
 * denies the request (no silent loss, no unlogged grant).
 */
#ifndef UIE_HOST_LOGSTORE_H
#define UIE_HOST_LOGSTORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "uie/core.h"
#include "uie/platform.h"
#include "uie/slog.h"

struct uie_vtpm;
struct uie_logfile;
struct uie_firstseen;

struct uie_logstore {
	const struct uie_platform *pl;
	struct uie_vtpm *tpm;          /* borrowed; NULL keeps only the software chain */
	struct uie_logfile *file;      /* borrowed write-ahead file; NULL: memory only */
	struct uie_firstseen *fs;      /* owned first-seen table; NULL: every grant logged */
	uint8_t *recs;                 /* records [base, n) of UIE_LOG_RECORD_LEN bytes */
	uint8_t *pcrs;                 /* vPCR16 after each of them */
	uint64_t n, cap;               /* n: records logged in all; cap: room in memory */
	uint64_t base;                 /* checkpoint: records before it left memory */
	uint8_t base_pcr[UIE_PCR_LEN]; /* vPCR16 after base records */
	uint64_t max;                  /* records allowed in memory (memory bound) */
	bool broken;                   /* a vTPM extend failed: its PCR 16 is unknown */
	int tpm_err;                   /* the error that broke it */
	int file_err;                  /* the last append's file error (UIE_OK once one succeeds) */
	uint64_t repeats;              /* grants answered from the first-seen table */
	bool timed;                    /* add up the time of appends (uie-monitord --timing) */
	uint64_t file_ns, tpm_ns;      /* time spent writing the file and extending the vTPM */
};

/*
 * Sets up an empty store.  tpm may be NULL (tests of the store alone).
 * max bounds the number of records (0: UIE_LOGSTORE_DEFAULT_MAX).
 */
#define UIE_LOGSTORE_DEFAULT_MAX (64ull << 20)
void uie_logstore_init(struct uie_logstore *ls, const struct uie_platform *pl, struct uie_vtpm *tpm,
		       uint64_t max);
void uie_logstore_fini(struct uie_logstore *ls);

/* The sink to pass to uie_core_init. */
struct uie_log_sink uie_logstore_sink(struct uie_logstore *ls);

/*
 * Writes every later record to lf (borrowed) before it extends the vTPM
 * or is stored: a failed write fails the append (the core then denies).
 */
void uie_logstore_set_file(struct uie_logstore *ls, struct uie_logfile *lf);

/*
 * First-seen mode (docs/FORMATS.md 3.7): a grant or fast-path refusal whose
 * key (epoch, mode, event, role, digest, decision, reason, subject) was
 * logged before is counted, not logged again.  Call before
 * uie_logstore_sink: only a first-seen store's sink has `seen`.  At most max_keys keys (0: the
 * default); past that every record is logged.  Return: UIE_OK, UIE_E_NOMEM.
 */
#define UIE_FIRSTSEEN_DEFAULT_KEYS (1u << 20)
int uie_logstore_first_seen(struct uie_logstore *ls, uint32_t max_keys);

/* True in first-seen mode (uie_logstore_first_seen succeeded). */
bool uie_logstore_is_first_seen(const struct uie_logstore *ls);

/*
 * First-seen mode: calls emit(ctx, seq, count) for every key whose count
 * grew since its last emit (count: requests that record seq stands for so
 * far, itself included; only keys with repeats), in table order, and
 * remembers the count once emit returns UIE_OK.  emit may append to the
 * store (it logs a REPEAT_COUNT record).  Stops at emit's first error and
 * returns it; the keys not yet emitted stay due.  UIE_OK without the mode.
 */
int uie_logstore_flush_repeats(struct uie_logstore *ls, int (*emit)(void *ctx, uint64_t seq, uint64_t count),
			       void *ctx);

/*
 * Health of the store: UIE_OK, the vTPM error that broke it, or the error
 * of the last append to the file when it failed.
 */
int uie_logstore_health(const struct uie_logstore *ls);

/*
 * The sink's append (ctx is the store): checks that lrh is the record's
 * LRH, grows the arrays, extends the vTPM, then stores.  After a failed
 * vTPM extend every later append fails (the TPM's PCR 16 is unknown).
 * Return: UIE_OK, UIE_E_INVAL (lrh mismatch), UIE_E_NOMEM, UIE_E_LIMIT,
 * UIE_E_STATE (broken), or the vTPM's error.
 */
int uie_logstore_append(void *ctx, const uint8_t rec[UIE_LOG_RECORD_LEN], const uint8_t lrh[UIE_PCR_LEN]);

/*
 * vPCR16 after the first seq records (all zero for seq 0), the pcr_at of
 * uie_package_install.  Return: UIE_OK, UIE_E_RANGE (seq > count, or
 * before the checkpoint).
 */
int uie_logstore_pcr_at(void *ctx, uint64_t seq, uint8_t pcr[UIE_PCR_LEN]);

/*
 * Records [first, count) as one contiguous byte range; *n receives their
 * number (0 and NULL when first is before the checkpoint or past the end).
 */
const uint8_t *uie_logstore_records(const struct uie_logstore *ls, uint64_t first, uint64_t *n);

/*
 * Checkpoint (docs/FORMATS.md 3.8): drops records before seq from memory
 * once a verifier acknowledged them with the vPCR16 after them.
 * Return: UIE_OK, UIE_E_RANGE (seq past the end or before the current
 * checkpoint), UIE_E_BINDING (pcr is not vPCR16 after seq records).
 */
int uie_logstore_checkpoint(struct uie_logstore *ls, uint64_t seq, const uint8_t pcr[UIE_PCR_LEN]);

uint64_t uie_logstore_count(const struct uie_logstore *ls);

#endif
