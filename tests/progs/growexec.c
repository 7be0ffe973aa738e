/* SPDX-License-Identifier: Apache-2.0 */
/*
 * mremap growth of an executable mapping over bytes no digest covers.  The
 * object digest of a shared object covers its executable segments only, so
 * a copy with new bytes in the page after its code keeps that digest.
 * `growexec MODE LIB [SECONDS]` (or `growexec anon`), LIB such a copy (`growexec plant LIB`
 * writes the payload into that page first, not under `uie run`):
 *   grow       map the code segment alone R+X (granted: the object digest),
 *              then grow it in place over the payload page
 *   move       the same, with a blocker mapping after the code: the growth
 *              must move (MREMAP_MAYMOVE)
 *   fixed      grow and move it to a chosen address (MREMAP_FIXED)
 *   dontunmap  move the code mapping with MREMAP_DONTUNMAP (a move of
 *              covered code: allowed), then grow the moved mapping in place
 *   race       one thread keeps growing a read-only mapping of the code while
 *              another keeps replacing it by an executable one (SECONDS):
 *              GAINED when a growth ever left the payload page executable
 *   anon       map anonymous memory R+W+X and grow it (needs a JIT rule);
 *              the payload is written into the new part
 * GAINED when the payload ran (or, race, was made executable).
 */
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "attempt.h"
#include "elfseg.h"
#include "payload_code.h"

#ifndef MREMAP_DONTUNMAP
#define MREMAP_DONTUNMAP 4
#endif
#define PAGE 4096ul

static int fd;
static off_t off;
static size_t len; /* the code segment, whole pages */
static unsigned char *at;
static atomic_int stop;
static atomic_ulong swaps;

/* A free, reserved area of n bytes (PROT_NONE): what is mapped into it stays in place. */
static unsigned char *reserve(size_t n)
{
	void *p = mmap(NULL, n, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

/* The code segment, R+X, at where (fixed) or anywhere. */
static unsigned char *map_code(unsigned char *where)
{
	void *p = mmap(where, len, PROT_READ | PROT_EXEC, MAP_PRIVATE | (where ? MAP_FIXED : 0), fd, off);

	return p == MAP_FAILED ? NULL : p;
}

static int run_grown(unsigned char *q)
{
	if (payload_ran(q + len))
		return gained("bytes after an approved code segment ran (mremap growth)");
	return setup_failed("the payload did not run");
}

/* Whether [p, p + n) is executable now (/proc/self/maps). */
static int executable(const unsigned char *p, size_t n)
{
	FILE *f = fopen("/proc/self/maps", "r");
	char line[512];
	int x = 0;

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		unsigned long lo, hi;
		char perm[5];

		if (sscanf(line, "%lx-%lx %4s", &lo, &hi, perm) == 3 && lo <= (uintptr_t)p &&
		    (uintptr_t)p + n <= hi)
			x = perm[2] == 'x';
	}
	fclose(f);
	return x;
}

/* Keeps replacing [at, at + len) by the code, executable, then read-only. */
static void *swapper(void *arg)
{
	while (!atomic_load(&stop)) {
		if (mmap(at, len, PROT_READ | PROT_EXEC, MAP_PRIVATE | MAP_FIXED, fd, off) != MAP_FAILED)
			atomic_fetch_add(&swaps, 1);
		mmap(at, len, PROT_READ, MAP_PRIVATE | MAP_FIXED, fd, off);
	}
	return arg;
}

static int race(int seconds)
{
	unsigned long grown = 0, refused_n = 0;
	time_t end = time(NULL) + seconds;
	int won = 0;
	pthread_t t;

	if (!(at = reserve(len + PAGE)) ||
	    mmap(at, len, PROT_READ, MAP_PRIVATE | MAP_FIXED, fd, off) == MAP_FAILED)
		return setup_failed("mmap");
	munmap(at + len, PAGE);
	if (pthread_create(&t, NULL, swapper, NULL) != 0)
		return setup_failed("pthread_create");
	while (!won && (time(NULL) < end || grown == 0 || atomic_load(&swaps) == 0) &&
	       time(NULL) < end + 60) {
		if (mremap(at, len, len + PAGE, 0) == MAP_FAILED) {
			refused_n++;
			continue;
		}
		grown++;
		won = executable(at + len, PAGE);
		munmap(at + len, PAGE);
	}
	atomic_store(&stop, 1);
	pthread_join(t, NULL);
	printf("grown %lu times, refused %lu times, %lu executable mappings\n", grown, refused_n,
	       atomic_load(&swaps));
	if (won)
		return gained("a growth made the payload page executable");
	return refused("no growth made the payload page executable", EACCES);
}

static int anon(void)
{
	unsigned char *p = mmap(NULL, PAGE, PROT_READ | PROT_WRITE | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS,
				-1, 0);
	unsigned char *q;

	if (p == MAP_FAILED)
		return refused("anonymous mmap(PROT_EXEC)", errno);
	q = mremap(p, PAGE, 2 * PAGE, MREMAP_MAYMOVE);
	if (q == MAP_FAILED)
		return refused("mremap growth of anonymous executable memory", errno);
	memcpy(q + PAGE, payload_code, sizeof(payload_code));
	if (payload_ran(q + PAGE))
		return gained("code in the grown part of anonymous executable memory ran");
	return setup_failed("the payload did not run");
}

static int plant(const char *path)
{
	int w = open(path, O_WRONLY | O_CLOEXEC);

	if (w < 0 || pwrite(w, payload_code, sizeof(payload_code), off + (off_t)len) != sizeof(payload_code))
		return setup_failed("write the payload");
	close(w);
	return 0;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";
	unsigned char *area, *p, *q;
	size_t seg;

	if (!strcmp(mode, "anon"))
		return anon();
	if (argc < 3)
		return ATTEMPT_SETUP;
	fd = open(argv[2], O_RDONLY | O_CLOEXEC);
	if (fd < 0 || exec_segment(fd, &off, &seg) != 0)
		return setup_failed("open");
	len = (seg + PAGE - 1) & ~(PAGE - 1);
	if (!strcmp(mode, "plant"))
		return plant(argv[2]);
	if (!strcmp(mode, "race"))
		return race(argc > 3 ? atoi(argv[3]) : 3);
	/* Room for the code, its growth, and a target to move to. */
	if (!(area = reserve(4 * (len + PAGE))))
		return setup_failed("mmap");
	munmap(area, 4 * (len + PAGE));
	if (!(p = map_code(area)))
		return refused("mmap of the code segment", errno);
	if (!strcmp(mode, "grow")) {
		q = mremap(p, len, len + PAGE, 0);
	} else if (!strcmp(mode, "move")) {
		if (mmap(p + len, PAGE, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) ==
		    MAP_FAILED)
			return setup_failed("mmap the blocker");
		q = mremap(p, len, len + PAGE, MREMAP_MAYMOVE);
		if (q == p)
			return setup_failed("the growth did not move");
	} else if (!strcmp(mode, "fixed")) {
		q = mremap(p, len, len + PAGE, MREMAP_MAYMOVE | MREMAP_FIXED, area + 2 * (len + PAGE));
	} else if (!strcmp(mode, "dontunmap")) {
		q = mremap(p, len, len, MREMAP_MAYMOVE | MREMAP_DONTUNMAP, area + 2 * (len + PAGE));
		if (q == MAP_FAILED)
			return setup_failed("move of the approved code with MREMAP_DONTUNMAP");
		q = mremap(q, len, len + PAGE, 0);
	} else {
		return ATTEMPT_SETUP;
	}
	if (q == MAP_FAILED)
		return refused("mremap growth of the code segment", errno);
	return run_grown(q);
}
