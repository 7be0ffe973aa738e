/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The interceptor's one owner of the fast path (fastpath.c holds the hint
 * and decides): opened at a connection's first refusal, the one check
 * before a monitor request, the one call after its verdict, and the queue
 * of the refusals it made, sent to the monitor for its log only after the
 * refused calls were answered, in batches (reports.h, UIE_FP_*).
 */
#include <stdio.h>

#include "connection.h"
#include "reports.h"
#include "sup.h"
#include "uie/bridge.h"
#include "uie/err.h"
#include "uie/sys.h"

/* Fetches the generation page and hint, once per connection. */
static void fastpath_open(struct uie_sup *s)
{
	int r;

	s->conn.fp_tried = true;
	r = uie_fastpath_fetch(&s->conn.fp, s->conn.fd);
	s->conn.fp_ok = r == UIE_OK;
	if (s->o->verbose && !s->conn.fp_ok)
		fprintf(stderr, "uie: no fast path: the monitor publishes no generation page (%s)\n",
			uie_err_str(r));
	else if (s->o->verbose)
		fprintf(stderr, "uie: fast path on (%s)\n",
			uie_fastpath_epoch(&s->conn.fp) ? "hint of the policy in force" : "no hint yet");
}

void uie_guest_fastpath_close(struct uie_sup *s)
{
	/* Untouched until the first fetch (which clears it): clearing its 120 KiB of memo
	 * here would fault every page in, 0.3 ms at the end of a run that refused nothing. */
	if (s->conn.fp_tried)
		uie_fastpath_close(&s->conn.fp);
	s->conn.fp_ok = s->conn.fp_tried = false;
}

/* Queues a refusal of req by the hint (digest d) for the monitor's log. */
static void queue(struct uie_sup *s, const struct uie_req *req, const struct uie_digest *d)
{
	struct uie_fp_reports *q = &s->fp_reports;
	struct uie_fastpath_report *rep;

	/* A batch holds the refusals of one hint: the monitor logs them under its epoch. */
	if (q->n && uie_fastpath_epoch(&s->conn.fp) != q->epoch)
		uie_guest_fastpath_flush(s);
	if (q->n == 0) {
		q->oldest_ms = uie_now_ms();
		q->epoch = uie_fastpath_epoch(&s->conn.fp);
	}
	rep = &q->q[q->n++];
	rep->req = *req;
	rep->digest = *d;
}

/*
 * True when the monitor's current hint proves that it would refuse req
 * (then the refusal is queued for the report, digest included).  A full
 * queue, a stale hint that cannot be refetched, or any doubt: false, and
 * the monitor decides.
 */
bool uie_guest_fastpath_refusal(struct uie_sup *s, const struct uie_req *req, int objfd, char *why,
				size_t cap, bool *quiet)
{
	struct uie_fp_reports *q = &s->fp_reports;
	struct uie_digest d;

	if (!s->conn.fp_ok || objfd < 0 || q->n >= UIE_FP_REPORTS_MAX)
		return false;
	if (req->event != UIE_EV_EXECVE && req->event != UIE_EV_MMAP_EXEC &&
	    req->event != UIE_EV_MPROTECT_EXEC)
		return false;
	if (!uie_fastpath_refresh(&s->conn.fp, s->conn.fd) || !uie_fastpath_check_known(&s->conn.fp, req, &d))
		return false;
	queue(s, req, &d);
	/* The monitor logs every one; stderr names only the first few of a batch. */
	*quiet = q->shown >= UIE_FP_SHOWN;
	if (*quiet)
		q->hidden++;
	else
		q->shown++;
	snprintf(why, cap, "fast path: not in the policy (hint of epoch %llu)",
		 (unsigned long long)uie_fastpath_epoch(&s->conn.fp));
	return true;
}

void uie_guest_fastpath_learn(struct uie_sup *s, const struct uie_req *req, bool object,
			      const struct uie_verdict *v)
{
	/* Only refusals are worth remembering: an allowed digest is a hint hit anyway. */
	if (!s->o->fast_path || !object || v->policy_decision == UIE_ALLOW || s->conn.fd < 0)
		return;
	if (!s->conn.fp_tried)
		fastpath_open(s);
	if (s->conn.fp_ok)
		uie_fastpath_learn(&s->conn.fp, req, &v->digest);
}

void uie_guest_fastpath_flush(struct uie_sup *s)
{
	struct uie_fp_reports *q = &s->fp_reports;
	unsigned lost = 0;
	int r = UIE_E_PEER, why = UIE_OK;

	if (q->n == 0)
		return;
	if (s->conn.fd >= 0)
		r = uie_bridge_fastpath_report_all(s->conn.fd, q->epoch, q->q, q->n);
	for (unsigned i = 0; i < q->n; i++) {
		int st = s->conn.fd >= 0 ? q->q[i].status : r;

		if (st != UIE_OK) {
			lost++;
			why = st;
		}
	}
	if (q->hidden)
		fprintf(stderr, "uie: %u more fast-path refusal(s) of this batch not shown one by one\n",
			q->hidden);
	if (lost && why == UIE_E_STATE)
		fprintf(stderr,
			"uie: %u fast-path refusal(s) under the hint of epoch %llu not logged: "
			"the monitor installed another policy before they reached it\n",
			lost, (unsigned long long)q->epoch);
	else if (lost)
		fprintf(stderr, "uie: %u fast-path refusal(s) could not be reported to the monitor: %s\n",
			lost, uie_err_str(why));
	q->shown = q->hidden = 0;
	if (r == UIE_E_PEER || r == UIE_E_SYS)
		uie_guest_disconnect(s);
	q->n = 0;
}

void uie_guest_fastpath_flush_due(struct uie_sup *s)
{
	const struct uie_fp_reports *q = &s->fp_reports;

	if (q->n == UIE_FP_REPORTS_MAX || (q->n && uie_now_ms() - q->oldest_ms >= UIE_FP_MAX_DELAY_MS))
		uie_guest_fastpath_flush(s);
}

int uie_guest_fastpath_idle_ms(const struct uie_fp_reports *q)
{
	return q->n ? UIE_FP_QUIET_MS : -1;
}
