/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The supervisor: starts the program, then answers seccomp notifications
 * and fanotify events one at a time until the program and every process
 * that inherited the filter are gone.  Fail closed: each response starts
 * as EACCES and only a monitor ALLOW turns it into CONTINUE.  If this
 * process dies, the kernel fails every trapped call of the tree (the
 * listener is gone), so the tree gains no executable memory.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/seccomp.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "answer.h"
#include "connection.h"
#include "fan.h"
#include "freeze.h"
#include "reconcile.h"
#include "reports.h"
#include "seal.h"
#include "confine.h"
#include "sup.h"
#include "tmem.h"
#include "uie/err.h"
#include "uie/seccomp.h"
#include "uie/sys.h"

#define LEFT_POLL_MS 5

#ifndef PIDFD_THREAD
#define PIDFD_THREAD O_EXCL
#endif

/* Grants whose check another thread of the caller could race (freeze.c). */
static bool racy_grant(struct uie_sup *s, const struct uie_call *c)
{
	const struct seccomp_notif *n = c->n;

	if (n->data.nr == __NR_mprotect || n->data.nr == __NR_pkey_mprotect)
		return true;
	if (n->data.nr == __NR_mremap)
		return uie_guest_mremap_racy(s, c);
	return n->data.nr == __NR_mmap && !(n->data.args[3] & MAP_ANONYMOUS) && (int)n->data.args[4] >= 0;
}

static enum uie_grant_kind grant_kind(const struct seccomp_notif *n)
{
	if (n->data.nr == __NR_execve || n->data.nr == __NR_execveat)
		return UIE_GK_EXECVE;
	return n->data.nr == __NR_mmap ? UIE_GK_MMAP : UIE_GK_MPROTECT;
}

static void dispatch(struct uie_sup *s, struct uie_call *c, struct seccomp_notif_resp *r)
{
	switch (c->n->data.nr) {
	case __NR_execve:
	case __NR_execveat: uie_guest_on_exec(s, c, r); break;
	case __NR_mmap: uie_guest_on_mmap(s, c, r); break;
	case __NR_mprotect:
	case __NR_pkey_mprotect: uie_guest_on_mprotect(s, c, r); break;
	case __NR_mremap: uie_guest_on_mremap(s, c, r); break;
	default:
		fprintf(stderr, "uie: denied unexpected system call %d (pid %d)\n", c->n->data.nr,
			(int)c->n->pid);
	}
}

/*
 * A pidfd for the caller, and (for grants) its process and thread count.
 * Before Linux 6.9 only a process has a pidfd: the thread's process comes
 * from /proc/TID/status, and the notification still pending afterwards
 * proves the thread (so its TID) was alive all along; descriptors fetched
 * through the process pidfd are checked against the thread's
 * (uie_guest_call_getfd).
 */
static int open_caller(struct uie_sup *s, struct uie_call *c, struct uie_task *t)
{
	const struct seccomp_notif *n = c->n;
	int r;

	c->thread_pidfd = s->kern.pidfd_thread;
	if (c->thread_pidfd) {
		c->pidfd = (int)syscall(SYS_pidfd_open, n->pid, PIDFD_THREAD);
		if (c->pidfd < 0)
			return UIE_E_SYS;
		if (grant_kind(n) == UIE_GK_EXECVE)
			return UIE_OK;
		r = uie_guest_task_info(n->pid, s->kern.pidfd_get_info ? c->pidfd : -1, t);
		c->tgid = t->tgid;
		return r;
	}
	if (uie_guest_task_info(n->pid, -1, t) != UIE_OK)
		return UIE_E_SYS;
	c->pidfd = (int)syscall(SYS_pidfd_open, t->tgid, 0);
	if (c->pidfd < 0 || !uie_guest_id_valid(s->listener, n->id))
		return UIE_E_SYS;
	c->tgid = t->tgid;
	return UIE_OK;
}

/* Receives and answers one seccomp notification. */
static void serve_one(struct uie_sup *s)
{
	unsigned d = s->depth;
	struct seccomp_notif *n = s->nbuf[d];
	struct seccomp_notif_resp *r = s->rbuf[d];
	struct uie_freeze *frz = &s->frz[d];
	struct uie_call c = { .n = n, .pidfd = -1 };
	struct uie_grant_clock clk;
	bool frozen = false;
	struct uie_task task = { 0 };

	memset(n, 0, s->sizes.seccomp_notif);
	if (ioctl(s->listener, SECCOMP_IOCTL_NOTIF_RECV, n) != 0)
		return; /* the target died before we received it */
	uie_guest_fan_retire(&s->fan, n->pid);
	uie_grant_begin(&s->phases, &clk);
	memset(r, 0, s->sizes.seccomp_notif_resp);
	r->id = n->id;
	uie_guest_deny(r, EACCES);
	if (open_caller(s, &c, &task) != UIE_OK)
		goto send; /* the thread is gone */
	s->depth++;
	/* Its parent's threads could race any check of it, and no freeze of ours stops them. */
	if (grant_kind(n) != UIE_GK_EXECVE && uie_guest_shares_parent_mm(n->pid, task.ppid)) {
		fprintf(stderr,
			"uie: denied a grant to pid %d: it runs in the address space of its parent %d "
			"(a vfork child), whose other threads could change it meanwhile\n",
			(int)n->pid, (int)task.ppid);
		goto send;
	}
	if (task.threads > 1 && racy_grant(s, &c)) {
		int e = uie_guest_freeze(&s->freezer, frz, c.tgid, n->pid);

		if (e != UIE_OK) {
			if (e != UIE_E_NOTFOUND) /* else the caller is gone: nobody to tell */
				fprintf(stderr,
					"uie: denied a grant to pid %d: cannot stop its other threads (%s)\n",
					(int)n->pid, uie_err_str(e));
			goto send;
		}
		frozen = true;
	}
	c.settled = task.threads <= 1 || frozen;
	dispatch(s, &c, r);
send:
	if (ioctl(s->listener, SECCOMP_IOCTL_NOTIF_SEND, r) != 0 && errno != ENOENT)
		fprintf(stderr, "uie: cannot answer pid %d: %s\n", (int)n->pid, strerror(errno));
	uie_grant_end(&s->phases, grant_kind(n));
	if (frozen) {
		/* All threads stay stopped until the call has returned and the result is checked. */
		if (uie_guest_await_caller(&s->freezer, frz) != UIE_OK) {
			fprintf(stderr, "uie: killed pid %d: its call did not return in time\n", (int)c.tgid);
			kill(c.tgid, SIGKILL);
		} else if (r->flags & SECCOMP_USER_NOTIF_FLAG_CONTINUE) {
			uie_guest_reconcile(s, c.tgid);
		}
		uie_guest_thaw(&s->freezer, frz);
	}
	s->depth = d;
	uie_grant_resume(&s->phases, &clk);
	if (c.pidfd >= 0)
		close(c.pidfd);
	if (d == 0) /* the call is answered: queued fast-path refusals may be due */
		uie_guest_fastpath_flush_due(s);
}

/*
 * The freeze wait's callback (freeze.c): answers what other threads and
 * processes wait for meanwhile, exec permission events and seccomp
 * notifications up to UIE_SUP_NEST deep (a vfork parent cannot stop before
 * its child's execve is answered).
 */
static void serve_waiting(void *ctx)
{
	struct uie_sup *s = ctx;
	struct pollfd p = { .fd = s->listener, .events = POLLIN };

	if (s->fan.fd >= 0)
		uie_guest_fan_handle(s);
	if (s->depth < UIE_SUP_NEST && poll(&p, 1, 0) == 1 && (p.revents & POLLIN))
		serve_one(s);
}

/* The freezer asks before it seizes a thread of tgid (freeze.h). */
static bool exec_unfinished(void *ctx, pid_t tgid)
{
	struct uie_sup *s = ctx;

	return uie_guest_fan_exec_unfinished(&s->fan, tgid);
}

/*
 * Runs the supervisor on the CPUs the monitor is confined to, when it is
 * (a deployment pins the single-threaded monitor, e.g. CPUAffinity= or
 * taskset).  Every grant is a chain of wake-ups, target -> supervisor ->
 * monitor -> supervisor -> target; on a virtual machine, waking a task on
 * another, idle vCPU costs an inter-processor interrupt and the vCPU's
 * wake-up, several times the work of the request itself, so sharing the
 * monitor's CPU cuts the round trip several-fold.  The supervised tree keeps
 * its own affinity (it was forked before).  Performance only: any failure
 * leaves the affinity as it was.  Checked once per connection.
 */
static void follow_monitor(struct uie_sup *s)
{
	struct ucred cr;
	socklen_t len = sizeof(cr);
	cpu_set_t mon, own, both;

	if (s->conn.fd == s->followed)
		return;
	s->followed = s->conn.fd;
	if (s->conn.fd < 0 || getsockopt(s->conn.fd, SOL_SOCKET, SO_PEERCRED, &cr, &len) != 0 ||
	    cr.pid <= 0 || sched_getaffinity(cr.pid, sizeof(mon), &mon) != 0 ||
	    sched_getaffinity(0, sizeof(own), &own) != 0)
		return;
	CPU_AND(&both, &mon, &own);
	if (CPU_COUNT(&both) == 0 || CPU_EQUAL(&both, &own))
		return;
	if (sched_setaffinity(0, sizeof(both), &both) == 0 && s->o->verbose)
		fprintf(stderr, "uie: supervising on the monitor's %d CPU(s)\n", CPU_COUNT(&both));
}

static int exit_status(int ws, const char *prog)
{
	if (WIFEXITED(ws))
		return WEXITSTATUS(ws);
	if (WIFSIGNALED(ws)) {
		if (WTERMSIG(ws) == SIGSYS)
			fprintf(stderr, "uie: %s killed by SIGSYS: a foreign system-call ABI was refused\n",
				prog);
		return 128 + WTERMSIG(ws);
	}
	return 1;
}

static void free_sup(struct uie_sup *s)
{
	uie_guest_mounts_release(&s->mounts);
	for (unsigned i = 0; i < UIE_SUP_NEST; i++) {
		free(s->nbuf[i]);
		free(s->rbuf[i]);
	}
	free(s->phases.grants);
	free(s);
}

/*
 * Set-up that only needs to be done before the program's first execve is
 * answered, done while the child confines itself (Landlock and the filter
 * take it about a millisecond): the exec watch (its marks are in place
 * before any exec of the tree opens its file) and the monitor connection,
 * which the first execve's request needs.  Its phases overlap the spawn's.
 */
static void while_child_confines(void *ctx)
{
	struct uie_sup *s = ctx;
	uint64_t begun;

	if (s->o->fanotify) { /* without it, no phase: --timing then shows fanotify=0 */
		begun = uie_phase_begin(&s->phases);
		if (uie_guest_fan_init(&s->fan) != UIE_OK && s->o->verbose)
			fprintf(stderr, "uie: no fanotify exec watch (%s); execve is checked by path\n",
				strerror(errno));
		uie_phase_end(&s->phases, UIE_PHASE_FANOTIFY, begun);
	}
	uie_guest_connect(s);
}

static int setup_signals(sigset_t *old)
{
	sigset_t set;
	int fd;

	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGHUP);
	sigaddset(&set, SIGQUIT);
	/* Lease breaks of sealed files (seal.c); SIGIO when the kernel's signal queue was full. */
	sigaddset(&set, uie_guest_seal_signal());
	sigaddset(&set, SIGIO);
	if (sigprocmask(SIG_BLOCK, &set, old) != 0)
		return -1;
	fd = signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK);
	return fd;
}

/* The shorter of two poll timeouts (-1: none). */
static int min_timeout(int a, int b)
{
	if (a < 0)
		return b;
	return b < 0 || a < b ? a : b;
}

/* Until the child is reaped and no process uses the filter. */
static int supervise(struct uie_sup *s, struct uie_spawned *sp, int sigfd, const char *prog, int *status)
{
	bool reaped = false, hup = false;

	while (!reaped || !hup) {
		struct pollfd p[4] = {
			{ .fd = hup ? -1 : s->listener, .events = POLLIN },
			{ .fd = s->fan.fd, .events = POLLIN },
			{ .fd = reaped ? -1 : sp->pidfd, .events = POLLIN },
			{ .fd = sigfd, .events = POLLIN },
		};
		int idle = min_timeout(uie_guest_fastpath_idle_ms(&s->fp_reports),
				       uie_guest_seal_idle_ms(&s->seals));
		int k = poll(p, 4, s->freezer.nleft ? min_timeout(idle, LEFT_POLL_MS) : idle);

		if (k < 0 && errno != EINTR)
			break;
		if (k == 0) { /* quiet: report the fast-path refusals, drop unused seals */
			uie_guest_fastpath_flush(s);
			uie_guest_seal_sweep(s);
		}
		if (s->freezer.nleft)
			uie_guest_thaw_left(&s->freezer);
		if (p[1].revents & POLLIN) {
			uie_guest_fan_handle(s);
			/* Answered: queued fast-path refusals may be due (in a freeze
			 * (serve_waiting), the outer grant reports once it is answered). */
			uie_guest_fastpath_flush_due(s);
		}
		if (p[0].revents & POLLIN)
			serve_one(s);
		else if (p[0].revents & (POLLHUP | POLLERR))
			hup = true; /* no process uses the filter any more */
		follow_monitor(s);
		if (p[2].revents & POLLIN) {
			int ws;

			if (waitpid(sp->pid, &ws, 0) == sp->pid) {
				*status = exit_status(ws, prog);
				reaped = true;
			}
		}
		if (p[3].revents & POLLIN) {
			struct signalfd_siginfo si;

			if (read(sigfd, &si, sizeof(si)) != (ssize_t)sizeof(si))
				continue;
			if ((int)si.ssi_signo == uie_guest_seal_signal())
				uie_guest_seal_broken(s, si.ssi_fd);
			else if (si.ssi_signo == SIGIO)
				uie_guest_seal_broken(s, -1);
			else if (!reaped)
				kill(sp->pid, (int)si.ssi_signo);
		}
	}
	return UIE_OK;
}

int uie_guest_run(const struct uie_guest_opts *o, char *const argv[], int *status)
{
	struct uie_sup *s = calloc(1, sizeof(*s));
	sigset_t old;
	struct uie_spawned sp;
	struct sigaction ignore = { .sa_handler = SIG_IGN }, pipe_was = { 0 };
	int sigfd, r;
	uint64_t begun;
	__u64 flags = SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP;

	*status = 1;
	if (!s)
		return UIE_E_NOMEM;
	s->o = o;
	s->phases.on = o->timing;
	s->phases.start_ns = uie_now_ns();
	if (o->timing && !(s->phases.grants = calloc(1, sizeof(*s->phases.grants)))) {
		free(s);
		return UIE_E_NOMEM;
	}
	s->conn.fd = -1;
	s->followed = -1;
	s->fan.fd = -1;
	s->mounts.watch = -1;
	s->seals.pagemap = -1;
	s->freezer.serve_waiting = serve_waiting;
	s->freezer.exec_unfinished = exec_unfinished;
	s->freezer.ctx = s;
	sigaction(SIGPIPE, &ignore, &pipe_was); /* a dead monitor is an error, not a signal */
	if (syscall(__NR_seccomp, SECCOMP_GET_NOTIF_SIZES, 0, &s->sizes) != 0) {
		free_sup(s); /* with --timing's table */
		return UIE_E_SYS;
	}
	for (unsigned i = 0; i < UIE_SUP_NEST; i++) {
		s->nbuf[i] = calloc(1, s->sizes.seccomp_notif);
		s->rbuf[i] = calloc(1, s->sizes.seccomp_notif_resp);
		if (!s->nbuf[i] || !s->rbuf[i]) {
			free_sup(s);
			return UIE_E_NOMEM;
		}
	}
	begun = uie_phase_begin(&s->phases);
	r = uie_guest_kernel_probe(&s->kern, o->verbose);
	uie_phase_end(&s->phases, UIE_PHASE_PROBE, begun);
	begun = uie_phase_begin(&s->phases);
	if (r == UIE_OK)
		r = uie_guest_spawn(argv, s->kern.landlock_abi, o, pipe_was.sa_handler == SIG_IGN,
				    while_child_confines, s, &sp);
	uie_phase_end(&s->phases, UIE_PHASE_SPAWN, begun);
	if (r != UIE_OK) {
		if (s->fan.fd >= 0)
			close(s->fan.fd);
		uie_guest_disconnect(s);
		free_sup(s);
		return r;
	}
	s->listener = sp.listener;
	/* Several-fold faster round trips; Linux 6.6 and later (not a safety issue). */
	if (s->kern.sync_wake_up)
		s->kern.sync_wake_up = ioctl(s->listener, SECCOMP_IOCTL_NOTIF_SET_FLAGS, flags) == 0;
	if (!s->kern.sync_wake_up && o->verbose)
		fprintf(stderr,
			"uie: no SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP (Linux 6.6): slower round trips\n");
	s->root = sp.pid;
	sigfd = setup_signals(&old);
	r = supervise(s, &sp, sigfd, argv[0], status);
	/* A program whose JIT is not optional dies of the refusal (node: SIGTRAP): say why. */
	if (s->anon_quiet && *status > 128)
		fprintf(stderr,
			"uie: %u request(s) to make anonymous memory executable were refused: "
			"no JIT rule names the program (uie run -v names them; uie ref scan --jit "
			"PROGRAM adds one)\n",
			s->anon_quiet);
	if (sigfd >= 0)
		close(sigfd);
	sigprocmask(SIG_SETMASK, &old, NULL);
	begun = uie_phase_begin(&s->phases);
	close(sp.pidfd);
	close(s->listener);
	uie_guest_fastpath_flush(s);
	uie_guest_disconnect(s);
	/*
	 * Last, with the fewest descriptors open: the releaser it starts holds a
	 * copy of each for a moment, and a seal's would keep its file system busy
	 * (umount: EBUSY) after we exited.
	 */
	uie_guest_seals_release(&s->seals);
	uie_guest_mounts_release(&s->mounts);
	uie_guest_fan_release(&s->fan);
	uie_phase_end(&s->phases, UIE_PHASE_TEARDOWN, begun);
	if (s->phases.on)
		uie_phases_print(&s->phases, stderr);
	free_sup(s);
	return r;
}
