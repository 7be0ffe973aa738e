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

#include "sup.h"
#include "uie/err.h"

struct rctx {
	struct uie_sup *s;
	pid_t tgid;
};

static bool anon_ok(const struct uie_sup *s, pid_t tgid)
{
	for (unsigned i = 0; i < UIE_SUP_MAX_ANON; i++)
		if (s->anon_ok[i] == tgid)
			return true;
	return false;
}

void uie_guest_anon_allowed(struct uie_sup *s, pid_t tgid)
{
	if (anon_ok(s, tgid))
		return;
	s->anon_ok[s->anon_next] = tgid;
	s->anon_next = (s->anon_next + 1) % UIE_SUP_MAX_ANON;
}

static int check(void *ctx, const struct uie_map *m)
{
	struct rctx *rc = ctx;
	char what[96];
	bool ok;
	int fd;

	if (!m->x || m->special)
		return UIE_OK;
	snprintf(what, sizeof(what), "the mapping at %#llx", (unsigned long long)m->start);
	if (m->ino == 0) {
		if (anon_ok(rc->s, rc->tgid))
			return UIE_OK;
		ok = uie_guest_ask(rc->s, UIE_EV_MPROTECT_EXEC, UIE_ROLE_ANON, rc->tgid, -1, NULL, m->start,
				   m->end - m->start, 0, what);
		if (ok)
			uie_guest_anon_allowed(rc->s, rc->tgid);
		return ok ? UIE_OK : UIE_E_DENIED;
	}
	if (uie_guest_approved(rc->s, makedev(m->dev_major, m->dev_minor), m->ino))
		return UIE_OK;
	if (uie_guest_map_open(rc->tgid, m, &fd) != UIE_OK)
		return errno == ENOENT ? UIE_OK : UIE_E_DENIED; /* unmapped meanwhile */
	ok = uie_guest_ask_obj(rc->s, UIE_EV_MMAP_EXEC, UIE_ROLE_DSO, rc->tgid, fd, m->start,
			       m->end - m->start, m->off, what, 0);
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
