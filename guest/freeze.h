/* SPDX-License-Identifier: Apache-2.0 */
/* Threads stopped around a grant (freeze.c). */
#ifndef UIE_GUEST_FREEZE_H
#define UIE_GUEST_FREEZE_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#define UIE_FREEZE_MAX 1024 /* threads of one freeze */
#define UIE_FREEZE_LEFT 256 /* threads still stopping after their freeze ended */
#define UIE_LOOK_MAX 128    /* threads stopped at once by one look (more: in turns) */

struct uie_frozen {
	pid_t tid;
	bool stopped, gone;
	int sig; /* signal that arrived while stopped, delivered at detach */
};

/* One freeze: every thread of tgid stopped but caller, which stops after its call. */
struct uie_freeze {
	pid_t tgid, caller;
	unsigned n;
	struct uie_frozen t[UIE_FREEZE_MAX];
};

/* What outlasts one freeze. */
struct uie_freezer {
	/*
	 * Called while waiting for threads to stop: the loop answers what they
	 * may be waiting for (nested).  freeze.c never calls the loop itself.
	 */
	void (*serve_waiting)(void *ctx);
	/*
	 * Whether a thread of tgid may be in an execve that waits for an
	 * answer while it holds the process's cred_guard_mutex, which
	 * PTRACE_SEIZE takes (uie_guest_fan_exec_unfinished); NULL: none is.
	 */
	bool (*exec_unfinished)(void *ctx, pid_t tgid);
	void *ctx;
	/*
	 * Threads that had not stopped when their freeze ended: detached once
	 * they do; and threads a SIGKILL woke from their stop before we could
	 * detach them: reaped once they exit (their parent's wait waits for it).
	 */
	struct uie_frozen left[UIE_FREEZE_LEFT];
	pid_t left_tgid[UIE_FREEZE_LEFT];
	unsigned nleft;
};

/*
 * Stops every thread of tgid but caller, and arms caller to stop after its
 * call.  While a thread of tgid is in an execve (exec_unfinished), waits
 * for it first, answering meanwhile, for at most 2 s (UIE_E_STATE).
 */
int uie_guest_freeze(struct uie_freezer *z, struct uie_freeze *f, pid_t tgid, pid_t caller);
/* After the answer was sent: waits until caller has returned from the call. */
int uie_guest_await_caller(struct uie_freezer *z, struct uie_freeze *f);
/* Lets every thread go (delivering signals that arrived meanwhile). */
void uie_guest_thaw(struct uie_freezer *z, struct uie_freeze *f);
/*
 * uie_guest_maybe_in_call (tmem.h) for each thread tids[i] and its call
 * calls[i] (in_call[i] set, i < n), telling a running one by a look: /proc
 * shows only "running" for a thread on a CPU or waiting for one, in user
 * space or in any call, so such threads are stopped for a moment, as a
 * freeze stops threads, and read again.  All are asked to stop first and
 * waited for with one deadline (deadline_ms from the call), so n threads
 * slow to stop cost deadline_ms, not n times it.  A thread stops only
 * outside a call or at a call's end: stopped at the end of the call it
 * still shows it (and counts).  One that does not stop in time, cannot be
 * traced (a freeze holds it), or whose process is in an execve
 * (exec_unfinished: the seize could wait for ever), counts.  Nothing is
 * served meanwhile, so callers may hold pointers into what serving changes.
 */
void uie_guest_in_calls_looked(struct uie_freezer *z, const pid_t *tids, const uint32_t *calls, unsigned n,
			       const long *nrs, unsigned nnrs, unsigned deadline_ms, bool *in_call);
/* Detaches the threads of earlier freezes that have stopped since. */
void uie_guest_thaw_left(struct uie_freezer *z);

#endif
