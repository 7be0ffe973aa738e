/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Measurement workers: threads that hash objects for the monitor's loop,
 * so that one large object does not hold up every other client.  A worker
 * only reads the object through its descriptor and hashes it with its own
 * platform (the host platform's hash contexts are not shared between
 * threads) and the digest algorithm the job names: it sees nothing of the
 * core, so the cache, decisions and the log stay with the loop's thread.
 */
#ifndef UIE_MONITOR_WORKERS_H
#define UIE_MONITOR_WORKERS_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "measurement.h"
#include "uie/core.h"
#include "verity.h"

#define UIE_WORKERS_MAX 16
#define UIE_WORKERS_DEFAULT 2

/* One measurement: filled by the loop, run by a worker, finished by the loop. */
struct uie_job {
	/* in */
	const struct uie_platform *pl; /* the hashing thread's own (a worker sets its platform) */
	uint16_t alg;                  /* the digest algorithm in force when the job was made */
	struct uie_req req;            /* its id is the identity the digest must belong to */
	int fd;                        /* owned by the job */
	uint32_t max_hash_ms;          /* 0: no limit */
	struct uie_verity verity;      /* the file's fs-verity digest (alg 0: none): its cache key */
	/* out */
	struct uie_measurement ms;
	bool expired; /* stopped by max_hash_ms */
	/* the loop's bookkeeping */
	uint64_t conn; /* connection the answer goes to */
	uint32_t request_id;
	struct uie_job *next;
};

struct uie_workers {
	pthread_t t[UIE_WORKERS_MAX];
	unsigned n;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	struct uie_job *todo, *todo_tail, *done; /* lists, under mu */
	bool stop;
	unsigned running; /* workers past their start-up, under mu */
	int wake[2];      /* a byte per finished job: the loop polls wake[0] */
};

/*
 * Starts n (1..UIE_WORKERS_MAX) workers, each with its own host platform.
 * Call before the sandbox forbids clone; the seccomp filter must then be
 * installed for all threads (SECCOMP_FILTER_FLAG_TSYNC).  Signals stay with
 * the calling thread.  Return: UIE_OK, UIE_E_INVAL, UIE_E_SYS, UIE_E_NOMEM.
 */
int uie_workers_start(struct uie_workers *w, unsigned n);

/* Stops and joins the workers; jobs not finished are freed (their fds closed). */
void uie_workers_stop(struct uie_workers *w);

/* Hands job (owned by the pool until collected) to a worker. */
void uie_workers_submit(struct uie_workers *w, struct uie_job *job);

/* Takes every finished job (a list through ->next, owned by the caller); drains wake[0]. */
struct uie_job *uie_workers_collect(struct uie_workers *w);

/* Frees a job and closes its descriptor. */
void uie_job_free(struct uie_job *job);

/*
 * The measurement itself (also what the loop runs when there are no
 * workers): reads the object behind job->fd, checks its identity is still
 * job->req.id before and after, and fills ms and expired.
 */
void uie_job_measure(struct uie_job *job);

#endif
