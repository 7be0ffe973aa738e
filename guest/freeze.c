/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Closing the check-then-use races of mmap and mprotect.  Between our
 * check and the kernel's use, another thread of the same process could
 * replace the descriptor (mmap: dup2 over the measured fd) or the mapping
 * under the range (mprotect: munmap + mmap of other content).  The filter
 * forbids sharing a descriptor table or an address space between
 * processes (clone with CLONE_FILES or CLONE_VM without CLONE_THREAD,
 * clone3, io_uring), so only threads of the caller can race it; a vfork
 * child, which shares its parent's, gets no grant (loop.c).  For a
 * multi-threaded caller the supervisor therefore stops every other thread
 * (PTRACE_SEIZE + PTRACE_INTERRUPT: invisible to the program and its
 * parent, unlike SIGSTOP) before it looks at the request, and lets them
 * go only after the calling thread has returned from the call, which it
 * observes as that thread's own ptrace stop.  Meanwhile other requests are
 * still answered (the loop's serve_waiting callback, struct uie_freezer),
 * so a thread waiting on one can stop.  With everything stopped the
 * executable mappings are then compared with what the monitor allowed
 * (reconcile.c).  PTRACE_O_EXITKILL: if the supervisor dies meanwhile,
 * the frozen threads die with it.  PTRACE_SEIZE takes the process's
 * cred_guard_mutex, which an execve holds while it may wait for an answer
 * of ours: no thread of a process is seized while it has an execve in
 * flight (struct uie_freezer, exec_unfinished).
 */
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "freeze.h"
#include "hex.h"
#include "tmem.h"
#include "uie/err.h"
#include "uie/sys.h"

#define STOP_DEADLINE_MS 2000u

static bool known(const struct uie_freeze *f, pid_t tid)
{
	for (unsigned i = 0; i < f->n; i++)
		if (f->t[i].tid == tid)
			return true;
	return false;
}

/* Whether a thread of tgid may hold the mutex PTRACE_SEIZE takes and wait for an answer. */
static bool exec_unfinished(struct uie_freezer *z, pid_t tgid)
{
	return z->exec_unfinished && z->exec_unfinished(z->ctx, tgid);
}

/* What a wait for a stop does meanwhile. */
enum waiting {
	QUIET,            /* nothing: callers hold pointers into what serving changes */
	SERVE,            /* answers exec permission events and nested notifications */
	SERVE_UNTIL_EXEC, /* the same, and ends once an execve of the process is under way */
};

/*
 * Waits for tid's ptrace stop, at most deadline_ms (0: only looks).  A signal that
 * arrives meanwhile stops it too (signal-delivery stop); it is remembered
 * and delivered at detach.  The deadline is read from the clock, not
 * counted in naps (a nap under load lasts far longer than asked).  Serving,
 * the loop's callback keeps answering exec permission events and nested
 * notifications while waiting: a thread blocked in one cannot stop before.
 * Return: UIE_OK (stopped), UIE_E_NOTFOUND (exited), UIE_E_STATE (did not
 * stop in time, or an execve began), UIE_E_SYS.
 */
static int wait_stop(struct uie_freezer *z, pid_t tid, pid_t tgid, int *sig, unsigned deadline_ms,
		     enum waiting how)
{
	const struct timespec nap = { 0, 20000 };
	uint64_t start = uie_now_ms();

	for (;;) {
		siginfo_t si;
		int st;

		memset(&si, 0, sizeof(si));
		if (waitid(P_PID, (id_t)tid, &si, WSTOPPED | WEXITED | WNOWAIT | WNOHANG | __WALL) != 0) {
			if (errno == EINTR)
				continue;
			return errno == ECHILD ? UIE_E_NOTFOUND : UIE_E_SYS;
		}
		if (si.si_pid == 0) { /* not yet */
			if (uie_now_ms() - start >= deadline_ms)
				return UIE_E_STATE;
			if (how != QUIET && z->serve_waiting)
				z->serve_waiting(z->ctx);
			if (how == SERVE_UNTIL_EXEC && exec_unfinished(z, tgid))
				return UIE_E_STATE;
			nanosleep(&nap, NULL);
			continue;
		}
		if (si.si_code == CLD_EXITED || si.si_code == CLD_KILLED || si.si_code == CLD_DUMPED) {
			/*
			 * Reap it: an exited thread goes, and a leader (whose zombie only
			 * its tracer sees) passes to its parent, unless that is us (the
			 * tree's first process, whose status the loop waits for).
			 */
			if (tid != tgid || uie_guest_parent_of(tid) != getpid())
				waitpid(tid, &st, __WALL);
			return UIE_E_NOTFOUND;
		}
		if (waitpid(tid, &st, __WALL) != tid || !WIFSTOPPED(st))
			continue;
		if (st >> 16 == 0 && WSTOPSIG(st) != SIGTRAP) {
			*sig = WSTOPSIG(st); /* signal-delivery stop: hand it back at detach */
		} else if (st >> 16 != PTRACE_EVENT_STOP) {
			ptrace(PTRACE_CONT, tid, 0, 0); /* another stop: run into our interrupt */
			continue;
		}
		return UIE_OK;
	}
}

/*
 * Keeps tid, our tracee, to be let go once it stops or reaped once it dies
 * (uie_guest_thaw_left).  With no room to keep it, its process is killed
 * and tid reaped here: a tracee we neither let go nor reap hangs for ever,
 * and so does its parent's wait for it.
 */
static void keep_left(struct uie_freezer *z, pid_t tid, pid_t tgid, int sig)
{
	int w;

	if (z->nleft < UIE_FREEZE_LEFT) {
		z->left[z->nleft] = (struct uie_frozen){ .tid = tid, .sig = sig };
		z->left_tgid[z->nleft++] = tgid;
		return;
	}
	fprintf(stderr, "uie: killed pid %d: too many threads left stopping\n", (int)tgid);
	kill(tgid, SIGKILL);
	/* A stop reported before the kill took is passed over: the kill ends it. */
	while ((w = wait_stop(z, tid, tgid, &sig, STOP_DEADLINE_MS, QUIET)) == UIE_OK)
		;
	if (w != UIE_E_NOTFOUND)
		fprintf(stderr, "uie: thread %d of killed pid %d: not reaped (%s)\n", (int)tid, (int)tgid,
			w == UIE_E_STATE ? "did not exit within 2 s" : strerror(errno));
}

/*
 * Detaches tid, which was in a ptrace stop.  A SIGKILL may have woken it
 * meanwhile (its parent ending it, say): then the detach fails (ESRCH) and
 * it stays our tracee until we reap its exit, which its parent's wait
 * waits for, so it is kept to be reaped.
 */
static void let_go(struct uie_freezer *z, pid_t tid, pid_t tgid, int sig)
{
	if (ptrace(PTRACE_DETACH, tid, 0, (void *)(long)sig) != 0 && errno == ESRCH)
		keep_left(z, tid, tgid, sig);
}

/* Makes tid our tracee and asks it to stop.  Return: UIE_OK, UIE_E_NOTFOUND (gone), UIE_E_SYS. */
static int seize_interrupt(struct uie_freezer *z, pid_t tid, pid_t tgid)
{
	int r;

	if (ptrace(PTRACE_SEIZE, tid, 0, PTRACE_O_EXITKILL) != 0)
		return errno == ESRCH ? UIE_E_NOTFOUND : UIE_E_SYS;
	if (ptrace(PTRACE_INTERRUPT, tid, 0, 0) != 0) {
		r = errno == ESRCH ? UIE_E_NOTFOUND : UIE_E_SYS;
		let_go(z, tid, tgid, 0);
		return r;
	}
	return UIE_OK;
}

/*
 * Takes tid back from the threads of earlier freezes still stopping (*sig:
 * the signal kept for it): it is our tracee already, its stop requested.
 */
static bool take_left(struct uie_freezer *z, pid_t tid, int *sig)
{
	for (unsigned i = 0; i < z->nleft; i++)
		if (z->left[i].tid == tid) {
			*sig = z->left[i].sig;
			z->nleft--;
			z->left[i] = z->left[z->nleft];
			z->left_tgid[i] = z->left_tgid[z->nleft];
			return true;
		}
	return false;
}

static int seize(struct uie_freezer *z, struct uie_freeze *f, pid_t tid)
{
	int r, sig = 0;

	if (f->n == UIE_FREEZE_MAX)
		return UIE_E_LIMIT;
	if (take_left(z, tid, &sig)) {
		f->t[f->n++] = (struct uie_frozen){ .tid = tid, .stopped = false, .sig = sig };
		return UIE_OK;
	}
	if ((r = seize_interrupt(z, tid, f->tgid)) != UIE_OK)
		return r == UIE_E_NOTFOUND ? UIE_OK : r; /* gone already: nothing to stop */
	f->t[f->n++] = (struct uie_frozen){ .tid = tid, .stopped = false, .sig = 0 };
	return UIE_OK;
}

/* One pass over /proc/TGID/task; *added counts threads seized now. */
static int sweep(struct uie_freezer *z, struct uie_freeze *f, unsigned *added)
{
	char path[64];
	struct dirent *de;
	DIR *d;
	int r = UIE_OK;

	*added = 0;
	snprintf(path, sizeof(path), "/proc/%d/task", (int)f->tgid);
	d = opendir(path);
	if (!d)
		return UIE_E_SYS;
	while (r == UIE_OK && (de = readdir(d)) != NULL) {
		uint64_t n;
		pid_t tid = uie_parse_u64(de->d_name, &n) == UIE_OK && n <= INT32_MAX ? (pid_t)n : 0;

		if (tid <= 0 || known(f, tid))
			continue;
		if ((r = seize(z, f, tid)) == UIE_OK)
			(*added)++;
	}
	closedir(d);
	return r;
}

/*
 * Waits, answering meanwhile, until no thread of tgid is in an execve; at
 * most until STOP_DEADLINE_MS after start.  The threads an execve kills
 * that we trace stay until we reap them, and the execve waits for that
 * (uie_guest_thaw_left reaps them).
 */
static int wait_execs(struct uie_freezer *z, pid_t tgid, uint64_t start)
{
	const struct timespec nap = { 0, 20000 };

	while (exec_unfinished(z, tgid)) {
		if (uie_now_ms() - start >= STOP_DEADLINE_MS)
			return UIE_E_STATE;
		if (z->serve_waiting)
			z->serve_waiting(z->ctx);
		if (z->nleft)
			uie_guest_thaw_left(z);
		nanosleep(&nap, NULL);
	}
	return UIE_OK;
}

/*
 * One attempt.  An execve of tgid that an answer given meanwhile lets
 * continue ends it (UIE_E_STATE, every thread let go): the execve holds
 * the mutex a seize takes, and kills the threads we hold.
 */
static int freeze_once(struct uie_freezer *z, struct uie_freeze *f, pid_t tgid, pid_t caller)
{
	unsigned added;
	int r;

	memset(f, 0, sizeof(*f));
	f->tgid = tgid;
	f->caller = caller;
	/* The caller first: it stops when it returns from the trapped call. */
	if ((r = seize(z, f, caller)) != UIE_OK)
		return r;
	if (f->n == 0)
		return UIE_E_NOTFOUND; /* the caller is gone (another thread's execve ended it) */
	do {
		if ((r = sweep(z, f, &added)) != UIE_OK)
			break;
		/* Every other thread must be stopped before the next sweep: a running
		 * thread could still be creating threads. */
		for (unsigned i = 0; r == UIE_OK && i < f->n; i++) {
			struct uie_frozen *t = &f->t[i];
			int w;

			if (t->tid == caller || t->stopped || t->gone)
				continue;
			w = wait_stop(z, t->tid, tgid, &t->sig, STOP_DEADLINE_MS, SERVE_UNTIL_EXEC);
			if (w == UIE_OK)
				t->stopped = true;
			else if (w == UIE_E_NOTFOUND)
				t->gone = true;
			else
				r = w;
		}
		/* Before the next sweep: an answer served meanwhile may have let one continue. */
		if (r == UIE_OK && added > 0 && exec_unfinished(z, tgid))
			r = UIE_E_STATE;
	} while (r == UIE_OK && added > 0);
	if (r != UIE_OK)
		uie_guest_thaw(z, f);
	return r;
}

int uie_guest_freeze(struct uie_freezer *z, struct uie_freeze *f, pid_t tgid, pid_t caller)
{
	uint64_t start = uie_now_ms();
	int r;

	/* No seize while an execve of tgid may hold the mutex; after one, again. */
	for (;;) {
		if ((r = wait_execs(z, tgid, start)) != UIE_OK)
			return r;
		r = freeze_once(z, f, tgid, caller);
		if (r == UIE_OK || !exec_unfinished(z, tgid))
			return r;
	}
}

int uie_guest_await_caller(struct uie_freezer *z, struct uie_freeze *f)
{
	for (unsigned i = 0; i < f->n; i++) {
		struct uie_frozen *t = &f->t[i];
		int w;

		if (t->tid != f->caller)
			continue;
		w = wait_stop(z, t->tid, f->tgid, &t->sig, STOP_DEADLINE_MS, SERVE);
		if (w == UIE_OK)
			t->stopped = true;
		else if (w == UIE_E_NOTFOUND)
			t->gone = true;
		return w == UIE_E_NOTFOUND ? UIE_OK : w;
	}
	return UIE_E_NOTFOUND;
}

/* Detaches a stopped tracee; one that has not stopped yet is detached later. */
static void release(struct uie_freezer *z, pid_t tid, pid_t tgid, int sig)
{
	int w = wait_stop(z, tid, tgid, &sig, 0, QUIET);

	if (w == UIE_OK)
		let_go(z, tid, tgid, sig);
	else if (w == UIE_E_STATE)
		keep_left(z, tid, tgid, sig);
}

void uie_guest_thaw(struct uie_freezer *z, struct uie_freeze *f)
{
	for (unsigned i = 0; i < f->n; i++) {
		struct uie_frozen *t = &f->t[i];

		if (t->gone)
			continue;
		if (t->stopped)
			let_go(z, t->tid, f->tgid, t->sig);
		else /* still inside a call (e.g. vfork): it stops when it returns */
			release(z, t->tid, f->tgid, t->sig);
	}
	f->n = 0;
}

/* One thread of a look (uie_guest_in_calls_looked) that was running: asked to stop. */
struct looked {
	unsigned i; /* its index in the caller's arrays */
	pid_t tgid;
};

/*
 * Asks each running thread of tids[0..n-1] to stop (into *held, their
 * count in *nheld); in_call[] is set now for every other one.
 */
static void ask_stop(struct uie_freezer *z, const pid_t *tids, const long *nrs, unsigned nnrs,
		     const uint32_t *calls, unsigned n, bool *in_call, struct looked *held, unsigned *nheld)
{
	*nheld = 0;
	for (unsigned i = 0; i < n; i++) {
		enum uie_call_state st = uie_guest_call_state(tids[i], nrs, nnrs, calls[i]);
		struct uie_task t;
		int r;

		in_call[i] = st != UIE_CALL_OVER;
		if (st != UIE_CALL_RUNNING)
			continue;
		if (uie_guest_task_info(tids[i], -1, &t) != UIE_OK || exec_unfinished(z, t.tgid))
			continue; /* counts */
		if ((r = seize_interrupt(z, tids[i], t.tgid)) == UIE_OK)
			held[(*nheld)++] = (struct looked){ .i = i, .tgid = t.tgid };
		else if (r == UIE_E_NOTFOUND)
			in_call[i] = false; /* gone */
	}
}

void uie_guest_in_calls_looked(struct uie_freezer *z, const pid_t *tids, const uint32_t *calls, unsigned n,
			       const long *nrs, unsigned nnrs, unsigned deadline_ms, bool *in_call)
{
	struct looked held[UIE_LOOK_MAX];
	uint64_t until = uie_now_ms() + deadline_ms;

	for (unsigned from = 0; from < n; from += UIE_LOOK_MAX) {
		unsigned k = n - from < UIE_LOOK_MAX ? n - from : UIE_LOOK_MAX, nheld;

		ask_stop(z, tids + from, nrs, nnrs, calls + from, k, in_call + from, held, &nheld);
		/* One deadline for all: each stops at its next return to user space. */
		for (unsigned h = 0; h < nheld; h++) {
			unsigned i = from + held[h].i;
			uint64_t now = uie_now_ms();
			int sig = 0, w;

			w = wait_stop(z, tids[i], held[h].tgid, &sig,
				      now < until ? (unsigned)(until - now) : 0, QUIET);
			if (w == UIE_OK) {
				in_call[i] = uie_guest_call_state(tids[i], nrs, nnrs, calls[i]) !=
					     UIE_CALL_OVER;
				let_go(z, tids[i], held[h].tgid, sig);
			} else if (w == UIE_E_NOTFOUND) {
				in_call[i] = false;
			} else { /* not stopped in time: counts, and is let go once it stops */
				release(z, tids[i], held[h].tgid, sig);
			}
		}
	}
}

void uie_guest_thaw_left(struct uie_freezer *z)
{
	unsigned n = z->nleft;

	z->nleft = 0;
	for (unsigned i = 0; i < n; i++)
		release(z, z->left[i].tid, z->left_tgid[i], z->left[i].sig);
}
