/* SPDX-License-Identifier: Apache-2.0 */
/*
 * mmap(PROT_EXEC) and mprotect/pkey_mprotect(PROT_EXEC).  The filter lets
 * every call without PROT_EXEC pass in the kernel, so each call seen here
 * is a grant of execute permission.  File-backed grants are measured on
 * the exact open file: for mmap the target's descriptor, duplicated with
 * pidfd_getfd; for mprotect the mapped file itself, opened through
 * /proc/PID/map_files.  Anonymous and fileless memory is asked about as
 * role ANON (the policy decides; ENFORCE denies it by default).
 *
 * Execmod: the file's digest says nothing of pages a write copied into a
 * private mapping, so a file range with such a page (pages.c), or one
 * asked to be writable and executable at once, goes to the monitor with
 * UIE_COND_EXECMOD, which it refuses (docs/THREAT-MODEL.md).
 *
 * Races: the kernel resolves the mmap descriptor again when the call
 * continues.  Before continuing, kcmp() checks that the target's fd still
 * names the measured open file; after continuing, reconcile.c checks the
 * process's executable mappings and kills it on anything the monitor
 * refuses (docs/THREAT-MODEL.md).
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/kcmp.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "answer.h"
#include "ask.h"
#include "mapping.h"
#include "maps.h"
#include "pages.h"
#include "reconcile.h"
#include "sup.h"
#include "tmem.h"
#include "uie/err.h"
#include "uie/measure.h"

#define MAX_PIECES 16

void uie_guest_on_mmap(struct uie_sup *s, const struct uie_call *c, struct seccomp_notif_resp *r)
{
	const struct seccomp_notif *n = c->n;
	uint64_t addr = n->data.args[0], len = n->data.args[1], flags = n->data.args[3];
	int fd = (int)n->data.args[4];
	struct uie_grant g = { .event = UIE_EV_MMAP_EXEC,
			       .pid = n->pid,
			       .call = uie_guest_call_key(n),
			       .vaddr = addr,
			       .length = len };

	if ((flags & MAP_ANONYMOUS) || fd < 0) {
		g.role = UIE_ROLE_ANON;
		g.what = "anonymous memory";
		if (uie_guest_grant(s, &g)) {
			uie_guest_anon_allowed(&s->anon, c->tgid);
			uie_guest_cont(r);
		}
		return;
	}
	g.objfd = uie_guest_call_getfd(c, fd);
	if (g.objfd < 0) {
		uie_guest_deny(r, errno == EBADF ? EBADF : EACCES);
		return;
	}
	g.role = UIE_ROLE_DSO;
	g.offset = n->data.args[5];
	/* Writable and executable: a write would copy in bytes nobody measured. */
	g.cond = (n->data.args[2] & PROT_WRITE) ? UIE_COND_EXECMOD : 0;
	if (!uie_guest_id_valid(s->listener, n->id) || !uie_guest_examine(&g)) {
		close(g.objfd);
		return;
	}
	if (!uie_guest_ask(s, &g)) {
		uie_guest_refuse(s, &g, g.why);
	} else if (syscall(SYS_kcmp, getpid(), n->pid, KCMP_FILE, g.objfd, fd) != 0) {
		/* The fd was replaced while the monitor measured: the grant does not happen. */
		snprintf(g.why, sizeof(g.why), "descriptor %d replaced during the check (race)", fd);
		uie_guest_refuse(s, &g, g.why);
	} else {
		uie_guest_commit(s, &g);
		uie_guest_cont(r);
	}
	close(g.objfd);
}

struct span {
	uint64_t lo, hi;
	struct uie_map piece[MAX_PIECES];
	unsigned n;
	bool overflow;
};

static int collect(void *ctx, const struct uie_map *m)
{
	struct span *sp = ctx;

	if (m->end <= sp->lo || m->start >= sp->hi)
		return UIE_OK;
	if (sp->n == MAX_PIECES) {
		sp->overflow = true;
		return UIE_E_LIMIT;
	}
	sp->piece[sp->n++] = *m;
	return UIE_OK;
}

/*
 * UIE_COND_EXECMOD when [lo, hi) of a file mapping is to be writable too,
 * or holds a page a write copied (pages.c; the caller's other threads are
 * stopped).  A page map that cannot be read counts as copied: fail closed.
 */
static uint8_t execmod(const struct seccomp_notif *n, uint64_t lo, uint64_t hi, bool writable)
{
	bool copied;

	if (writable)
		return UIE_COND_EXECMOD;
	if (uie_guest_pages_copied(n->pid, lo, hi, &copied) != UIE_OK) {
		fprintf(stderr,
			"uie: cannot read the page map of pid %d (%s): its pages count as "
			"copied\n",
			(int)n->pid, strerror(errno));
		return UIE_COND_EXECMOD;
	}
	return copied ? UIE_COND_EXECMOD : 0;
}

bool uie_guest_grant_range(struct uie_sup *s, const struct uie_call *c, const struct uie_map *m,
			   const struct uie_exec_range *x)
{
	const struct seccomp_notif *n = c->n;
	struct uie_grant g = {
		.event = UIE_EV_MPROTECT_EXEC,
		.pid = n->pid,
		.call = uie_guest_call_key(n),
		.vaddr = x->lo,
		.length = x->length,
	};
	bool ok;
	int obj;

	if (m->ino == 0 || m->special) {
		g.role = UIE_ROLE_ANON;
		g.what = "anonymous memory";
		ok = uie_guest_grant(s, &g);
		if (ok)
			uie_guest_anon_allowed(&s->anon, c->tgid);
		return ok;
	}
	if (uie_guest_map_open(n->pid, m, &obj) != UIE_OK) {
		fprintf(stderr,
			"uie: denied execute permission at %#llx (pid %d): cannot open the mapped file\n",
			(unsigned long long)x->lo, (int)n->pid);
		return false;
	}
	g.role = UIE_ROLE_DSO;
	g.objfd = obj;
	g.offset = m->off + (x->lo - m->start);
	g.cond = execmod(n, x->lo, x->hi, x->writable);
	ok = uie_guest_examine(&g) && uie_guest_grant(s, &g);
	close(obj);
	return ok;
}

void uie_guest_on_mprotect(struct uie_sup *s, const struct uie_call *c, struct seccomp_notif_resp *r)
{
	const struct seccomp_notif *n = c->n;
	uint64_t addr = n->data.args[0], len = n->data.args[1];
	struct span sp = { .lo = addr };
	uint64_t at = addr;

	if (addr % UIE_MEASURE_PAGE || len > UINT64_MAX - addr - UIE_MEASURE_PAGE) {
		uie_guest_deny(r, EINVAL);
		return;
	}
	if (len == 0) {
		uie_guest_cont(r); /* grants nothing; the kernel returns 0 */
		return;
	}
	sp.hi = addr + ((len + UIE_MEASURE_PAGE - 1) & ~(uint64_t)(UIE_MEASURE_PAGE - 1));
	if (uie_guest_maps_range(n->pid, sp.lo, sp.hi, s->kern.procmap_query, collect, &sp) != UIE_OK) {
		fprintf(stderr, "uie: denied mprotect at %#llx (pid %d): cannot read its mappings\n",
			(unsigned long long)addr, (int)n->pid);
		return;
	}
	for (unsigned i = 0; i < sp.n; i++) {
		const struct uie_map *m = &sp.piece[i];
		uint64_t lo = m->start > sp.lo ? m->start : sp.lo;
		uint64_t hi = m->end < sp.hi ? m->end : sp.hi;
		struct uie_exec_range x;

		if (m->start > at) {
			uie_guest_deny(r, ENOMEM); /* a hole: the kernel fails the call */
			return;
		}
		at = hi;
		x = (struct uie_exec_range){
			.lo = lo, .hi = hi, .length = hi - lo, .writable = (n->data.args[2] & PROT_WRITE) != 0
		};
		if (!uie_guest_grant_range(s, c, m, &x))
			return;
	}
	if (at < sp.hi) {
		uie_guest_deny(r, ENOMEM);
		return;
	}
	if (uie_guest_id_valid(s->listener, n->id))
		uie_guest_cont(r);
}
