/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The verifier of exported evidence (paper section 4.3, SR5) as a library:
 * `uie verify` and the tests call uie_verify_ae.  Checks run in a fixed
 * order and the first failing one decides the result class, which is
 * also the exit code of `uie verify`.
 */
#ifndef UIE_VERIFY_H
#define UIE_VERIFY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "uie/platform.h"
#include "uie/policy.h"
#include "uie/slog.h"

/*
 * Result classes; the values are `uie verify` exit codes.  Checks run in
 * this order except that continuity comes before replay.
 */
enum uie_verify_class {
	UIE_V_OK = 0,
	UIE_V_PARSE = 10,      /* AE, TPMS_ATTEST or TPMT_SIGNATURE malformed */
	UIE_V_SIGNATURE = 11,  /* quote not signed by the given attestation key */
	UIE_V_QUOTE = 12,      /* not a TPM-generated quote (magic, type) */
	UIE_V_NONCE = 13,      /* extraData or AE nonce differs from ours: stale or replayed */
	UIE_V_PCR_SELECT = 14, /* selection is not exactly sha256:16 */
	UIE_V_PCR_DIGEST = 15, /* pcrDigest != SHA-256(AE vPCR16) */
	UIE_V_REPLAY = 16,     /* the log does not replay to the quoted vPCR16 */
	UIE_V_CONTINUITY = 17, /* incremental export does not continue what we verified */
	UIE_V_METADATA = 18,   /* policy metadata PM disagrees with the log */
	UIE_V_REFERENCE = 19,  /* an executed digest is absent from the reference values */
	UIE_V_POLICY = 20,     /* a recorded decision is not what the policy decides */
	UIE_V_CLOCK = 21,      /* clock not safe, or reset/restart/clock went back */
	UIE_V_VIOLATION = 22,  /* the log records a write to an approved executable mapping */
	UIE_V_INTERNAL = 1,    /* the verifier itself failed (memory, crypto) */
};

/* Short name of a class ("replay", ...). */
const char *uie_verify_class_name(int cls);

/* Reference values: digests the TTP endorses. */
struct uie_refset {
	struct uie_digest *v; /* sorted by (alg, bytes); owned */
	size_t n, cap;
};

/*
 * Parses a reference manifest: one entry per line, either the text form of
 * `uie ref scan` ("role=R digest=ALG:HEX path=P") or "ALG:HEX [anything]";
 * ALG sha256 or sha384; blank lines and lines starting with '#' are
 * skipped.  On error *line is the 1-based line at fault.
 * Return: UIE_OK, UIE_E_FORMAT, UIE_E_ALG, UIE_E_NOMEM.
 */
int uie_refset_parse(const char *text, size_t len, struct uie_refset *out, size_t *line);
void uie_refset_fini(struct uie_refset *s);
bool uie_refset_has(const struct uie_refset *s, const struct uie_digest *d);

/* A policy the verifier knows, with the epoch it was installed at. */
struct uie_verify_policy {
	uint64_t epoch;
	uint8_t package_hash[32];
	struct uie_policy table; /* loaded with uie_policy_load */
};

/* What a verifier remembers between exports of the same monitor. */
struct uie_verify_state {
	bool valid;
	uint64_t clock;
	uint32_t reset_count, restart_count;
	uint64_t next_seq;        /* records verified so far */
	uint8_t pcr[UIE_PCR_LEN]; /* vPCR16 after them */
	uint64_t epoch;
	uint8_t mode;
	uint8_t policy_id[32];
};

struct uie_verify_input {
	const uint8_t *ae;
	size_t ae_len;
	const uint8_t *nonce; /* the nonce we sent */
	size_t nonce_len;
	const uint8_t *ak_der; /* attestation key, DER SubjectPublicKeyInfo */
	size_t ak_der_len;
	const struct uie_refset *ref;         /* NULL: reference check skipped */
	const struct uie_verify_policy *pols; /* decisions of other epochs stay unchecked */
	size_t npols;
	const struct uie_verify_state *prev; /* NULL or !valid: first contact */
};

struct uie_verify_report {
	int cls; /* enum uie_verify_class */
	char reason[256];
	bool has_seq;
	uint64_t seq; /* first record at fault */
	/* What the evidence says (valid from the parse on). */
	uint64_t first_seq, nrecords;
	uint8_t vpcr[UIE_PCR_LEN];
	uint8_t mode;
	uint64_t epoch;
	uint64_t clock;
	uint32_t reset_count, restart_count;
	uint8_t safe;
	/* Counters of the log walk. */
	uint64_t exec_records;
	uint64_t ref_checked, unknown_denied;
	uint64_t decisions_checked, decisions_unchecked;
	/*
	 * Grants refused as execmod (copied pages), as unsealable files, from
	 * untrusted file systems and as mutable sources, and the first of each.
	 */
	uint64_t execmod_records, execmod_first, unsealed_records, unsealed_first;
	uint64_t remote_fs_records, remote_fs_first, mutable_records, mutable_first;
	/* REPEAT_COUNT records; those naming a record before this evidence. */
	uint64_t repeat_records, repeat_unresolved;
	/* Bit i (i < 64): a record of the evidence is of in->pols[i]'s epoch (it was used). */
	uint64_t pols_seen;
	/* SUBJECT records; those naming an EXECVE record before this evidence. */
	uint64_t subject_records, subject_unresolved;
	/* Record 0 was MONITOR_RESTART: the end of the previous run's log it names. */
	bool restarted;
	uint64_t prev_boot, prev_records;
	uint8_t prev_pcr[UIE_PCR_LEN];
	/* On UIE_V_OK: what to remember for the next export. */
	struct uie_verify_state next;
};

/*
 * Runs every check; returns the class (UIE_V_OK when the evidence is
 * accepted) and fills *rep (cleared first) with the reason and counters.
 */
int uie_verify_ae(const struct uie_platform *pl, const struct uie_verify_input *in,
		  struct uie_verify_report *rep);

/* State file (JSON) load and atomic save.  A missing file loads as !valid. */
int uie_verify_state_load(const char *path, struct uie_verify_state *st);
int uie_verify_state_save(const char *path, const struct uie_verify_state *st);

/*
 * Internal (verify_log.c): one pass over the records that replays them
 * (decode, record number, LRH, extend: what uie_log_replay does) to the
 * quoted vPCR16 and meanwhile checks PM against the log, executed digests
 * against the reference values and recorded decisions against the
 * policies; returns the class like uie_verify_ae.
 */
struct uie_ae;
/* When on: vPCR16 after `seq` records must be `pcr` (what we verified before). */
struct uie_verify_checkpoint {
	bool on;
	uint64_t seq;
	uint8_t pcr[UIE_PCR_LEN];
};
int uie_verify_log_walk(const struct uie_platform *pl, const struct uie_verify_input *in,
			const struct uie_ae *ae, const struct uie_verify_checkpoint *cp,
			struct uie_verify_report *rep);

#endif
