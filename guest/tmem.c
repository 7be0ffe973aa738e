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
#include <linux/openat2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include "sup.h"
#include "uie/err.h"

#define PAGE 4096u

int uie_guest_read_str(pid_t tid, uint64_t addr, char *buf, size_t cap)
{
	size_t got = 0;

	if (cap == 0)
		return UIE_E_INVAL;
	buf[0] = '\0';
	while (got < cap) {
		/* Never cross a page in one read: the next page may be unmapped. */
		size_t chunk = PAGE - (size_t)((addr + got) % PAGE);
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

int uie_guest_open_as(pid_t tid, int pidfd, int dirfd, const char *path, bool nofollow, int *fd)
{
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
			if ((size_t)snprintf(proc, sizeof(proc), "/proc/%d/%s", (int)tid, rest) >= sizeof(proc)) {
				errno = ENAMETOOLONG;
				return UIE_E_LIMIT;
			}
			*fd = open(proc, O_RDONLY | O_CLOEXEC | (nofollow ? O_NOFOLLOW : 0));
			return *fd >= 0 ? UIE_OK : UIE_E_SYS;
		}
		return uie_guest_open_in_root(tid, path, fd);
	}
	if (dirfd == AT_FDCWD) {
		snprintf(base, sizeof(base), "/proc/%d/cwd", (int)tid);
		bfd = open(base, O_PATH | O_DIRECTORY | O_CLOEXEC);
	} else {
		bfd = (int)syscall(SYS_pidfd_getfd, pidfd, dirfd, 0);
	}
	if (bfd < 0)
		return UIE_E_SYS;
	r = open_beneath(bfd, path, nofollow, 0, fd);
	close(bfd);
	return r;
}

int uie_guest_open_in_root(pid_t tid, const char *path, int *fd)
{
	char base[64];
	int rfd, r;

	*fd = -1;
	snprintf(base, sizeof(base), "/proc/%d/root", (int)tid);
	rfd = open(base, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (rfd < 0)
		return UIE_E_SYS;
	/* Absolute symlinks resolve against the target's root, as for the kernel.
	 * Magic links (/proc/.../fd/N reached through a symlink) fail with EXDEV:
	 * they would be resolved in the supervisor, so the call is refused. */
	r = open_beneath(rfd, path, false, RESOLVE_IN_ROOT, fd);
	close(rfd);
	return r;
}

/* Value of a "Name:\t123" line of a status file. */
static int status_field(const char *buf, const char *name, long *v)
{
	const char *p = strstr(buf, name);
	char *end;

	if (!p)
		return UIE_E_FORMAT;
	p += strlen(name);
	*v = strtol(p, &end, 10);
	return end != p && *v > 0 ? UIE_OK : UIE_E_FORMAT;
}

int uie_guest_task_info(pid_t tid, pid_t *tgid, unsigned *threads)
{
	char path[64], buf[2048];
	long a, b;
	ssize_t n;
	int fd, r;

	*tgid = -1;
	*threads = 0;
	snprintf(path, sizeof(path), "/proc/%d/status", (int)tid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return UIE_E_SYS;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return UIE_E_SYS;
	buf[n] = '\0';
	if ((r = status_field(buf, "\nTgid:", &a)) != UIE_OK ||
	    (r = status_field(buf, "\nThreads:", &b)) != UIE_OK)
		return r;
	*tgid = (pid_t)a;
	*threads = (unsigned)b;
	return UIE_OK;
}
