/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Reconciliation after a continued grant of a multi-threaded process,
 * while all its threads are stopped (freeze.c) and the call has
 * returned: every executable mapping must be backed by a file the monitor
 * allowed (same device and inode) or be anonymous memory the monitor
 * allowed for this process.  Anything else is asked about; if the monitor
 * refuses, the process is killed (SIGKILL) before any of its threads runs
 * again.  With the freeze this is a second line: it catches what the
 * kcmp() check before continuing could not see.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "ask.h"
#include "granted.h"
#include "maps.h"
#include "reconcile.h"
#include "sup.h"
#include "uie/err.h"

struct rctx {
	struct uie_sup *s;
	pid_t tgid;
};

static bool anon_ok(const struct uie_anon_grants *a, pid_t tgid)
{
	for (unsigned i = 0; i < UIE_ANON_GRANTS; i++)
		if (a->tgid[i] == tgid)
			return true;
	return false;
}

void uie_guest_anon_allowed(struct uie_anon_grants *a, pid_t tgid)
{
	if (anon_ok(a, tgid))
		return;
	a->tgid[a->next] = tgid;
	a->next = (a->next + 1) % UIE_ANON_GRANTS;
}

static int check(void *ctx, const struct uie_map *m)
{
	struct rctx *rc = ctx;
	struct uie_grant g;
	char what[96];
	bool ok;
	int fd;

	if (!m->x || m->special)
		return UIE_OK;
	snprintf(what, sizeof(what), "the mapping at %#llx", (unsigned long long)m->start);
	if (m->ino == 0) {
		if (anon_ok(&rc->s->anon, rc->tgid))
			return UIE_OK;
		g = (struct uie_grant){ .event = UIE_EV_MPROTECT_EXEC,
					.role = UIE_ROLE_ANON,
					.pid = rc->tgid,
					.vaddr = m->start,
					.length = m->end - m->start,
					.what = what };
		ok = uie_guest_grant(rc->s, &g);
		if (ok)
			uie_guest_anon_allowed(&rc->s->anon, rc->tgid);
		return ok ? UIE_OK : UIE_E_DENIED;
	}
	if (uie_guest_approved(&rc->s->granted, makedev(m->dev_major, m->dev_minor), m->ino))
		return UIE_OK;
	if (uie_guest_map_open(rc->tgid, m, &fd) != UIE_OK)
		return errno == ENOENT ? UIE_OK : UIE_E_DENIED; /* unmapped meanwhile */
	g = (struct uie_grant){ .event = UIE_EV_MMAP_EXEC,
				.role = UIE_ROLE_DSO,
				.pid = rc->tgid,
				.objfd = fd,
				.vaddr = m->start,
				.length = m->end - m->start,
				.offset = m->off,
				.what = what };
	ok = uie_guest_examine(&g) && uie_guest_grant(rc->s, &g);
	close(fd);
	return ok ? UIE_OK : UIE_E_DENIED;
}

void uie_guest_reconcile(struct uie_sup *s, pid_t tgid)
{
	struct rctx rc = { s, tgid };
	int r = uie_guest_maps_each(tgid, check, &rc);

	if (r == UIE_OK || (r == UIE_E_SYS && (errno == ENOENT || errno == ESRCH)))
		return; /* consistent, or already gone */
	fprintf(stderr, "uie: killed pid %d: executable memory the monitor did not allow (race)\n",
		(int)tgid);
	kill(tgid, SIGKILL);
}
