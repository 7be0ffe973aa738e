/* SPDX-License-Identifier: Apache-2.0 */
/* Where the monitor's time goes per MEASURE request (timing.h). */
#include "timing.h"

#include <stdio.h>

#include "monitor.h"
#include "uie/sys.h"

static const char *const step_names[UIE_MS__MAX] = {
	[UIE_MS_MEASURE] = "measure", [UIE_MS_DECIDE] = "decide", [UIE_MS_LOG] = "log",
	[UIE_MS_EXTEND] = "extend",   [UIE_MS_TOTAL] = "total",
};

void uie_mon_clock_start(const struct uie_monitor *m, struct uie_mon_clock *c)
{
	if (m->timing)
		c->start = uie_now_ns();
}

void uie_mon_clock_measured(const struct uie_monitor *m, struct uie_mon_clock *c)
{
	if (!m->timing)
		return;
	c->measured = uie_now_ns();
	c->file_ns = m->log.file_ns;
	c->tpm_ns = m->log.tpm_ns;
}

void uie_mon_clock_done(struct uie_monitor *m, const struct uie_mon_clock *c)
{
	struct uie_mon_timing *t = m->timing;
	uint64_t now, log, extend, decided;

	if (!t)
		return;
	now = uie_now_ns();
	log = m->log.file_ns - c->file_ns;
	extend = m->log.tpm_ns - c->tpm_ns;
	decided = now - c->measured;
	uie_samples_add(&t->step[UIE_MS_MEASURE], c->measured - c->start);
	uie_samples_add(&t->step[UIE_MS_DECIDE], decided > log + extend ? decided - log - extend : 0);
	uie_samples_add(&t->step[UIE_MS_LOG], log);
	uie_samples_add(&t->step[UIE_MS_EXTEND], extend);
	uie_samples_add(&t->step[UIE_MS_TOTAL], now - c->start);
}

void uie_mon_timing_print(const struct uie_monitor *m)
{
	const struct uie_mon_timing *t = m->timing;
	char line[256];
	size_t k = 0;

	if (!t)
		return;
	for (unsigned st = 0; st < UIE_MS__MAX && k < sizeof(line); st++)
		k += (size_t)snprintf(line + k, sizeof(line) - k, " %s=%.1f", step_names[st],
				      (double)uie_samples_median(&t->step[st]) / 1e3);
	uie_mon_diag(m, "timing: measure requests n=%llu hashed-by-workers=%llu (medians, us):%s",
		     (unsigned long long)t->step[UIE_MS_TOTAL].n, (unsigned long long)t->hashed, line);
}
