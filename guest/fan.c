/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The exec watch (root only): a fanotify group with FAN_OPEN_EXEC_PERM on
 * every file system mounted at start.  The kernel blocks each open for
 * execution (main executable, then the interpreter: #! program, PT_INTERP,
 * binfmt_misc handler) until we answer, and hands us the very file it
 * opened, so a path swapped after exec.c checked it cannot slip through:
 * this check is authoritative for files on watched file systems.  exec.c
 * has already asked the monitor about the files it found by path; an open
 * of one of those, unchanged (same identity, ctime included), is allowed
 * without a second request, anything else is asked about here.
 *
 * The marks are system-wide; events from threads that have no pending
 * execve of the supervised tree (exec.c registers each one before it lets
 * the call continue) are answered FAN_ALLOW at once: we supervise only our
 * tree.  Every execve of the tree is registered first, because the filter
 * sends execve and execveat to exec.c without exception.  So an entry
 * must last as long as its execve can still open files, however long the
 * kernel takes to get there (a root of the tree can hold an exec open with
 * a fanotify group of its own, served before ours, and start any number of
 * other execves meanwhile): it ends when its thread makes its next trapped
 * call (the execve is over), when the thread is gone (the entry keeps the
 * caller's pidfd, so a later thread with the same id is not taken for it),
 * or when room is needed and the thread is in a system call other than
 * execve.  When no entry can be given up, the new execve is refused.  A
 * refusal here fails the execve with EPERM (FAN_DENY_ERRNO cannot carry
 * EACCES), which only happens when the file changed after exec.c's check.
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/fanotify.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <unistd.h>

#include "ask.h"
#include "fan.h"
#include "mountinfo.h"
#include "rawsys.h"
#include "sup.h"
#include "uie/err.h"
#include "uie/sys.h"
#include "writewatch.h"

/* The mount point of a mountinfo line. */
static int mount_point(const char *line, char *out, size_t cap)
{
	const char *p;
	size_t n;
	int r = uie_guest_mountinfo_field(line, UIE_MI_POINT, &p, &n);

	return r == UIE_OK ? uie_guest_mountinfo_unescape(p, n, out, cap) : r;
}

static void mark(struct uie_fan *f, const char *mp)
{
	struct stat st;

	if (stat(mp, &st) != 0 || uie_guest_fan_covers(f, st.st_dev) || f->ndevs == UIE_FAN_MAX_DEVS)
		return;
	/* Pseudo file systems refuse the mark; their files are checked by exec.c. */
	if (fanotify_mark(f->fd, FAN_MARK_ADD | FAN_MARK_FILESYSTEM, FAN_OPEN_EXEC_PERM, AT_FDCWD, mp) != 0)
		return;
	f->devs[f->ndevs++] = st.st_dev;
}

int uie_guest_fan_init(struct uie_fan *fan)
{
	char *line = NULL, mp[4096];
	size_t cap = 0;
	FILE *f;

	fan->fd = fanotify_init(FAN_CLASS_CONTENT | FAN_CLOEXEC | FAN_NONBLOCK | FAN_REPORT_TID,
				O_RDONLY | O_LARGEFILE | O_CLOEXEC);
	if (fan->fd < 0)
		return UIE_E_SYS;
	f = fopen("/proc/self/mountinfo", "re");
	if (!f) {
		close(fan->fd);
		fan->fd = -1;
		return UIE_E_SYS;
	}
	while (getline(&line, &cap, f) > 0)
		if (mount_point(line, mp, sizeof(mp)) == UIE_OK)
			mark(fan, mp);
	free(line);
	fclose(f);
	return UIE_OK;
}

/*
 * Releasing a fanotify group waits for the kernel's mark reaper to pass an
 * SRCU grace period (fsnotify_destroy_group: milliseconds, most of what
 * `uie run` cost on top of the program before).  The marks are removed
 * first, which does not wait, so no exec anywhere can queue an event for a
 * group that nobody reads any more; then a child that we never wait for
 * holds the last reference and drops it, with every other descriptor
 * closed first so that nobody waiting on our pipes waits for it.  The
 * child drops it only once our own copy is closed (the end of a pipe that
 * we close after the group): a child that ran first and closed first would
 * leave the last close, and the wait, to us.  Without a child (clone
 * failed, or the marks could not be removed) we wait.
 *
 * The child shares our memory (CLONE_VM), so that making it copies no page
 * tables and leaves none of our pages copy-on-write: on the hosts measured
 * a fork and its faults cost more than the rest of the teardown
 * (docs/PERFORMANCE.md).  It makes only raw system calls (rawsys.h) on a
 * stack of its own, which stays mapped until we exit, and reads nothing of
 * ours but the descriptor numbers it was given.
 */
#define RELEASER_STACK ((size_t)16 * 1024)

struct releaser {
	int fan, ours_closed;
};

static int releaser(void *arg)
{
	const struct releaser *r = arg;
	int lo = r->fan < r->ours_closed ? r->fan : r->ours_closed;
	int hi = r->fan < r->ours_closed ? r->ours_closed : r->fan;
	char c;

	if (lo > 0)
		uie_raw(__NR_close_range, 0u, (unsigned)lo - 1, 0u);
	if (hi > lo + 1)
		uie_raw(__NR_close_range, (unsigned)lo + 1, (unsigned)hi - 1, 0u);
	uie_raw(__NR_close_range, (unsigned)hi + 1, ~0u, 0u);
	while (uie_raw(__NR_read, r->ours_closed, &c, 1) == -EINTR)
		;
	uie_raw(__NR_close, r->fan);
	uie_raw(__NR_exit, 0);
	return 0;
}

static void end_entry(struct uie_pending_exec *pe)
{
	if (pe->tid != 0)
		close(pe->pidfd);
	pe->tid = 0;
}

void uie_guest_fan_release(struct uie_fan *f)
{
	int ours_closed[2] = { -1, -1 };
	char *stack = MAP_FAILED;

	for (unsigned i = 0; i < UIE_FAN_MAX_PENDING; i++)
		end_entry(&f->pending[i]);
	if (f->fd < 0)
		return;
	if (fanotify_mark(f->fd, FAN_MARK_FLUSH | FAN_MARK_FILESYSTEM, 0, AT_FDCWD, NULL) == 0 &&
	    pipe2(ours_closed, O_CLOEXEC) == 0)
		stack = mmap(NULL, RELEASER_STACK, PROT_READ | PROT_WRITE,
			     MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
	if (stack != MAP_FAILED) {
		/* Its arguments at the bottom of its own stack: nothing of ours that changes. */
		struct releaser *r = (struct releaser *)(void *)stack;

		*r = (struct releaser){ .fan = f->fd, .ours_closed = ours_closed[0] };
		if (clone(releaser, stack + RELEASER_STACK, CLONE_VM | SIGCHLD, r) < 0)
			munmap(stack, RELEASER_STACK);
	}
	close(f->fd);
	f->fd = -1;
	for (int i = 0; i < 2; i++)
		if (ours_closed[i] >= 0)
			close(ours_closed[i]);
}

bool uie_guest_fan_covers(const struct uie_fan *f, dev_t dev)
{
	if (f->fd < 0)
		return false;
	for (unsigned i = 0; i < f->ndevs; i++)
		if (f->devs[i] == dev)
			return true;
	return false;
}

/* Whether pe's thread still exists: the one exec.c saw, not a later thread with its id. */
static bool thread_alive(const struct uie_pending_exec *pe)
{
	if (syscall(SYS_pidfd_send_signal, pe->pidfd, 0, NULL, 0) != 0)
		return false;
	return pe->thread_pidfd || syscall(SYS_tgkill, pe->process, pe->tid, 0) == 0;
}

/*
 * The pending execve of thread tid.  An entry whose thread is gone is a
 * stale one: the event comes from a later thread that reuses the id.
 */
static struct uie_pending_exec *pending(struct uie_fan *f, pid_t tid)
{
	for (unsigned i = 0; i < UIE_FAN_MAX_PENDING; i++) {
		struct uie_pending_exec *pe = &f->pending[i];

		if (pe->tid == tid) {
			if (thread_alive(pe))
				return pe;
			end_entry(pe);
		}
	}
	return NULL;
}

static const long exec_calls[] = { __NR_execve, __NR_execveat };

/* tid's program now (/proc/TID/exe), in *dev and *ino; false when it cannot be read. */
static bool program_of(pid_t tid, uint64_t *dev, uint64_t *ino)
{
	char link[64];
	struct stat st;

	snprintf(link, sizeof(link), "/proc/%d/exe", (int)tid);
	if (stat(link, &st) != 0)
		return false;
	*dev = st.st_dev;
	*ino = st.st_ino;
	return true;
}

/*
 * Whether pe's thread has left its execve, or is past the execve's point
 * of no return: the kernel opens the program and its interpreters before
 * it replaces the process's memory and program, so once /proc shows
 * another program the execve raises no event any more.  A thread on a CPU
 * shows only "running" in /proc/TID/syscall; the program tells whether it
 * still is in its execve.  One that runs the same program again is taken
 * to be in it.
 */
static bool past_opens(const struct uie_pending_exec *pe)
{
	uint64_t dev, ino;

	if (!uie_guest_maybe_in_call(pe->tid, exec_calls, sizeof(exec_calls) / sizeof(exec_calls[0]),
				     pe->call))
		return true;
	return pe->exe_ino != 0 && program_of(pe->tid, &dev, &ino) &&
	       (dev != pe->exe_dev || ino != pe->exe_ino);
}

/* A slot for a new entry: free, else one whose thread is gone, else one whose thread is past its opens. */
static struct uie_pending_exec *room(struct uie_fan *f)
{
	for (unsigned i = 0; i < UIE_FAN_MAX_PENDING; i++)
		if (f->pending[i].tid == 0)
			return &f->pending[i];
	for (unsigned i = 0; i < UIE_FAN_MAX_PENDING; i++)
		if (!thread_alive(&f->pending[i]))
			return &f->pending[i];
	for (unsigned i = 0; i < UIE_FAN_MAX_PENDING; i++)
		if (past_opens(&f->pending[i]))
			return &f->pending[i];
	return NULL;
}

bool uie_guest_fan_expect(struct uie_fan *f, struct uie_call *c, const struct uie_exec_ids *allowed)
{
	pid_t tid = c->n->pid;
	struct uie_pending_exec *pe = NULL;
	uint64_t exe_dev = 0, exe_ino = 0;

	program_of(tid, &exe_dev, &exe_ino);
	for (unsigned i = 0; i < UIE_FAN_MAX_PENDING && !pe; i++)
		if (f->pending[i].tid == tid)
			pe = &f->pending[i];
	if (!pe && !(pe = room(f)))
		return false;
	end_entry(pe);
	*pe = (struct uie_pending_exec){ .tid = tid,
					 .process = c->tgid,
					 .pidfd = c->pidfd,
					 .thread_pidfd = c->thread_pidfd,
					 .exe_dev = exe_dev,
					 .exe_ino = exe_ino,
					 .call = uie_guest_call_key(c->n),
					 .opens = 0,
					 .allowed = *allowed };
	c->pidfd = -1;
	return true;
}

void uie_guest_fan_retire(struct uie_fan *f, pid_t tid)
{
	for (unsigned i = 0; i < UIE_FAN_MAX_PENDING; i++)
		if (f->pending[i].tid == tid)
			end_entry(&f->pending[i]);
}

bool uie_guest_fan_exec_unfinished(struct uie_fan *f, pid_t tgid)
{
	for (unsigned i = 0; i < UIE_FAN_MAX_PENDING; i++) {
		struct uie_pending_exec *pe = &f->pending[i];
		struct uie_task t;

		if (pe->tid == 0)
			continue;
		if (!thread_alive(pe)) {
			end_entry(pe);
			continue;
		}
		/* Read here, not at every execve: a thread pidfd's process is not in the call. */
		if (pe->process == 0) {
			if (uie_guest_task_info(pe->tid, pe->pidfd, &t) != UIE_OK)
				return true; /* alive but unreadable: it may be of tgid */
			pe->process = t.tgid;
		}
		if (pe->process == tgid && !past_opens(pe))
			return true;
	}
	return false;
}

/* Whether allowed file i of pe is its main program (else one of its interpreters). */
static bool main_slot(const struct uie_pending_exec *pe, unsigned i)
{
	return i == 0 && pe->allowed.main_first;
}

static uint32_t decide(struct uie_sup *s, const struct fanotify_event_metadata *m)
{
	struct uie_pending_exec *pe = pending(&s->fan, m->pid);
	char what[512];
	struct uie_grant g;
	struct uie_file_id id;
	struct stat st;
	uint8_t role;

	if (!pe || !(m->mask & FAN_OPEN_EXEC_PERM))
		return FAN_ALLOW; /* not our tree */
	/* The main program's open comes first, unless its file system has no mark. */
	role = pe->opens++ == 0 && pe->allowed.main_watched ? UIE_ROLE_MAIN : UIE_ROLE_INTERP;
	if (m->fd < 0 || fstat(m->fd, &st) != 0)
		return FAN_DENY;
	id = uie_file_id_of(&st);
	/*
	 * The very file exec.c had allowed, unchanged, in its role: no second
	 * request.  An open in the role MAIN (above) must be the main program,
	 * one in the role INTERP any of its interpreters.  (The main path
	 * swapped to the loader must not run the loader as the program without
	 * its own request.)
	 */
	for (unsigned i = 0; i < pe->allowed.n; i++)
		if (main_slot(pe, i) == (role == UIE_ROLE_MAIN) &&
		    !memcmp(&pe->allowed.id[i], &id, sizeof(id)))
			return FAN_ALLOW;
	/*
	 * overlayfs opens the layer's file for exec in its turn, right after
	 * the overlay file: same size and times on another device.  It is still
	 * asked about, in the role of the file exec.c found (the first is the
	 * main program), and is not counted as an interpreter.
	 */
	for (unsigned i = 0; i < pe->allowed.n; i++)
		if (pe->allowed.id[i].dev != id.dev && pe->allowed.id[i].size == id.size &&
		    pe->allowed.id[i].mtime_ns == id.mtime_ns && pe->allowed.id[i].ctime_ns == id.ctime_ns) {
			role = main_slot(pe, i) ? UIE_ROLE_MAIN : UIE_ROLE_INTERP;
			pe->opens--;
			break;
		}
	g = (struct uie_grant){ .event = UIE_EV_EXECVE, .pid = m->pid, .call = pe->call };
	if (uie_sys_fileless(m->fd, &st)) {
		/* Asked about as anonymous memory, so the name must be taken here. */
		uie_sys_fd_name(m->fd, what, sizeof(what));
		g.role = UIE_ROLE_ANON;
		g.what = what;
	} else {
		g.role = uie_guest_exec_role(m->fd, role);
		g.objfd = m->fd;
		g.st = st;
		g.length = (uint64_t)id.size;
	}
	return uie_guest_grant(s, &g) ? FAN_ALLOW : FAN_DENY;
}

static void answer(const struct uie_fan *f, int fd, uint32_t verdict)
{
	/* A refusal here fails the execve with EPERM: FAN_DENY_ERRNO cannot say EACCES. */
	struct fanotify_response resp = { .fd = fd, .response = verdict };

	if (write(f->fd, &resp, sizeof(resp)) != (ssize_t)sizeof(resp))
		fprintf(stderr, "uie: cannot answer an exec permission event: %s\n", strerror(errno));
}

/* Decides and answers one exec permission event, timed as a notification (--timing). */
static void answer_timed(struct uie_sup *s, const struct fanotify_event_metadata *m)
{
	struct uie_grant_clock clk;

	uie_grant_begin(&s->phases, &clk);
	answer(&s->fan, m->fd, decide(s, m));
	uie_grant_end(&s->phases, UIE_GK_EXEC_EVENT);
	uie_grant_resume(&s->phases, &clk);
}

void uie_guest_fan_handle(struct uie_sup *s)
{
	union {
		struct fanotify_event_metadata m;
		char b[8192];
	} buf;
	const struct fanotify_event_metadata *m;
	ssize_t len = read(s->fan.fd, buf.b, sizeof(buf.b));

	if (len <= 0)
		return;
	for (m = &buf.m; FAN_EVENT_OK(m, len); m = FAN_EVENT_NEXT(m, len)) {
		if (m->vers != FANOTIFY_METADATA_VERSION) {
			fprintf(stderr, "uie: fanotify metadata version %u not understood\n", m->vers);
			break;
		}
		if (m->fd >= 0 && (m->mask & FAN_MODIFY)) /* a notification: nothing to answer */
			uie_guest_watch_event(s, m);
		else if (m->fd >= 0)
			answer_timed(s, m);
		if (m->fd >= 0)
			close(m->fd);
	}
}
