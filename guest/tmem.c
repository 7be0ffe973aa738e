/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Reading the target: strings from its memory (process_vm_readv), files
 * opened the way the target names them (its cwd, its dirfd, its root).
 * Everything read here can change after it was read; the handlers treat
 * it as a hint to check, never as the authority (docs/THREAT-MODEL.md).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/kcmp.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include "tmem.h"
#include "uie/err.h"
#include "uie/measure.h"

/* PIDFD_GET_INFO (linux/pidfd.h of Linux 6.13; first version of the struct, 64 bytes). */
struct uie_pidfd_info {
	uint64_t mask, cgroupid;
	uint32_t pid, tgid, ppid, ruid, rgid, euid, egid, suid, sgid, fsuid, fsgid;
	int32_t exit_code;
};
#define UIE_PIDFD_GET_INFO _IOWR(0xFF, 11, struct uie_pidfd_info)
#define UIE_PIDFD_INFO_PID 1ull

int uie_guest_read_str(pid_t tid, uint64_t addr, char *buf, size_t cap)
{
	size_t got = 0;

	if (cap == 0)
		return UIE_E_INVAL;
	buf[0] = '\0';
	while (got < cap) {
		/* Never cross a page in one read: the next page may be unmapped. */
		size_t chunk = UIE_MEASURE_PAGE - (size_t)((addr + got) % UIE_MEASURE_PAGE);
		struct iovec l, r;
		ssize_t n;
		char *nul;

		if (chunk > cap - got)
			chunk = cap - got;
		l = (struct iovec){ buf + got, chunk };
		r = (struct iovec){ (void *)(uintptr_t)(addr + got), chunk };
		n = process_vm_readv(tid, &l, 1, &r, 1, 0);
		if (n <= 0)
			return UIE_E_SYS;
		nul = memchr(buf + got, '\0', (size_t)n);
		if (nul)
			return UIE_OK;
		got += (size_t)n;
	}
	buf[cap - 1] = '\0';
	return UIE_E_LIMIT; /* longer than PATH_MAX: the kernel refuses it too */
}

static int open_beneath(int base, const char *path, bool nofollow, uint64_t resolve, int *fd)
{
	struct open_how how = { .flags = O_RDONLY | O_CLOEXEC | (nofollow ? O_NOFOLLOW : 0),
				.resolve = resolve };
	long r = syscall(SYS_openat2, base, path, &how, sizeof(how));

	if (r < 0)
		return UIE_E_SYS;
	*fd = (int)r;
	return UIE_OK;
}

int uie_guest_call_getfd(const struct uie_call *c, int fd)
{
	int got = (int)syscall(SYS_pidfd_getfd, c->pidfd, fd, 0);

	if (got < 0 || c->thread_pidfd)
		return got;
	/*
	 * A process pidfd reads the thread-group leader's descriptor table; a
	 * thread may have a table of its own (unshare(CLONE_FILES)).  Keep the
	 * file only if the calling thread's fd names the same open file.
	 */
	if (syscall(SYS_kcmp, getpid(), c->n->pid, KCMP_FILE, got, fd) != 0) {
		fprintf(stderr, "uie: denied a call of pid %d: its fd %d is not the one its process holds\n",
			(int)c->n->pid, fd);
		close(got);
		errno = EACCES;
		return -1;
	}
	return got;
}

/* Opens path from tid's root directory (*root: opened here when -1, kept for the caller). */
static int open_in_root(pid_t tid, const char *path, bool nofollow, int *root, int *fd)
{
	char base[64];

	if (*root < 0) {
		snprintf(base, sizeof(base), "/proc/%d/root", (int)tid);
		if ((*root = open(base, O_PATH | O_DIRECTORY | O_CLOEXEC)) < 0)
			return UIE_E_SYS;
	}
	/* Absolute symlinks resolve against the target's root, as for the kernel.
	 * Magic links (/proc/.../fd/N reached through a symlink) fail with EXDEV:
	 * they would be resolved in the supervisor, so the call is refused. */
	return open_beneath(*root, path, nofollow, RESOLVE_IN_ROOT, fd);
}

int uie_guest_open_as(const struct uie_call *c, int dirfd, const char *path, bool nofollow, int *root,
		      int *fd)
{
	pid_t tid = c->n->pid;
	char base[64];
	int bfd, r;

	*fd = -1;
	if (path[0] == '/') {
		/* "self" would name the supervisor: name the target instead. */
		const char *rest = NULL;
		char proc[PATH_MAX];

		if (!strncmp(path, "/proc/self/", 11))
			rest = path + 11;
		else if (!strncmp(path, "/proc/thread-self/", 18))
			rest = path + 18;
		if (rest) {
			if ((size_t)snprintf(proc, sizeof(proc), "/proc/%d/%s", (int)tid, rest) >=
			    sizeof(proc)) {
				errno = ENAMETOOLONG;
				return UIE_E_LIMIT;
			}
			*fd = open(proc, O_RDONLY | O_CLOEXEC | (nofollow ? O_NOFOLLOW : 0));
			return *fd >= 0 ? UIE_OK : UIE_E_SYS;
		}
		return open_in_root(tid, path, nofollow, root, fd);
	}
	if (dirfd == AT_FDCWD) {
		snprintf(base, sizeof(base), "/proc/%d/cwd", (int)tid);
		bfd = open(base, O_PATH | O_DIRECTORY | O_CLOEXEC);
	} else {
		bfd = uie_guest_call_getfd(c, dirfd);
	}
	if (bfd < 0)
		return UIE_E_SYS;
	r = open_beneath(bfd, path, nofollow, 0, fd);
	close(bfd);
	return r;
}

/* Value of a "Name:\t123" line of a status file, at least min. */
static int status_field(const char *buf, const char *name, long min, long *v)
{
	const char *p = strstr(buf, name);
	char *end;

	if (!p)
		return UIE_E_FORMAT;
	p += strlen(name);
	*v = strtol(p, &end, 10);
	return end != p && *v >= min ? UIE_OK : UIE_E_FORMAT;
}

ssize_t uie_guest_proc_read(pid_t tid, const char *name, char *buf, size_t cap)
{
	char path[64];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/%s", (int)tid, name);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return -1;
	n = read(fd, buf, cap - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	return n;
}

/* The slow way: "Tgid:", "PPid:" and "Threads:" of /proc/TID/status. */
static int task_info_status(pid_t tid, struct uie_task *t)
{
	char buf[2048];
	long a, b, c = 0;
	int r;

	if (uie_guest_proc_read(tid, "status", buf, sizeof(buf)) <= 0)
		return UIE_E_SYS;
	/* PPid 0: init, or a process whose parent is outside its PID namespace */
	if ((r = status_field(buf, "\nTgid:", 1, &a)) != UIE_OK ||
	    (r = status_field(buf, "\nThreads:", 1, &b)) != UIE_OK ||
	    (r = status_field(buf, "\nPPid:", 0, &c)) != UIE_OK)
		return r;
	t->tgid = (pid_t)a;
	t->ppid = (pid_t)c;
	t->threads = (unsigned)b;
	return UIE_OK;
}

/*
 * The fast way, without formatting the status file (a sizeable part of
 * each request): the thread group from the pidfd (PIDFD_GET_INFO, Linux
 * 6.13), the number of threads from the link count of /proc/TID/task,
 * which procfs reports as 2 + the group's thread count (the same counter
 * "Threads:" shows).  *old is set when the kernel lacks the ioctl.
 */
static int task_info_pidfd(pid_t tid, int pidfd, struct uie_task *t, bool *old)
{
	struct uie_pidfd_info info = { .mask = UIE_PIDFD_INFO_PID };
	char path[64];
	struct stat st;

	*old = false;
	if (ioctl(pidfd, UIE_PIDFD_GET_INFO, &info) != 0) {
		*old = errno == ENOTTY || errno == EINVAL;
		return UIE_E_SYS;
	}
	if (!(info.mask & UIE_PIDFD_INFO_PID) || info.pid != (uint32_t)tid || info.tgid == 0 ||
	    info.tgid > INT_MAX || info.ppid > INT_MAX)
		return UIE_E_FORMAT;
	snprintf(path, sizeof(path), "/proc/%d/task", (int)tid);
	if (stat(path, &st) != 0)
		return UIE_E_SYS;
	if (st.st_nlink < 3 || st.st_nlink - 2 > UINT_MAX)
		return UIE_E_FORMAT;
	t->tgid = (pid_t)info.tgid;
	t->ppid = (pid_t)info.ppid;
	t->threads = (unsigned)(st.st_nlink - 2);
	return UIE_OK;
}

bool uie_guest_pidfd_info_works(void)
{
	struct uie_pidfd_info info = { .mask = UIE_PIDFD_INFO_PID };
	int fd = (int)syscall(SYS_pidfd_open, getpid(), 0);
	bool ok;

	if (fd < 0)
		return false;
	ok = ioctl(fd, UIE_PIDFD_GET_INFO, &info) == 0 && info.pid == (uint32_t)getpid();
	close(fd);
	return ok;
}

int uie_guest_task_info(pid_t tid, int pidfd, struct uie_task *t)
{
	bool old = pidfd < 0;
	int r = UIE_E_SYS;

	if (pidfd >= 0)
		r = task_info_pidfd(tid, pidfd, t, &old);
	if (old)
		r = task_info_status(tid, t);
	if (r != UIE_OK)
		*t = (struct uie_task){ .tgid = -1 };
	return r;
}

bool uie_guest_shares_parent_mm(pid_t tid, pid_t ppid)
{
	long r;

	if (ppid <= 0)
		return false;
	if ((r = syscall(SYS_kcmp, tid, ppid, KCMP_VM, 0, 0)) >= 0)
		return r == 0;
	/*
	 * A parent gone shares nothing.  One we may not inspect (EPERM: only
	 * for a supervisor without CAP_SYS_PTRACE) has other credentials than
	 * the caller, or the caller's grant fails anyway: the dumpable flag is
	 * the address space's.  Sharing with other credentials takes a change
	 * of them, which clears that flag, and a PR_SET_DUMPABLE after it
	 * (docs/THREAT-MODEL.md, "Check-then-use races").
	 */
	return errno != ESRCH && errno != EPERM;
}

pid_t uie_guest_parent_of(pid_t pid)
{
	char buf[512], *p;
	int ppid;

	if (uie_guest_proc_read(pid, "stat", buf, sizeof(buf)) <= 0)
		return 0;
	/* "pid (comm) state ppid": comm may hold anything but ends at the last ')'. */
	if (!(p = strrchr(buf, ')')) || sscanf(p + 1, " %*c %d", &ppid) != 1)
		return 0;
	return (pid_t)ppid;
}

/* FNV-1a over the number and the arguments, folded to 32 bits. */
static uint32_t call_digest(long nr, const uint64_t args[6])
{
	uint64_t h = 0xcbf29ce484222325ull, w[7] = { (uint64_t)nr };

	memcpy(&w[1], args, 6 * sizeof(uint64_t));
	for (unsigned i = 0; i < 7; i++)
		for (unsigned b = 0; b < 8; b++)
			h = (h ^ ((w[i] >> (8 * b)) & 0xff)) * 0x100000001b3ull;
	h ^= h >> 32;
	return (uint32_t)h ? (uint32_t)h : 1;
}

uint32_t uie_guest_call_key(const struct seccomp_notif *n)
{
	uint64_t args[6];

	for (unsigned i = 0; i < 6; i++)
		args[i] = n->data.args[i];
	return call_digest(n->data.nr, args);
}

enum uie_call_state uie_guest_call_state(pid_t tid, const long *nrs, unsigned n, uint32_t call)
{
	char buf[256], *p;
	ssize_t len = uie_guest_proc_read(tid, "syscall", buf, sizeof(buf));
	uint64_t args[6];
	long nr;
	bool listed = false;

	if (len < 0)
		return errno == ENOENT || errno == ESRCH ? UIE_CALL_OVER : UIE_CALL_MAYBE;
	if (len == 0)
		return UIE_CALL_MAYBE;
	if (!strncmp(buf, "running", 7))
		return UIE_CALL_RUNNING;
	nr = strtol(buf, &p, 10);
	for (unsigned i = 0; i < n; i++)
		listed |= nrs[i] == nr;
	if (!listed)
		return UIE_CALL_OVER;
	if (call == 0)
		return UIE_CALL_MAYBE;
	/* "NR ARG0 ... ARG5 SP PC", the arguments in hex; unreadable ones: maybe. */
	for (unsigned i = 0; i < 6; i++) {
		char *end;

		errno = 0;
		args[i] = strtoull(p, &end, 16);
		if (end == p || errno != 0)
			return UIE_CALL_MAYBE;
		p = end;
	}
	return call_digest(nr, args) == call ? UIE_CALL_MAYBE : UIE_CALL_OVER;
}

bool uie_guest_maybe_in_call(pid_t tid, const long *nrs, unsigned n, uint32_t call)
{
	return uie_guest_call_state(tid, nrs, n, call) != UIE_CALL_OVER;
}
