/* SPDX-License-Identifier: Apache-2.0 */
/* Threads stopped around a grant (freeze.c). */
#ifndef UIE_GUEST_FREEZE_H
#define UIE_GUEST_FREEZE_H

#include <stdbool.h>
#include <sys/types.h>

#define UIE_FREEZE_MAX 1024 /* threads of one freeze */
#define UIE_FREEZE_LEFT 256 /* threads still stopping after their freeze ended */

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
	void *ctx;
	/* Threads that had not stopped when their freeze ended: detached once they do. */
	struct uie_frozen left[UIE_FREEZE_LEFT];
	pid_t left_tgid[UIE_FREEZE_LEFT];
	unsigned nleft;
};

/* Stops every thread of tgid but caller, and arms caller to stop after its call. */
int uie_guest_freeze(struct uie_freezer *z, struct uie_freeze *f, pid_t tgid, pid_t caller);
/* After the answer was sent: waits until caller has returned from the call. */
int uie_guest_await_caller(struct uie_freezer *z, struct uie_freeze *f);
/* Lets every thread go (delivering signals that arrived meanwhile). */
void uie_guest_thaw(struct uie_freezer *z, struct uie_freeze *f);
/*
 * Stops the one thread tid of tgid as a freeze stops the others, for a
 * look at it (*sig: a signal to hand back at uie_guest_thaw_thread), for a
 * thread that is running: nothing is served while it stops.  Return:
 * UIE_OK (stopped), UIE_E_NOTFOUND (gone), UIE_E_STATE (it did not stop in
 * time: it is let go once it does), UIE_E_SYS (it cannot be traced, e.g. a
 * freeze holds it already).
 */
int uie_guest_freeze_thread(struct uie_freezer *z, pid_t tgid, pid_t tid, int *sig);
/* Lets a thread stopped by uie_guest_freeze_thread go. */
void uie_guest_thaw_thread(pid_t tid, int sig);
/* Detaches the threads of earlier freezes that have stopped since. */
void uie_guest_thaw_left(struct uie_freezer *z);

#endif
