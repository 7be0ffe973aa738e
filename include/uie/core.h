/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The monitor core: Policy, Measurement, Decision and Evidence modules of
 * the paper's UIE-Monitor as one state object.  The host allocates it,
 * feeds it requests and objects, and stores the log records it emits.
 * No I/O, no allocation, no globals on the request path.
 */
#ifndef UIE_CORE_H
#define UIE_CORE_H

#include <stdbool.h>
#include <stdint.h>

#include "uie/platform.h"
#include "uie/policy.h"
#include "uie/slog.h"
#include "uie/types.h"

/*
 * Where records go.  `append` must make the record durable in the host's
 * log store and extend the vTPM's PCR 16 with lrh before it returns UIE_OK;
 * on failure the core denies the request (no unlogged grant) and its own
 * state (sequence number, vPCR mirror) does not advance.
 */
struct uie_log_sink {
	void *ctx;
	int (*append)(void *ctx, const uint8_t rec[UIE_LOG_RECORD_LEN], const uint8_t lrh[UIE_PCR_LEN]);
	/*
	 * Optional, the first-seen mode (docs/FORMATS.md 3.7): true when a
	 * record with the same key as rec was logged before; *seq then names
	 * it and the core logs nothing.  Asked only for exec decisions and
	 * fast-path reports, right before their append.  subject (NULL: none)
	 * is part of the key; when it is given and the record is new, the core
	 * appends the record and then its SUBJECT record, and the key counts
	 * as logged only once both are in.
	 */
	bool (*seen)(void *ctx, const struct uie_log_record *rec, const struct uie_digest *subject,
		     uint64_t *seq);
};

struct uie_core {
	const struct uie_platform *pl;
	struct uie_log_sink sink;
	uint16_t obj_alg;          /* object digest algorithm while no policy is installed */
	uint8_t vpcr[UIE_PCR_LEN]; /* running value of vPCR[16], mirrors the vTPM */
	uint64_t next_seq;
	uint8_t mode; /* enum uie_mode */
	bool have_policy;
	uint64_t epoch;
	struct uie_policy policy;
	uint8_t policy_id[UIE_SHA256_LEN]; /* hash of the installed package */
};

/* A normalized request from the guest (paper section 4.2.2). */
struct uie_req {
	uint16_t event; /* enum uie_event */
	uint8_t role;   /* enum uie_role */
	uint32_t pid;
	struct uie_file_id id;
	uint64_t vaddr, length, file_offset;
	/*
	 * The program the request is made for (first-seen mode only, docs/
	 * FORMATS.md 3.7): the number of the EXECVE record that granted it and
	 * its object digest, as the host resolved them.  subject.alg 0: none.
	 */
	uint64_t subject_seq;
	struct uie_digest subject;
	/*
	 * What the guest found about the object's pages and file (UIE_COND_*,
	 * files only): a grant the policy allows is still denied with reason
	 * EXECMOD, UNSEALED or MUTABLE (docs/FORMATS.md 3.4).
	 */
	uint8_t cond;
	/* The kind of file system the file is on (enum uie_fs_kind, files only): REMOTE_FS */
	uint8_t fs;
};

/* uie_req.cond */
/*
 * mmap/mprotect: a page of the range is a private copy a write made, or the
 * request asks for write and execute together (the pages could change)
 */
#define UIE_COND_EXECMOD 0x01
#define UIE_COND_UNSEALED 0x02 /* the file cannot be sealed against writes (no lease) */
/*
 * The file cannot change: fs-verity, a memfd sealed against writes, or a
 * local file system mounted read-only that the tree cannot remount
 */
#define UIE_COND_IMMUTABLE 0x04
#define UIE_COND_ALL (UIE_COND_EXECMOD | UIE_COND_UNSEALED | UIE_COND_IMMUTABLE)

struct uie_verdict {
	uint8_t decision;        /* what the guest must apply */
	uint8_t policy_decision; /* what the policy said (differs in MEASURE) */
	uint16_t reason;
	uint8_t scope;
	struct uie_digest digest;
	uint64_t seq; /* number of the record that logged it */
};

/*
 * Initializes the core in bootstrap mode and logs a MONITOR_START record.
 */
int uie_core_init(struct uie_core *c, const struct uie_platform *pl, const struct uie_log_sink *sink,
		  uint16_t obj_alg);

/* The end of the log a previous run of the monitor left (docs/FORMATS.md 3.6). */
struct uie_core_prev {
	uint64_t boot;            /* its boot number */
	uint64_t nrecords;        /* its number of records */
	uint8_t pcr[UIE_PCR_LEN]; /* vPCR16 after its last record */
};

/*
 * Like uie_core_init, but the first record is MONITOR_RESTART naming the
 * previous log's end (digest: its last vPCR16, scope CHAIN; vaddr: its
 * boot number; file_offset: its record count).
 */
int uie_core_init_restart(struct uie_core *c, const struct uie_platform *pl, const struct uie_log_sink *sink,
			  uint16_t obj_alg, const struct uie_core_prev *prev);

/*
 * Puts back the policy that was in force when the previous run stopped
 * (its package re-checked by uie_package_restore) and logs POLICY_RESTORE.
 * Only as the second record of a restarted core (UIE_E_STATE otherwise).
 */
int uie_core_restore(struct uie_core *c, const uint8_t *table, size_t len, uint64_t epoch,
		     const uint8_t package_hash[UIE_SHA256_LEN]);

/*
 * The fields of a request agree (docs/FORMATS.md 3.4): a known event and
 * role; conditions and file system kinds only for files; EXECMOD only for
 * mmap and mprotect.  The core and the bridge codec both check with it.
 */
bool uie_req_valid(const struct uie_req *req);

/* Digest algorithm requests are measured with now (policy's, or bootstrap's). */
uint16_t uie_core_obj_alg(const struct uie_core *c);

/*
 * Measures obj for req with uie_core_obj_alg(c).  An object that starts
 * with the ELF magic must parse as ELF (else the parse error): it gets the
 * object digest (scope ELF) for EXECVE, and for MMAP/MPROTECT when
 * [file_offset, file_offset+length) lies in its executable ranges
 * (uie_elf_covers), or for MMAP when it is the loader's first mapping of
 * an object whose first segment is executable (uie_elf_is_reservation);
 * otherwise the range digest of that range (scope
 * RANGE).  Any other object gets the range digest of that range, or of the
 * whole file for EXECVE (a script).  Role SCRIPT needs EXECVE and a
 * non-ELF object; role ANON (anonymous memory going executable) names the
 * process's main program as obj, which must be ELF and gets its object
 * digest; else UIE_E_FORMAT.  Pure
 * with respect to core state (the host may cache the result by file
 * identity and algorithm).
 */
int uie_core_measure(const struct uie_core *c, const struct uie_req *req, const struct uie_object *obj,
		     struct uie_digest *digest, uint8_t *scope);

/*
 * uie_core_measure with the platform and digest algorithm given, not a
 * core's: what a measurement thread needs, and all it may read.
 */
int uie_measure_object(const struct uie_platform *pl, uint16_t alg, const struct uie_req *req,
		       const struct uie_object *obj, struct uie_digest *digest, uint8_t *scope);

/*
 * Decides a measured request, logs it and returns the verdict.
 * `measure_err` is the result of measuring (UIE_OK, or the error which
 * makes the policy result DENY with reason MEASURE_FAIL); anonymous and
 * fileless requests pass scope UIE_SCOPE_NONE and a NULL digest (policy
 * result DENY, reason ANON_EXEC for role ANON, FILELESS otherwise).  Role
 * ANON with its program's digest is allowed only by an ALLOW rule for
 * (event, ANON, that digest); anything else is DENY, ANON_EXEC.
 * Bootstrap: policy result ALLOW, reason BOOTSTRAP, for measured requests.
 * The record's decision is the policy result; out->decision equals it in
 * ENFORCE and is ALLOW in BOOTSTRAP and MEASURE (docs/FORMATS.md 3.4).
 * Never returns ALLOW with an error: on any error *out says DENY, and a
 * failing sink leaves the core unchanged (its error is returned).
 * First-seen mode (the sink has `seen`) with req->subject: the key holds
 * the subject, and a new record is followed by a SUBJECT record (record
 * number of the grant in file_offset, subject_seq in vaddr, the subject's
 * digest with scope ELF); if that append fails the request is denied with
 * its error and the grant's record stands without a subject.  Without
 * the mode the subject is ignored.  A subject must be a valid digest
 * naming an earlier record (subject_seq in 1 .. next_seq - 1), else
 * UIE_E_INVAL.
 */
int uie_core_decide(struct uie_core *c, const struct uie_req *req, int measure_err,
		    const struct uie_digest *digest, uint8_t scope, struct uie_verdict *out);

/*
 * Logs a guest fast-path rejection report (reason FASTPATH_MISS, decision
 * DENY).  digest may be NULL; when given, the record's scope is RANGE for
 * roles FILE and SCRIPT and ELF otherwise.
 */
int uie_core_log_fastpath(struct uie_core *c, const struct uie_req *req, const struct uie_digest *digest);

/*
 * Logs a write violation (docs/FORMATS.md 3.5): the file of a live
 * approved executable mapping was written, by process pid (0: unknown).
 * id is the file as the monitor found it after the write; digest (may be
 * NULL, then scope must be UIE_SCOPE_NONE) its measurement with scope ELF
 * or RANGE.  Decision DENY, reason WRITE_VIOLATION, role NONE.
 * *seq receives the record number.  Return: UIE_OK, UIE_E_INVAL, the sink's error.
 */
int uie_core_log_violation(struct uie_core *c, uint32_t pid, const struct uie_file_id *id,
			   const struct uie_digest *digest, uint8_t scope, uint64_t *seq);

/*
 * Logs a REPEAT_COUNT record (docs/FORMATS.md 3.7): the record number
 * first_seq, logged earlier in this run in first-seen mode, stands for
 * count >= 2 requests so far (itself included).  `file_offset` = first_seq,
 * `length` = count; role NONE, no digest, decision ALLOW, reason
 * REPEAT_COUNT.  first_seq must be an earlier record.  *seq receives the
 * record number.  Return: UIE_OK, UIE_E_INVAL, the sink's error.
 */
int uie_core_log_repeat(struct uie_core *c, uint64_t first_seq, uint64_t count, uint64_t *seq);

/*
 * Swaps in an already authenticated policy table (see package.h for the
 * checks that must precede it) and logs POLICY_INSTALL.  The table bytes
 * must outlive the installation.  epoch must be greater than the current.
 */
int uie_core_install(struct uie_core *c, const uint8_t *table, size_t len, uint64_t epoch,
		     const uint8_t package_hash[UIE_SHA256_LEN]);

/*
 * Logs a rejected package with the error that rejected it (a negative
 * uie_err; recorded as its magnitude in OC.pid, the claimed epoch in
 * OC.file_offset); nothing else changes.
 */
int uie_core_log_reject(struct uie_core *c, uint64_t epoch, const uint8_t package_hash[UIE_SHA256_LEN],
			int err);

#endif
