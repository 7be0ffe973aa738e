/* SPDX-License-Identifier: Apache-2.0 */
/* Reconciliation after a continued grant (reconcile.c): races after CONTINUE. */
#ifndef UIE_GUEST_RECONCILE_H
#define UIE_GUEST_RECONCILE_H

#include <sys/types.h>

#define UIE_ANON_GRANTS 64

/* Processes the monitor allowed anonymous executable memory (MEASURE), the latest ones. */
struct uie_anon_grants {
	pid_t tgid[UIE_ANON_GRANTS];
	unsigned next; /* slot the next one takes */
};

struct uie_sup;
/* Kills tgid when it holds an executable mapping the monitor refuses. */
void uie_guest_reconcile(struct uie_sup *s, pid_t tgid);
/* Remembers that tgid was allowed anonymous executable memory. */
void uie_guest_anon_allowed(struct uie_anon_grants *a, pid_t tgid);

#endif
