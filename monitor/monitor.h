/* SPDX-License-Identifier: Apache-2.0 */
/*
 * State of uie-monitord and its request handling, independent of sockets:
 * uie_mon_serve, the one door, turns one received message (and
 * descriptor) into one answer (or a job answered later), so the unit tests
 * drive exactly what the daemon runs.
 */
#ifndef UIE_MONITOR_H
#define UIE_MONITOR_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "cache.h"
#include "denylog.h"
#include "genpage.h"
#include "logstore.h"
#include "measurement.h"
#include "timing.h"
#include "uie/core.h"
#include "wire.h"

struct uie_vtpm;
struct uie_workers;
struct uie_job;
struct uie_export_job;

/*
 * Per-request limits (uie-monitord options; docs/DESIGN.md "Fair service").
 * Zero means no limit.
 */
struct uie_mon_limits {
	uint64_t max_object;  /* bytes of one measured object (--max-object-size) */
	uint32_t max_hash_ms; /* measuring time of one request (--max-hash-ms) */
	uint32_t quota;       /* records a client may cause per second (--client-quota) */
};

#define UIE_MON_DEFAULT_MAX_OBJECT (512ull << 20)
#define UIE_MON_DEFAULT_MAX_HASH_MS 2000u
#define UIE_MON_DEFAULT_QUOTA 100000u

/*
 * One connection's quota: a token bucket holding at most one second of
 * records, refilled at `quota` per second.
 */
struct uie_mon_subjects;
struct uie_mon_client {
	uint64_t tokens;
	uint64_t refilled_ms;
	/* first-seen mode: programs this connection may name as subjects (owned, NULL: none yet) */
	struct uie_mon_subjects *subjects;
};
struct uie_mon_state;

struct uie_vmram;
struct uie_mon_snp;

struct uie_monitor {
	const struct uie_platform *pl;
	struct uie_vtpm *tpm; /* borrowed; NULL: export and pubkey fail */
	struct uie_logstore log;
	struct uie_core core;
	struct uie_cache *cache; /* owned */
	uint8_t *pkg;            /* installed package bytes (the policy table points in) */
	size_t pkg_len;
	int hint_fd; /* sealed memfd of the installed package's hint, or -1 */
	uint64_t hint_len, hint_epoch;
	struct uie_genpage gen; /* policy generation page: the epoch in force (fd -1: none) */
	FILE *diag;             /* diagnostics, may be NULL */
	struct uie_mon_limits limits;
	struct uie_workers *workers;      /* measurement threads (borrowed), NULL: measure in the loop */
	struct uie_mon_state *state;      /* owned state directory; NULL: memory only */
	uint64_t boot;                    /* run number over the state directory (1 without) */
	uint8_t boot_id[UIE_BOOT_ID_LEN]; /* random per run, told to clients */
	/* VM mode: the guest's RAM (borrowed).  Objects are then named by frames, never by fd. */
	const struct uie_vmram *ram;
	struct uie_denylog *denylog;   /* borrowed; NULL: denials go to the secure log only */
	unsigned trust_keys;           /* policy-signing keys trusted; 0: bootstrap for good */
	struct uie_mon_timing *timing; /* --timing (borrowed), NULL: off */
	const struct uie_mon_snp *snp; /* --snp-sim: stands for the SVSM's attestation (borrowed) */
};

/*
 * When write-ahead records are synced to the device (docs/FORMATS.md 3.6).
 * Every record is written before its answer in all modes.
 */
enum uie_log_sync {
	UIE_LOG_SYNC_POLICY = 0, /* at start and after each policy install (default) */
	UIE_LOG_SYNC_ALWAYS = 1, /* every record, before its answer */
	UIE_LOG_SYNC_NONE = 2,   /* never (tests, benchmarks on throwaway directories) */
};

/* Options of uie_mon_init_opts; all zero: memory only, every grant logged. */
struct uie_mon_opts {
	const char *state_dir;       /* write-ahead log and packages; restart restores the policy */
	struct uie_mon_state *state; /* state_dir already claimed (uie_mon_state_claim); owned from here */
	uint8_t log_sync;            /* enum uie_log_sync: when records reach the device */
	bool first_seen;             /* log each (epoch, mode, event, role, digest, decision, reason) once */
	uint32_t first_seen_max;     /* keys remembered (0: default) */
	const struct uie_mon_limits *limits; /* NULL: the defaults */
	const struct uie_vmram *ram;         /* VM mode (borrowed); NULL: objects come as fds */
	struct uie_denylog *denylog;         /* borrowed; NULL: none */
	unsigned trust_keys;                 /* reported in STATUS */
};

/*
 * Starts the core in bootstrap (logging MONITOR_START through the store,
 * which extends tpm).  Return: UIE_OK, UIE_E_NOMEM, or the core's error.
 */
int uie_mon_init(struct uie_monitor *m, const struct uie_platform *pl, struct uie_vtpm *tpm, FILE *diag);

/*
 * uie_mon_init with options (o may be NULL).  With a state directory
 * the start may restore a policy or refuse to start (a damaged log, a
 * policy whose package is gone or fails its checks), explained on diag.
 */
int uie_mon_init_opts(struct uie_monitor *m, const struct uie_platform *pl, struct uie_vtpm *tpm, FILE *diag,
		      const struct uie_mon_opts *o);

/*
 * Health for STATUS: UIE_OK, the log store's error (a broken vTPM, the
 * last write-ahead failure), a failure to persist the installed package,
 * or the vTPM's error when reading its PCR 16 fails or disagrees with the
 * log.
 */
int uie_mon_health(struct uie_monitor *m);

/* Publishes the installed package's Bloom hint (or none) to guests. */
void uie_mon_publish_hint(struct uie_monitor *m);
void uie_mon_fini(struct uie_monitor *m);

/*
 * What the door left to answer later (process mode): a MEASURE whose
 * object must be hashed, handed to a measurement worker (job, owning the
 * request's descriptor; uie_workers_submit, then uie_mon_measure_finish
 * answers it), or an export written in pieces (export; uie_mon_export_step
 * answers it).  Both NULL: the answer was written at once.
 */
struct uie_mon_later {
	struct uie_job *job;
	struct uie_export_job *export;
};

/*
 * The door (monitor/dispatch.c): serves one message of len bytes with the
 * descriptor it carried (fd, or -1; always consumed) on behalf of client c
 * (whose quota and subjects it uses; NULL: none).  Writes the answer into
 * ans (UIE_BRIDGE_MAX_MSG bytes) and its descriptor, owned by the caller,
 * into *ansfd (-1: none), unless later is given and the message's table row
 * lets it be answered later (then *later says how).  Anything malformed gets
 * an error answer and changes no state.
 */
void uie_mon_serve(struct uie_monitor *m, struct uie_mon_client *c, struct uie_mon_later *later,
		   const uint8_t *msg, size_t len, int fd, uint8_t *ans, size_t *anslen, int *ansfd);

/* uie_mon_serve for no client, everything answered at once (VM mode, tests). */
void uie_mon_handle(struct uie_monitor *m, const uint8_t *msg, size_t len, int fd, uint8_t *ans,
		    size_t *anslen, int *ansfd);

/* Decides, logs and answers a worker's finished MEASURE job (the caller frees it). */
void uie_mon_measure_finish(struct uie_monitor *m, struct uie_mon_client *client, struct uie_job *job,
			    uint8_t *ans, size_t *anslen);

/*
 * Writes up to max more records of an export and, once all are written (or
 * on an error), puts the answer in ans and its memfd in *ansfd and returns
 * true (the caller then frees the job).
 */
bool uie_mon_export_step(struct uie_monitor *m, struct uie_export_job *x, uint64_t max, uint8_t *ans,
			 size_t *anslen, int *ansfd);
void uie_export_job_free(struct uie_export_job *x);

/*
 * Encodes the answer a to request q (its type and request id are set
 * here): a itself when a->status is UIE_OK and it encodes, else the error
 * answer.
 */
void uie_mon_answer(const struct uie_wire_msg *q, struct uie_wire_msg *a, uint8_t *ans, size_t *anslen);

/* A fresh client: a full bucket. */
void uie_mon_client_init(const struct uie_monitor *m, struct uie_mon_client *c);
/* Frees what a connection owns (its subjects). */
void uie_mon_client_fini(struct uie_mon_client *c);

/*
 * Takes n records from client's quota (--client-quota records a second).
 * Return: UIE_OK (also when no client or no quota), UIE_E_QUOTA (nothing taken).
 */
int uie_mon_quota_take(const struct uie_monitor *m, struct uie_mon_client *client, uint64_t n);

/*
 * Writes the error answer (status err) to a message that could not be
 * received whole (oversized, too many descriptors): addressed to its
 * request id when its header is readable, as ERROR_ANS otherwise.
 */
void uie_mon_refuse(const struct uie_monitor *m, const uint8_t *msg, size_t len, int err, uint8_t *ans,
		    size_t *anslen);

/*
 * One request being served, as the door hands it to its handler: whom it
 * comes from, what it asks, the descriptor it carried, the answer being
 * written, and whether it may be answered later.
 */
struct uie_mon_call {
	struct uie_mon_client *client; /* quota and subjects; NULL: none (tests) */
	const struct uie_wire_msg *q;  /* the decoded request */
	int fd;                 /* its descriptor (-1: none): the door closes it, unless a job took it */
	struct uie_wire_msg *a; /* the answer: type and request id set, the handler fills the body */
	int *afd;               /* the answer's descriptor (-1: none), the door's to send and close */
	/*
	 * Non-NULL only for the rows served by a worker or streamed, when the
	 * caller can answer later: the handler may then fill it instead of a.
	 */
	struct uie_mon_later *later;
};

/* Handlers, one per request type (monitor/dispatch.c holds the table). */
typedef int (*uie_mon_handler)(struct uie_monitor *m, struct uie_mon_call *c);
int uie_mon_measure(struct uie_monitor *m, struct uie_mon_call *c);
int uie_mon_measure_vm(struct uie_monitor *m, struct uie_mon_call *c);
int uie_mon_install(struct uie_monitor *m, struct uie_mon_call *c);
int uie_mon_status(struct uie_monitor *m, struct uie_mon_call *c);
int uie_mon_hint(struct uie_monitor *m, struct uie_mon_call *c);
int uie_mon_gen(struct uie_monitor *m, struct uie_mon_call *c);
int uie_mon_fastpath(struct uie_monitor *m, struct uie_mon_call *c);
int uie_mon_export(struct uie_monitor *m, struct uie_mon_call *c);
int uie_mon_pubkey(struct uie_monitor *m, struct uie_mon_call *c);
int uie_mon_checkpoint(struct uie_monitor *m, struct uie_mon_call *c);
/* credential.c: the vTPM's EK and AK, and TPM2_ActivateCredential (docs/FORMATS.md 5.8). */
int uie_mon_tpm_keys(struct uie_monitor *m, struct uie_mon_call *c);
int uie_mon_activate(struct uie_monitor *m, struct uie_mon_call *c);
int uie_mon_snp_report(struct uie_monitor *m, struct uie_mon_call *c);
int uie_mon_violation(struct uie_monitor *m, struct uie_mon_call *c);
int uie_mon_violation_vm(struct uie_monitor *m, struct uie_mon_call *c);

/*
 * The one decide step of a measured request (process and VM mode): decides
 * req from ms, logs it, names a refusal in the system log with the name of
 * the object behind objfd (-1: none) and, in first-seen mode, remembers a
 * granted program as a subject of client.  Return: uie_core_decide's.
 */
int uie_mon_decide(struct uie_monitor *m, struct uie_mon_client *client, const struct uie_req *req,
		   const struct uie_measurement *ms, int objfd, struct uie_verdict *out);

/* A diagnostics line (printf-style) to diag, if set; uie_mon_diag: to m->diag. */
void uie_mon_say(FILE *diag, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
#define uie_mon_diag(m, ...) uie_mon_say((m)->diag, __VA_ARGS__)

#endif
