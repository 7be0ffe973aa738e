/* SPDX-License-Identifier: Apache-2.0 */
/*
 * seal-bench [-w WARMUP] N WHAT FILE: times, in this process, what the
 * interceptor does per grant to keep approved code what was measured
 * (guest/seal.c, guest/pages.c), N times:
 *   probe    the open-writers probe of before (open FILE read-only, take a
 *            read lease, drop it, close)
 *   seal     a seal taken and dropped (the same with F_SETSIG first)
 *   held     the check of a seal already held (F_GETLEASE)
 *   pagemap  the page check of FILE's first 64 KiB mapped privately
 *            (open /proc/self/pagemap, one pread, close)
 *   source   what names the file's source on every grant (guest/fstrust.c):
 *            fstatfs and statx(STATX_MNT_ID) of FILE's descriptor
 *   mountinfo  the mount-table read added to that for files on FUSE or on
 *            a read-only local mount (open /proc/self/mountinfo, read it
 *            whole, close); FILE is not used
 * Status 0, or the errno of the failed call.
 */
#include <fcntl.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/vfs.h>

#include "bench_util.h"

#define PAGES 16

static int probe(const char *file, int sig)
{
	int fd = open(file, O_RDONLY | O_CLOEXEC | O_NONBLOCK), r = 0;

	if (fd < 0)
		return errno;
	if ((sig && fcntl(fd, F_SETSIG, sig) != 0) || fcntl(fd, F_SETLEASE, F_RDLCK) != 0)
		r = errno;
	fcntl(fd, F_SETLEASE, F_UNLCK);
	close(fd);
	return r;
}

static int pagemap(const void *p)
{
	uint64_t e[PAGES];
	int fd = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC), r = 0;

	if (fd < 0)
		return errno;
	if (pread(fd, e, sizeof(e), (off_t)((uintptr_t)p / 4096 * 8)) != (ssize_t)sizeof(e))
		r = EIO;
	close(fd);
	return r;
}

static int source(int fd)
{
	struct statfs sfs;
	struct statx sx;

	if (fstatfs(fd, &sfs) != 0 || statx(fd, "", AT_EMPTY_PATH, STATX_MNT_ID, &sx) != 0)
		return errno;
	return 0;
}

static int mountinfo(void)
{
	char buf[16384];
	int fd = open("/proc/self/mountinfo", O_RDONLY | O_CLOEXEC), r = 0;
	ssize_t got;

	if (fd < 0)
		return errno;
	while ((got = read(fd, buf, sizeof(buf))) > 0)
		;
	if (got < 0)
		r = errno;
	close(fd);
	return r;
}

int main(int argc, char **argv)
{
	unsigned long n, warmup;
	bool cold;
	void *map = NULL;
	int held = -1, src = -1;
	bool mounts = false;

	if (!bench_options(argc, argv, &cold, &warmup) || argc - optind != 3)
		goto usage;
	n = bench_count(argv[optind], 1000000);
	if (!strcmp(argv[optind + 1], "held")) {
		held = open(argv[optind + 2], O_RDONLY | O_CLOEXEC);
		if (held < 0 || fcntl(held, F_SETLEASE, F_RDLCK) != 0)
			return 1;
	} else if (!strcmp(argv[optind + 1], "pagemap")) {
		int fd = open(argv[optind + 2], O_RDONLY | O_CLOEXEC);

		map = fd < 0 ? MAP_FAILED : mmap(NULL, PAGES * 4096, PROT_READ, MAP_PRIVATE, fd, 0);
		if (map == MAP_FAILED)
			return 1;
	} else if (!strcmp(argv[optind + 1], "source")) {
		if ((src = open(argv[optind + 2], O_RDONLY | O_CLOEXEC)) < 0)
			return 1;
	} else if (!strcmp(argv[optind + 1], "mountinfo")) {
		mounts = true;
	} else if (strcmp(argv[optind + 1], "probe") && strcmp(argv[optind + 1], "seal")) {
		goto usage;
	}
	for (unsigned long i = 0; i < warmup + n; i++) {
		uint64_t t0 = bench_now_ns();
		int st;

		if (held >= 0)
			st = fcntl(held, F_GETLEASE) == F_RDLCK ? 0 : EAGAIN;
		else if (map)
			st = pagemap(map);
		else if (src >= 0)
			st = source(src);
		else if (mounts)
			st = mountinfo();
		else
			st = probe(argv[optind + 2], strcmp(argv[optind + 1], "seal") ? 0 : SIGRTMIN + 1);
		if (i >= warmup)
			bench_sample(bench_now_ns() - t0, st);
	}
	return 0;
usage:
	fprintf(stderr, "usage: seal-bench [-w WARMUP] N probe|seal|held|pagemap|source|mountinfo FILE\n");
	return 2;
}
