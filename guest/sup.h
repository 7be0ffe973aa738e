/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The supervisor's state (loop.c), composed of the state of each module,
 * declared in the module's own header.  One supervisor process handles
 * one notification at a time; no call it makes on behalf of a target
 * blocks on another target.  Only files that use more than one module's
 * part (the handlers, the loop, and the modules that ask the monitor)
 * include this header.
 */
#ifndef UIE_GUEST_SUP_H
#define UIE_GUEST_SUP_H

#include <linux/seccomp.h>
#include <stdbool.h>
#include <sys/types.h>

#include "connection.h"
#include "fan.h"
#include "freeze.h"
#include "fstrust.h"
#include "granted.h"
#include "guest.h"
#include "kernel.h"
#include "phases.h"
#include "reconcile.h"
#include "reports.h"
#include "seal.h"
#include "subject.h"
#include "tmem.h"

#define UIE_SUP_NEST 3 /* nesting of notifications answered during a freeze */

struct uie_sup {
	const struct uie_guest_opts *o;
	struct uie_kernel kern;           /* kernel.c */
	struct uie_conn conn;             /* connection.c: the monitor, and the fast path fetched from it */
	struct uie_fp_reports fp_reports; /* reports.c: fast-path refusals to report */
	struct uie_granted granted;       /* granted.c: file identities the monitor allowed */
	struct uie_subjects subjects;     /* subject.c: programs granted on the connection */
	struct uie_anon_grants anon;      /* reconcile.c: processes allowed anonymous executable memory */
	struct uie_fan fan;               /* fan.c, writewatch.c: the fanotify group */
	struct uie_seals seals;           /* seal.c: read leases on granted files */
	struct uie_mounts mounts;         /* fstrust.c: mounts granted files were on */
	struct uie_freezer freezer;       /* freeze.c: threads left stopping, the serve_waiting callback */
	struct uie_phases phases;         /* uie run --timing */
	struct seccomp_notif_sizes sizes;
	int listener; /* seccomp notification fd */
	int followed; /* connection whose CPU affinity was followed (loop.c) */
	pid_t root;   /* the tree's first process */
	/*
	 * Anonymous memory refused for want of a JIT rule: not named on stderr
	 * (optional JITs such as PCRE2's fall back to an interpreter), only
	 * counted (ask.c), and the count shown when the program dies by a
	 * signal (loop.c).
	 */
	unsigned anon_quiet;
	/*
	 * Notifications are answered one at a time, except that while threads
	 * are being stopped for one grant, others are answered (nested, up to
	 * UIE_SUP_NEST) so that a thread waiting on them (vfork, an exec) can
	 * stop: one notification, answer and freeze per depth.
	 */
	unsigned depth;
	struct seccomp_notif *nbuf[UIE_SUP_NEST];
	struct seccomp_notif_resp *rbuf[UIE_SUP_NEST];
	struct uie_freeze frz[UIE_SUP_NEST];
};

/* ---- exec.c / mapping.c / remap.c: handlers; return the seccomp response ---- */
void uie_guest_on_exec(struct uie_sup *s, struct uie_call *c, struct seccomp_notif_resp *r);
void uie_guest_on_mmap(struct uie_sup *s, const struct uie_call *c, struct seccomp_notif_resp *r);
void uie_guest_on_mprotect(struct uie_sup *s, const struct uie_call *c, struct seccomp_notif_resp *r);
void uie_guest_on_mremap(struct uie_sup *s, const struct uie_call *c, struct seccomp_notif_resp *r);
/* Whether the mremap c->n grows or moves executable memory (or its mappings cannot be read). */
bool uie_guest_mremap_racy(struct uie_sup *s, const struct uie_call *c);

#endif
