/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The fast path's refusals (fastpath.c decides) and their report queue:
 * sent to the monitor for its log only after the refused calls were
 * answered, in batches (sup.h, UIE_SUP_FP_*).
 */
#include <stdio.h>

#include "sup.h"
#include "uie/bridge.h"
#include "uie/err.h"
#include "uie/sys.h"

/*
 * True when the monitor's current hint proves that it would refuse req
 * (then the refusal is queued for the report, digest included).  A full
 * queue, a stale hint that cannot be refetched, or any doubt: false, and
 * the monitor decides.
 */
bool uie_guest_fastpath_refusal(struct uie_sup *s, const struct uie_req *req, int objfd)
{
	struct uie_fastpath_report *rep;
	struct uie_digest d;

	if (!s->fp_ok || objfd < 0 || s->nfp_reports >= UIE_SUP_MAX_FP_REPORTS)
		return false;
	if (req->event != UIE_EV_EXECVE && req->event != UIE_EV_MMAP_EXEC &&
	    req->event != UIE_EV_MPROTECT_EXEC)
		return false;
	if (!uie_fastpath_refresh(&s->fp, s->bridge) || !uie_fastpath_check_known(&s->fp, req, &d))
		return false;
	/* A batch holds the refusals of one hint: the monitor logs them under its epoch. */
	if (s->nfp_reports && uie_fastpath_epoch(&s->fp) != s->fp_epoch)
		uie_guest_fastpath_flush(s);
	if (s->nfp_reports == 0) {
		s->fp_oldest_ms = uie_now_ms();
		s->fp_epoch = uie_fastpath_epoch(&s->fp);
	}
	rep = &s->fp_reports[s->nfp_reports++];
	rep->req = *req;
	rep->digest = d;
	return true;
}

void uie_guest_fastpath_flush(struct uie_sup *s)
{
	unsigned lost = 0;
	int r = UIE_E_PEER, why = UIE_OK;

	if (s->nfp_reports == 0)
		return;
	if (s->bridge >= 0)
		r = uie_bridge_fastpath_report_all(s->bridge, s->fp_epoch, s->fp_reports, s->nfp_reports);
	for (unsigned i = 0; i < s->nfp_reports; i++) {
		int st = s->bridge >= 0 ? s->fp_reports[i].status : r;

		if (st != UIE_OK) {
			lost++;
			why = st;
		}
	}
	if (s->fp_hidden)
		fprintf(stderr, "uie: %u more fast-path refusal(s) of this batch not shown one by one\n",
			s->fp_hidden);
	if (lost && why == UIE_E_STATE)
		fprintf(stderr,
			"uie: %u fast-path refusal(s) under the hint of epoch %llu not logged: "
			"the monitor installed another policy before they reached it\n",
			lost, (unsigned long long)s->fp_epoch);
	else if (lost)
		fprintf(stderr, "uie: %u fast-path refusal(s) could not be reported to the monitor: %s\n",
			lost, uie_err_str(why));
	s->fp_shown = s->fp_hidden = 0;
	if (r == UIE_E_PEER || r == UIE_E_SYS)
		uie_guest_disconnect(s);
	s->nfp_reports = 0;
}

void uie_guest_fastpath_flush_due(struct uie_sup *s)
{
	if (s->nfp_reports == UIE_SUP_MAX_FP_REPORTS ||
	    (s->nfp_reports && uie_now_ms() - s->fp_oldest_ms >= UIE_SUP_FP_MAX_DELAY_MS))
		uie_guest_fastpath_flush(s);
}

int uie_guest_fastpath_idle_ms(const struct uie_sup *s)
{
	return s->nfp_reports ? UIE_SUP_FP_QUIET_MS : -1;
}
