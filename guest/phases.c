/* SPDX-License-Identifier: Apache-2.0 */
#include "phases.h"

#include "uie/sys.h"

static const char *const kind_names[UIE_GK__MAX] = {
	[UIE_GK_EXECVE] = "execve",
	[UIE_GK_MMAP] = "mmap",
	[UIE_GK_MPROTECT] = "mprotect",
	[UIE_GK_EXEC_EVENT] = "exec-event",
};
static const char *const step_names[UIE_GS__MAX] = {
	[UIE_GS_IDENTIFY] = "identify", [UIE_GS_SEAL] = "seal",   [UIE_GS_MONITOR] = "monitor",
	[UIE_GS_ANSWER] = "answer",     [UIE_GS_TOTAL] = "total",
};
static const char *const phase_names[UIE_PHASE__MAX] = {
	[UIE_PHASE_FANOTIFY] = "fanotify", [UIE_PHASE_PROBE] = "probe", [UIE_PHASE_SPAWN] = "spawn",
	[UIE_PHASE_CONNECT] = "connect",   [UIE_PHASE_ASK] = "ask",     [UIE_PHASE_TEARDOWN] = "teardown",
};

uint64_t uie_phase_begin(struct uie_phases *p)
{
	if (!p->on)
		return 0;
	p->open++;
	return uie_now_ns();
}

void uie_phase_end(struct uie_phases *p, enum uie_phase ph, uint64_t begun)
{
	uint64_t ns;

	if (!p->on)
		return;
	ns = uie_now_ns() - begun;
	p->ns[ph] += ns;
	p->count[ph]++;
	if (--p->open > 0)
		p->nested_ns += ns;
}

void uie_phases_print(const struct uie_phases *p, FILE *f)
{
	uint64_t total = uie_now_ns() - p->start_ns, own = 0;

	fprintf(f, "uie: timing:");
	for (unsigned i = 0; i < UIE_PHASE__MAX; i++) {
		own += p->ns[i];
		fprintf(f, " %s=%llu", phase_names[i], (unsigned long long)(p->ns[i] / 1000));
		if (i == UIE_PHASE_ASK)
			fprintf(f, "/%u", p->count[i]);
	}
	/* The program's own run, its exec and exit, and waiting on them. */
	own -= p->nested_ns; /* a phase within another (connect during the spawn) counts once */
	fprintf(f, " program=%llu total=%llu us\n", (unsigned long long)((total - own) / 1000),
		(unsigned long long)(total / 1000));
	for (unsigned k = 0; p->grants && k < UIE_GK__MAX; k++) {
		const struct uie_grant_times *g = p->grants;

		if (!g->step[k][UIE_GS_TOTAL].n && !g->local[k])
			continue;
		fprintf(f, "uie: grants: %s n=%llu asks=%llu local=%llu", kind_names[k],
			(unsigned long long)g->step[k][UIE_GS_TOTAL].n, (unsigned long long)g->asks[k],
			(unsigned long long)g->local[k]);
		for (unsigned st = 0; st < UIE_GS__MAX; st++)
			fprintf(f, " %s=%.1f", step_names[st],
				(double)uie_samples_median(&g->step[k][st]) / 1e3);
		fprintf(f, " us\n");
	}
}

void uie_grant_begin(struct uie_phases *p, struct uie_grant_clock *clk)
{
	if (!p->grants)
		return;
	*clk = (struct uie_grant_clock){ .up = p->cur };
	clk->start = clk->mark = uie_now_ns();
	p->cur = clk;
}

void uie_grant_step(struct uie_phases *p, enum uie_grant_step st)
{
	struct uie_grant_clock *c = p->cur;
	uint64_t now;

	if (!c)
		return;
	now = uie_now_ns();
	c->ns[st] += now - c->mark;
	c->mark = now;
}

void uie_grant_asked(struct uie_phases *p, unsigned n)
{
	uie_grant_step(p, UIE_GS_MONITOR);
	if (p->cur)
		p->cur->asks += n;
}

void uie_grant_end(struct uie_phases *p, enum uie_grant_kind kind)
{
	struct uie_grant_clock *c = p->cur;

	if (!c)
		return;
	uie_grant_step(p, UIE_GS_ANSWER);
	c->ns[UIE_GS_TOTAL] = c->mark - c->start;
	if (c->asks == 0) {
		p->grants->local[kind]++;
	} else {
		p->grants->asks[kind] += c->asks;
		for (unsigned st = 0; st < UIE_GS__MAX; st++)
			uie_samples_add(&p->grants->step[kind][st], c->ns[st]);
	}
	p->cur = NULL; /* what follows the answer (reconciliation) is not this notification's */
}

void uie_grant_resume(struct uie_phases *p, struct uie_grant_clock *clk)
{
	if (p->grants)
		p->cur = clk->up;
}
