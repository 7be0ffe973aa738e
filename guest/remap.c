/* SPDX-License-Identifier: Apache-2.0 */
/*
 * mremap that can grow or move a mapping: the filter traps it when the new
 * size is larger than the old, or with MREMAP_FIXED or MREMAP_DONTUNMAP
 * (moves); shrinking in place stays in the kernel.  A growth keeps the
 * mapping's protection over the pages it adds: of an executable file
 * mapping, file bytes nobody measured (the object digest covers the
 * executable segments only, docs/THREAT-MODEL.md "mremap").  So when the
 * old range holds an executable mapping, its resulting range is asked for
 * like a new grant (uie_guest_grant_range, as mprotect does): the mapped
 * file's bytes from the old range's offset, new-size long, which the
 * monitor grants with the object digest only when every byte lies in the
 * executable segments, else with the range's own digest; memory without
 * a file as role ANON (a JIT rule).  A refusal is EACCES.  Old ranges
 * without an executable mapping continue untouched.
 *
 * Threads: a multi-threaded caller whose old range is executable is
 * stopped around the call (freeze.c; uie_guest_mremap_racy), so no thread
 * replaces the mapping between the check and the kernel's use.  One that
 * turns the range executable after the check (mprotect, mmap) is itself a
 * stopped grant, decided after the growth has happened.
 */
#include <errno.h>
#include <stdio.h>

#include "answer.h"
#include "mapping.h"
#include "sup.h"
#include "uie/err.h"
#include "uie/measure.h"

#define MAX_EXEC 16

/* The old range [lo, hi), at least a page; what the call asks for. */
struct old_range {
	uint64_t lo, hi, old_size, new_size;
	bool grows;
	struct uie_map x[MAX_EXEC]; /* its executable mappings */
	unsigned nx, n;             /* executable mappings kept; all mappings met */
	uint64_t covered;           /* end of the mappings from lo without a hole */
};

static int collect(void *ctx, const struct uie_map *m)
{
	struct old_range *o = ctx;

	if (m->end <= o->lo || m->start >= o->hi)
		return UIE_OK;
	o->n++;
	if (m->start <= o->covered && m->end > o->covered)
		o->covered = m->end;
	if (!m->x)
		return UIE_OK;
	if (o->nx == MAX_EXEC)
		return UIE_E_LIMIT;
	o->x[o->nx++] = *m;
	return UIE_OK;
}

static bool page_up(uint64_t v, uint64_t *out)
{
	if (v > UINT64_MAX - (UIE_MEASURE_PAGE - 1))
		return false;
	*out = (v + UIE_MEASURE_PAGE - 1) & ~(uint64_t)(UIE_MEASURE_PAGE - 1);
	return true;
}

/* The call's old range and its mappings: UIE_E_INVAL for arguments the kernel refuses too. */
static int read_old(struct uie_sup *s, const struct uie_call *c, struct old_range *o)
{
	const struct seccomp_notif *n = c->n;
	uint64_t old = n->data.args[0], span;

	*o = (struct old_range){ .lo = old, .covered = old };
	if (old % UIE_MEASURE_PAGE || !page_up(n->data.args[1], &o->old_size) ||
	    !page_up(n->data.args[2], &o->new_size) || o->new_size == 0)
		return UIE_E_INVAL;
	span = o->old_size ? o->old_size : UIE_MEASURE_PAGE; /* size 0: the mapping at old is duplicated */
	if (span > UINT64_MAX - old)
		return UIE_E_INVAL;
	o->hi = old + span;
	o->grows = o->new_size > o->old_size;
	return uie_guest_maps_range(n->pid, o->lo, o->hi, s->kern.procmap_query, collect, o);
}

bool uie_guest_mremap_racy(struct uie_sup *s, const struct uie_call *c)
{
	struct old_range o;
	int r = read_old(s, c, &o);

	return r == UIE_E_INVAL ? false : r != UIE_OK || o.nx > 0;
}

void uie_guest_on_mremap(struct uie_sup *s, const struct uie_call *c, struct seccomp_notif_resp *r)
{
	const struct seccomp_notif *n = c->n;
	uint64_t old = n->data.args[0];
	struct old_range o;
	int e = read_old(s, c, &o);

	if (e == UIE_E_INVAL) {
		uie_guest_deny(r, EINVAL);
		return;
	}
	if (e != UIE_OK) {
		fprintf(stderr, "uie: denied mremap at %#llx (pid %d): cannot read its mappings (%s)\n",
			(unsigned long long)old, (int)n->pid, uie_err_str(e));
		return;
	}
	if (o.nx == 0) {
		uie_guest_cont(r); /* nothing executable grows or moves */
		return;
	}
	if (!c->settled) {
		fprintf(stderr,
			"uie: denied mremap at %#llx (pid %d): its range became executable during the "
			"check\n",
			(unsigned long long)old, (int)n->pid);
		return;
	}
	/* A growth is of one mapping, which must span the old range: else the kernel fails it. */
	if (o.grows && (o.n != 1 || o.covered < o.hi)) {
		uie_guest_deny(r, EFAULT);
		return;
	}
	for (unsigned i = 0; i < o.nx; i++) {
		const struct uie_map *m = &o.x[i];
		/* The present pages that move (none for old size 0: the new range is all new). */
		uint64_t end = old + o.old_size;
		struct uie_exec_range x = { .lo = m->start > old ? m->start : old, .writable = m->w };
		uint64_t to;

		x.hi = m->end < end ? m->end : end;
		/* Where its bytes end up in the new range (relative to old). */
		to = o.grows ? o.new_size : (x.hi - old < o.new_size ? x.hi - old : o.new_size);
		if (to <= x.lo - old)
			continue; /* cut off by a smaller new size */
		x.length = to - (x.lo - old);
		if (!uie_guest_grant_range(s, c, m, &x)) {
			fprintf(stderr,
				"uie: denied mremap at %#llx (pid %d) to %llu bytes: its executable range "
				"was refused\n",
				(unsigned long long)old, (int)n->pid, (unsigned long long)o.new_size);
			return;
		}
	}
	if (uie_guest_id_valid(s->listener, n->id))
		uie_guest_cont(r);
}
