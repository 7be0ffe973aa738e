/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The interceptor's fast path (reports.c, its one owner): opened at the
 * connection's first refusal and closed with it, one check before asking
 * the monitor, one call after its verdict, and the queue of the refusals
 * it made, sent to the monitor for its log only after the refused calls
 * were answered.
 */
#ifndef UIE_GUEST_REPORTS_H
#define UIE_GUEST_REPORTS_H

#include <stdbool.h>
#include <stdint.h>

#include "uie/bridge.h"
#include "uie/core.h"

#define UIE_FP_REPORTS_MAX 1024 /* fast-path refusals waiting to be reported */
/*
 * Fast-path refusals are reported once the tree has made no request for
 * UIE_FP_QUIET_MS, or at the latest UIE_FP_MAX_DELAY_MS after the oldest
 * one (or when the queue is full), pipelined: reporting each one at once
 * made the monitor's logging compete with the refused program for the CPU.
 */
#define UIE_FP_QUIET_MS 1
#define UIE_FP_MAX_DELAY_MS 100
/* Fast-path refusals of one batch named on stderr; the rest are counted (all are logged). */
#define UIE_FP_SHOWN 8

/* The refusals of one hint (epoch), in the order they were made. */
struct uie_fp_reports {
	uint64_t oldest_ms;     /* CLOCK_MONOTONIC ms when q[0] was queued */
	uint64_t epoch;         /* epoch of the hint the queued refusals were made with */
	unsigned n;             /* of q[] */
	unsigned shown, hidden; /* this batch's refusals named on stderr, and not */
	struct uie_fastpath_report q[UIE_FP_REPORTS_MAX];
};

struct uie_sup;
/* Drops the fast path's page and hint with the connection. */
void uie_guest_fastpath_close(struct uie_sup *s);
/*
 * True when the monitor's current hint proves that it would refuse req;
 * the refusal is then queued for the report, digest included, and why
 * (cap bytes) says so, or *quiet is set past the first UIE_FP_SHOWN of a
 * batch.
 */
bool uie_guest_fastpath_refusal(struct uie_sup *s, const struct uie_req *req, int objfd, char *why,
				size_t cap, bool *quiet);
/*
 * After the monitor's verdict v on req: a refused digest is remembered for
 * the hint (fetched on the connection at its first refusal, when the fast
 * path is on).
 */
void uie_guest_fastpath_learn(struct uie_sup *s, const struct uie_req *req, bool object,
			      const struct uie_verdict *v);
/*
 * Sends the monitor the fast-path refusals queued so far (for the log);
 * called only after the refused calls have been answered, so that the
 * callers never wait for it.
 */
void uie_guest_fastpath_flush(struct uie_sup *s);
/* Flushes when the queue is full or its oldest refusal is due (after an answer). */
void uie_guest_fastpath_flush_due(struct uie_sup *s);
/* Poll timeout (ms) until the queued refusals are reported when idle; -1: none queued. */
int uie_guest_fastpath_idle_ms(const struct uie_fp_reports *q);

#endif
