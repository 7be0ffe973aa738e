/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Sealing granted files against writes while they are mapped executable
 * (docs/THREAT-MODEL.md, "Writes to code").  For every file the monitor is
 * asked to grant, the supervisor holds a read lease (F_SETLEASE F_RDLCK,
 * root or the file's owner) on its own read-only open of it.  The kernel
 * then makes every open for writing and every truncate of the file, by
 * any process on the machine, wait until we release the lease, and tells
 * us first (the realtime signal of uie_guest_seal_signal, with the
 * descriptor, read from the loop's signalfd).  Before releasing we have
 * the monitor log a WRITE_VIOLATION if a process of the tree still maps
 * the file executable, so the record exists before any byte changes; in
 * ENFORCE (or when the monitor cannot be told) those processes are killed
 * and waited for first.  A lease cannot be taken while a writer exists:
 * such a grant is refused as before (a write descriptor, or a shared
 * writable mapping made before the grant).  A file that cannot be leased
 * at all is asked about with UIE_COND_UNSEALED, which the monitor refuses
 * in ENFORCE; its entry is kept without a lease, for the grantees the
 * write watch asks about (uie_guest_seal_unfinished).  Immutable files
 * (fstrust.h) are not sealed: nothing can write them.  Renaming a new file
 * over a sealed one (dpkg) breaks no lease: the mapped inode does not
 * change.  A grant of an overlayfs file maps the file of a layer under it,
 * which can be written beside the overlay: that file is sealed too
 * (layer.h), the one of each grant (a copy-up makes a new one).  Seals of
 * files no process maps executable any more are dropped when the tree is
 * idle.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/fanotify.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "connection.h"
#include "describe.h"
#include "freeze.h"
#include "granted.h"
#include "layer.h"
#include "maps.h"
#include "seal.h"
#include "sup.h"
#include "tmem.h"
#include "uie/err.h"
#include "uie/sys.h"
#include "writewatch.h"

#define SWEEP_MS 2000 /* seals of unmapped files are dropped this long after, when idle */
/* A running thread stops for a look at its next return to user space; serving nothing meanwhile. */
#define LOOK_MS 200
/*
 * A sweep stops running threads for a look only for this long, all seals
 * together; the grants it did not look at count as unfinished until a later
 * sweep.  Threads that are slow to stop (many at the lowest priority) would
 * otherwise hold every request of the tree for seconds.
 */
#define SWEEP_LOOK_MS 200
#define KILL_WAIT_MS 2000
#define MAX_MAPPERS 64

int uie_guest_seal_signal(void)
{
	return SIGRTMIN + 1;
}

static struct uie_seal *find(struct uie_seals *sl, uint64_t dev, uint64_t ino)
{
	for (unsigned i = 0; i < sl->n; i++)
		if (sl->e[i].dev == dev && sl->e[i].ino == ino)
			return &sl->e[i];
	return NULL;
}

/* Whether a mapping of (dev, ino) maps e's file: the file, or a layer's under it (before 6.8). */
static bool maps_seal(const struct uie_seal *e, uint64_t dev, uint64_t ino)
{
	if (e->dev == dev && e->ino == ino)
		return true;
	for (unsigned i = 0; i < e->nlayers; i++)
		if (e->layer[i].dev == dev && e->layer[i].ino == ino)
			return true;
	return false;
}

/* Whether a lease of e has a break pending (a writer waits). */
static bool break_pending(const struct uie_seal *e)
{
	if (e->unsealed)
		return false;
	if (fcntl(e->fd, F_GETLEASE) != F_RDLCK)
		return true;
	for (unsigned i = 0; i < e->nlayers; i++)
		if (fcntl(e->layer[i].fd, F_GETLEASE) != F_RDLCK)
			return true;
	return false;
}

/* Takes the read lease on our own open fd; -1 with errno (EAGAIN: a writer exists). */
static int lease(int fd)
{
	if (fcntl(fd, F_SETSIG, uie_guest_seal_signal()) != 0 || fcntl(fd, F_SETLEASE, F_RDLCK) != 0)
		return -1;
	return 0;
}

static void unlease(int fd)
{
	fcntl(fd, F_SETLEASE, F_UNLCK);
	close(fd);
}

/* Releases the leases (a waiting writer proceeds) and forgets the seal. */
static void release(struct uie_seals *sl, struct uie_seal *e)
{
	for (unsigned i = 0; i < e->nlayers; i++) {
		if (e->layer[i].page)
			munmap(e->layer[i].page, 1);
		unlease(e->layer[i].fd);
	}
	if (e->unsealed)
		close(e->fd);
	else
		unlease(e->fd);
	*e = sl->e[--sl->n];
}

/*
 * Seals the layer's file under e's overlayfs file (objfd: its grant's
 * open), unless one of e's layers is that file already (the same first
 * page, read from a mapping of it we keep: a mapping of objfd made now is
 * all the grant costs then): the lease is taken before the grant, so the
 * file the kernel maps is sealed however long its call takes.
 */
static int seal_layer(struct uie_sup *s, struct uie_seal *e, int objfd)
{
	struct stat l;
	uint64_t want;
	int fd, err;

	if (s->seals.pagemap < 0 && (s->seals.pagemap = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC)) < 0)
		return UIE_SEAL_NONE;
	if (!(want = uie_guest_first_frame(s->seals.pagemap, objfd))) {
		errno = ENODATA;
		return UIE_SEAL_NONE;
	}
	for (unsigned i = 0; i < e->nlayers; i++)
		if (e->layer[i].page && uie_guest_frame_at(s->seals.pagemap, e->layer[i].page) == want)
			return UIE_SEAL_HELD;
	if ((fd = uie_guest_layer_open(&s->mounts, s->seals.pagemap, objfd, want)) < 0)
		return UIE_SEAL_NONE;
	if (fstat(fd, &l) != 0)
		goto none;
	for (unsigned i = 0; i < e->nlayers; i++)
		if (e->layer[i].dev == (uint64_t)l.st_dev && e->layer[i].ino == (uint64_t)l.st_ino) {
			/* Its page was reclaimed (or read again): ours mapped afresh. */
			if (e->layer[i].page)
				munmap(e->layer[i].page, 1);
			e->layer[i].page = uie_guest_first_page_map(fd);
			close(fd);
			return UIE_SEAL_HELD;
		}
	if (e->nlayers == UIE_SEAL_LAYERS) {
		errno = ENOLCK;
		goto none;
	}
	if (lease(fd) != 0) {
		if (errno == EAGAIN) {
			close(fd);
			errno = EAGAIN;
			return UIE_SEAL_WRITERS;
		}
		goto none;
	}
	e->layer[e->nlayers++] = (struct uie_layer){
		.dev = l.st_dev, .ino = l.st_ino, .fd = fd, .page = uie_guest_first_page_map(fd)
	};
	return UIE_SEAL_HELD;
none:
	err = errno;
	close(fd);
	errno = err;
	return UIE_SEAL_NONE;
}

/* The calls whose grants seal a file. */
static const long grant_calls[] = { __NR_mmap,  __NR_mprotect, __NR_pkey_mprotect, __NR_mremap,
				    __NR_shmat, __NR_execve,   __NR_execveat };

static bool thread_maps(const struct uie_seal *e, pid_t tid);

/*
 * Drops e's grantees whose calls are over; true when one may be unfinished.
 * A grant may not be in its process's maps yet: the kernel runs the call
 * after our answer, a single-threaded caller is not stopped, and another
 * fanotify group (pre-content events, Linux 6.14) can hold an mmap in the
 * kernel for as long as it likes.  So a grantee's process counts as a
 * mapper for as long as the grantee may still be in that call, however long
 * ago it asked, and whatever later grants of the file to others did.  Its
 * call is told by its arguments: the same thread in a later call (or a
 * later thread with the same id) is not in the granting one.  Running
 * threads are stopped for a look (uie_guest_in_calls_looked, all at once)
 * until look_until (uie_now_ms; 0: no look), at most LOOK_MS; stopped at
 * the end of its granting call a thread still counts (the call's mapping,
 * if any, is in the maps by then).  To make room (inside a grant, where
 * running threads are not stopped), a grantee also goes when its process
 * maps the file executable already: a running thread may be just finishing
 * its call, but then the mapping it had stays until that call is over, and
 * the file's mappers are found from the maps at a break.
 */
static bool prune(struct uie_sup *s, struct uie_seal *e, bool room, uint64_t look_until)
{
	const unsigned ncalls = sizeof(grant_calls) / sizeof(grant_calls[0]);
	pid_t tids[UIE_SEAL_GRANTEES];
	uint32_t calls[UIE_SEAL_GRANTEES];
	bool in_call[UIE_SEAL_GRANTEES];
	uint64_t now = uie_now_ms();
	unsigned k = 0;

	for (unsigned i = 0; i < e->ngrantees; i++) {
		tids[i] = e->grantee[i].tid;
		calls[i] = e->grantee[i].call;
	}
	if (!room && now < look_until)
		uie_guest_in_calls_looked(&s->freezer, tids, calls, e->ngrantees, grant_calls, ncalls,
					  look_until - now < LOOK_MS ? (unsigned)(look_until - now) : LOOK_MS,
					  in_call);
	else
		for (unsigned i = 0; i < e->ngrantees; i++)
			in_call[i] = uie_guest_maybe_in_call(tids[i], grant_calls, ncalls, calls[i]);
	for (unsigned i = 0; i < e->ngrantees; i++)
		if (in_call[i] && !(room && thread_maps(e, tids[i])))
			e->grantee[k++] = e->grantee[i];
	e->ngrantees = k;
	return k > 0;
}

/*
 * Adds pid's grant in call to e's grantees; false when all
 * UIE_SEAL_GRANTEES may still be in their calls.  A thread is in one call
 * at a time: a new grant to it ends the call of its earlier one.
 */
static bool add_grantee(struct uie_sup *s, struct uie_seal *e, pid_t pid, uint32_t call)
{
	for (unsigned i = 0; i < e->ngrantees; i++)
		if (e->grantee[i].tid == pid) {
			e->grantee[i].call = call;
			return true;
		}
	if (e->ngrantees == UIE_SEAL_GRANTEES)
		prune(s, e, true, 0);
	if (e->ngrantees == UIE_SEAL_GRANTEES)
		return false;
	e->grantee[e->ngrantees++] = (struct uie_grantee){ pid, call };
	return true;
}

int uie_guest_seal(struct uie_sup *s, int objfd, const struct stat *st, bool overlay, pid_t pid,
		   uint32_t call, bool *fresh)
{
	struct uie_seal *e;
	bool unsealed = false;
	int fd, err = 0, r;

	*fresh = false;
	if ((e = find(&s->seals, st->st_dev, st->st_ino)) != NULL) {
		if (break_pending(e))
			return UIE_SEAL_WRITERS; /* a writer waits */
		if (!add_grantee(s, e, pid, call))
			return UIE_SEAL_CROWDED;
		if (e->unsealed)
			return UIE_SEAL_NONE;
		return overlay ? seal_layer(s, e, objfd) : UIE_SEAL_HELD;
	}
	if (s->seals.n == UIE_SEALS_MAX) {
		errno = ENOLCK;
		return UIE_SEAL_NONE;
	}
	/* Our own read-only open: the lease belongs to it, not to the target's descriptor. */
	fd = uie_sys_reopen_read(objfd);
	if (fd < 0)
		return UIE_SEAL_NONE;
	if (lease(fd) != 0) {
		err = errno;
		if (err == EAGAIN) {
			close(fd);
			errno = err;
			return UIE_SEAL_WRITERS;
		}
		unsealed = true; /* kept for its grantees (uie_guest_seal_unfinished) */
	}
	/* The first sweep (a walk of every process's maps) comes SWEEP_MS after the first seal, not
	 * at once: a short program is over before it, and start-up does not wait for the walk. */
	if (s->seals.n == 0)
		s->seals.swept_ms = uie_now_ms();
	e = &s->seals.e[s->seals.n++];
	*e = (struct uie_seal){ .dev = st->st_dev,
				.ino = st->st_ino,
				.fd = fd,
				.unsealed = unsealed,
				.ngrantees = 1,
				.grantee = { { pid, call } } };
	*fresh = true;
	if (unsealed) {
		errno = err;
		return UIE_SEAL_NONE;
	}
	if (!overlay || (r = seal_layer(s, e, objfd)) == UIE_SEAL_HELD)
		return UIE_SEAL_HELD;
	err = errno;
	if (r == UIE_SEAL_WRITERS) { /* refused as for the file itself: nothing kept */
		release(&s->seals, e);
		*fresh = false;
	} else { /* kept unsealed, as a file that cannot be leased */
		fcntl(e->fd, F_SETLEASE, F_UNLCK);
		e->unsealed = true;
	}
	errno = err;
	return r;
}

bool uie_guest_seal_remember_layers(struct uie_sup *s, uint64_t dev, uint64_t ino)
{
	struct uie_seal *e = find(&s->seals, dev, ino);

	for (unsigned i = 0; e && i < e->nlayers; i++)
		uie_guest_remember(&s->granted, e->layer[i].dev, e->layer[i].ino);
	return e && e->nlayers > 0;
}

void uie_guest_unseal(struct uie_seals *sl, uint64_t dev, uint64_t ino)
{
	struct uie_seal *e = find(sl, dev, ino);

	if (e)
		release(sl, e);
}

void uie_guest_seals_release(struct uie_seals *sl)
{
	while (sl->n > 0)
		release(sl, &sl->e[sl->n - 1]);
	if (sl->pagemap >= 0)
		close(sl->pagemap);
	sl->pagemap = -1;
}

/* Whether pid descends from the tree's first process (its parents read from /proc). */
static bool in_tree(const struct uie_sup *s, pid_t pid)
{
	for (int depth = 0; pid > 1 && depth < 256; depth++) {
		if (pid == s->root)
			return true;
		pid = uie_guest_parent_of(pid);
	}
	return false;
}

struct mappers {
	const struct uie_seal *e;
	pid_t pid[MAX_MAPPERS];
	unsigned n;
	bool found; /* the current process maps it */
};

static int maps_it(void *ctx, const struct uie_map *m)
{
	struct mappers *mp = ctx;

	if (m->x && !m->special && maps_seal(mp->e, makedev(m->dev_major, m->dev_minor), m->ino)) {
		mp->found = true;
		return UIE_E_STATE; /* found: stop the walk */
	}
	return UIE_OK;
}

/* Adds pid to mp's processes once (the first MAX_MAPPERS). */
static void add_mapper(struct mappers *mp, pid_t pid)
{
	for (unsigned i = 0; i < mp->n; i++)
		if (mp->pid[i] == pid)
			return;
	if (mp->n < MAX_MAPPERS)
		mp->pid[mp->n++] = pid;
}

/* Adds pid if it maps e's file executable. */
static int mapper_of(void *ctx, pid_t pid)
{
	struct mappers *mp = ctx;

	if (mp->n == MAX_MAPPERS)
		return UIE_E_STATE; /* full: stop the walk */
	mp->found = false;
	uie_guest_maps_each(pid, maps_it, mp);
	if (mp->found)
		add_mapper(mp, pid);
	return UIE_OK;
}

/* Whether the process of thread tid maps e's file executable. */
static bool thread_maps(const struct uie_seal *e, pid_t tid)
{
	struct mappers mp = { .e = e };
	struct uie_task t;

	if (uie_guest_task_info(tid, -1, &t) != UIE_OK)
		return false;
	uie_guest_maps_each(t.tgid, maps_it, &mp);
	return mp.found;
}

/* The processes of e's grants that may not be in their maps yet, in mp (emptied first). */
static void in_flight(struct uie_sup *s, struct uie_seal *e, struct mappers *mp)
{
	struct uie_task t;

	memset(mp, 0, sizeof(*mp));
	mp->e = e;
	prune(s, e, false, UINT64_MAX); /* a write waits: every running grantee looked at */
	for (unsigned g = 0; g < e->ngrantees; g++)
		if (uie_guest_task_info(e->grantee[g].tid, -1, &t) == UIE_OK)
			add_mapper(mp, t.tgid);
}

/*
 * The processes that map e's file executable or may be about to: those of
 * its unfinished grants first, then those whose maps show it.  In this
 * order a grant whose call ends in between has its mapping in the maps by
 * the time they are read; the other way round it could be in neither.
 */
static void find_mappers(struct uie_sup *s, struct uie_seal *e, struct mappers *mp)
{
	in_flight(s, e, mp);
	uie_guest_each_process(mapper_of, mp);
}

pid_t uie_guest_seal_unfinished(struct uie_sup *s, uint64_t dev, uint64_t ino)
{
	struct uie_seal *e = find(&s->seals, dev, ino);
	struct mappers mp;

	if (!e || !e->unsealed)
		return 0;
	in_flight(s, e, &mp);
	return mp.n ? mp.pid[0] : 0;
}

/* The monitor's mode says ENFORCE, or it cannot be asked (fail closed). */
static bool enforcing(struct uie_sup *s)
{
	struct uie_status st;

	uie_guest_connect(s);
	return s->conn.fd < 0 || uie_bridge_status(s->conn.fd, &st) != UIE_OK || st.mode == UIE_MODE_ENFORCE;
}

/*
 * Kills each process of the tree and waits until it is gone (its mappings
 * with it).  One whose parent exited is no longer found as the tree's
 * (docs/THREAT-MODEL.md): its record exists all the same.
 */
static void kill_tree(const struct uie_sup *s, const struct mappers *mp, const char *name)
{
	int fds[MAX_MAPPERS];

	for (unsigned i = 0; i < mp->n; i++) {
		fds[i] = in_tree(s, mp->pid[i]) ? (int)syscall(SYS_pidfd_open, mp->pid[i], 0) : -1;
		if (fds[i] >= 0 && syscall(SYS_pidfd_send_signal, fds[i], SIGKILL, NULL, 0) == 0)
			fprintf(stderr,
				"uie: killed pid %d: %s, which it maps executable, is being "
				"opened for writing\n",
				(int)mp->pid[i], name);
	}
	for (unsigned i = 0; i < mp->n; i++) {
		struct pollfd p = { .fd = fds[i], .events = POLLIN };
		uint64_t start = uie_now_ms();

		while (fds[i] >= 0 && poll(&p, 1, KILL_WAIT_MS) < 0 && errno == EINTR &&
		       uie_now_ms() - start < KILL_WAIT_MS)
			;
		if (fds[i] >= 0)
			close(fds[i]);
	}
}

/*
 * A writer waits for e's lease: logged (and in ENFORCE the tree's mappers
 * killed) before the lease goes, then the writer proceeds.  The approval
 * is withdrawn either way: the next grant measures the new bytes.
 */
static void broken(struct uie_sup *s, struct uie_seal *e)
{
	char name[512];
	struct mappers mp;

	uie_guest_forget(&s->granted, e->dev, e->ino);
	for (unsigned i = 0; i < e->nlayers; i++)
		uie_guest_forget(&s->granted, e->layer[i].dev, e->layer[i].ino);
	if (s->fan.fd >= 0) /* the write that follows is this one: no second report */
		fanotify_mark(s->fan.fd, FAN_MARK_REMOVE, FAN_MODIFY, e->fd, NULL);
	find_mappers(s, e, &mp);
	if (mp.n > 0) {
		uie_guest_describe(NULL, e->fd, name, sizeof(name));
		if (uie_guest_report_violation(s, 0, e->fd, mp.pid[0]) != UIE_OK || enforcing(s))
			kill_tree(s, &mp, name);
	}
	release(&s->seals, e);
}

/* Whether fd holds the lease of one of e's layers. */
static bool holds_layer_fd(const struct uie_seal *e, int fd)
{
	for (unsigned i = 0; i < e->nlayers; i++)
		if (e->layer[i].fd == fd)
			return true;
	return false;
}

void uie_guest_seal_broken(struct uie_sup *s, int fd)
{
	for (unsigned i = s->seals.n; i-- > 0;) {
		struct uie_seal *e = &s->seals.e[i];

		/*
		 * fd -1: the signal queue overflowed (SIGIO).  Either way only a lease
		 * with a break pending counts: a signal queued for a seal released
		 * since may name a descriptor number a new seal now uses.
		 */
		if ((fd < 0 || e->fd == fd || holds_layer_fd(e, fd)) && break_pending(e))
			broken(s, e);
	}
}

int uie_guest_seal_idle_ms(const struct uie_seals *sl)
{
	uint64_t now = uie_now_ms(), due = sl->swept_ms + SWEEP_MS;

	if (sl->n == 0)
		return -1;
	return due > now ? (int)(due - now) : 0;
}

struct sweep {
	const struct uie_seals *sl;
	bool live[UIE_SEALS_MAX];
};

static int mark_live(void *ctx, const struct uie_map *m)
{
	struct sweep *sw = ctx;

	if (!m->x || m->special)
		return UIE_OK;
	for (unsigned i = 0; i < sw->sl->n; i++)
		if (maps_seal(&sw->sl->e[i], makedev(m->dev_major, m->dev_minor), m->ino))
			sw->live[i] = true;
	return UIE_OK;
}

static int live_in(void *ctx, pid_t pid)
{
	uie_guest_maps_each(pid, mark_live, ctx);
	return UIE_OK;
}

void uie_guest_seal_sweep(struct uie_sup *s)
{
	struct sweep sw = { .sl = &s->seals };
	uint64_t look_until;

	if (uie_guest_seal_idle_ms(&s->seals) != 0)
		return;
	s->seals.swept_ms = uie_now_ms();
	look_until = s->seals.swept_ms + SWEEP_LOOK_MS;
	/* Unfinished grants before the maps, as at a break (find_mappers). */
	for (unsigned i = 0; i < s->seals.n; i++)
		sw.live[i] = prune(s, &s->seals.e[i], false, look_until);
	/* Any process, not only the tree's: one whose parent died is no longer found as ours. */
	uie_guest_each_process(live_in, &sw);
	for (unsigned i = s->seals.n; i-- > 0;)
		if (!sw.live[i]) {
			uie_guest_forget(&s->granted, s->seals.e[i].dev, s->seals.e[i].ino);
			release(&s->seals, &s->seals.e[i]);
		}
}
