/* SPDX-License-Identifier: Apache-2.0 */
#include "phases.h"

#include "uie/sys.h"

static const char *const phase_names[UIE_PHASE__MAX] = {
	[UIE_PHASE_FANOTIFY] = "fanotify", [UIE_PHASE_PROBE] = "probe", [UIE_PHASE_SPAWN] = "spawn",
	[UIE_PHASE_CONNECT] = "connect",   [UIE_PHASE_ASK] = "ask",     [UIE_PHASE_TEARDOWN] = "teardown",
};

uint64_t uie_phase_begin(const struct uie_phases *p)
{
	return p->on ? uie_now_ns() : 0;
}

void uie_phase_end(struct uie_phases *p, enum uie_phase ph, uint64_t begun)
{
	if (!p->on)
		return;
	p->ns[ph] += uie_now_ns() - begun;
	p->count[ph]++;
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
	fprintf(f, " program=%llu total=%llu us\n", (unsigned long long)((total - own) / 1000),
		(unsigned long long)(total / 1000));
}
