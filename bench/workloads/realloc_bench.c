/* SPDX-License-Identifier: Apache-2.0 */
/*
 * realloc-bench [-w WARMUP] [-t] [-g] N: times N chains of glibc realloc growing
 * one block from 256 KiB to 16 MiB by doubling, the pattern of a growing
 * buffer (a parser's input, a vector).  The mmap threshold is fixed at
 * 128 KiB, so every block is a mapping of its own and every realloc a
 * mremap(MREMAP_MAYMOVE) growth: 6 per chain, the calls the interceptor
 * traps since issue 25 (guest/remap.c), on memory that is not executable.
 * -t keeps a second thread alive (the interceptor's multi-threaded path).
 * -g times single growths instead: mremap of a 1 MiB anonymous read-write
 * mapping by one page in place (then shrunk back, untimed: shrinking is
 * not trapped), the trapped call alone.
 * One sample per chain (growth); status 0, or the errno of a failed call.
 */
#include <malloc.h>
#include <pthread.h>
#include <sys/mman.h>

#include "bench_util.h"

#define FIRST (256u << 10)
#define LAST (16u << 20)

static int chain(void)
{
	char *p = malloc(FIRST);

	if (!p)
		return ENOMEM;
	p[0] = 1;
	for (size_t n = 2 * FIRST; n <= LAST; n *= 2) {
		char *q = realloc(p, n);

		if (!q) {
			free(p);
			return ENOMEM;
		}
		p = q;
		p[n - 1] = 1;
	}
	free(p);
	return 0;
}

#define GROW_BASE (1u << 20)

static int grow(char *p)
{
	if (mremap(p, GROW_BASE, GROW_BASE + 4096, 0) == MAP_FAILED)
		return errno;
	return 0;
}

static void *idle(void *arg)
{
	pause();
	return arg;
}

int main(int argc, char **argv)
{
	unsigned long n, warmup = 1;
	pthread_t t;
	char *p = NULL;
	int opt;

	while ((opt = getopt(argc, argv, "gtw:")) != -1) {
		if (opt == 'g') {
			/* Twice the room, so the growth stays in place. */
			p = mmap(NULL, 2 * GROW_BASE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1,
				 0);
			if (p == MAP_FAILED || munmap(p + GROW_BASE, GROW_BASE) != 0)
				return 1;
		} else if (opt == 'w') {
			warmup = strcmp(optarg, "0") ? bench_count(optarg, 1000) : 0;
		} else if (opt == 't') {
			if (pthread_create(&t, NULL, idle, NULL) != 0)
				return 1;
		} else {
			return 2;
		}
	}
	if (optind + 1 != argc || !mallopt(M_MMAP_THRESHOLD, 128 << 10))
		return 2;
	n = bench_count(argv[optind], 1000000);
	for (unsigned long i = 0; i < warmup + n; i++) {
		uint64_t t0 = bench_now_ns();
		int st = p ? grow(p) : chain();
		uint64_t ns = bench_now_ns() - t0;

		if (p && st == 0 && mremap(p, GROW_BASE + 4096, GROW_BASE, 0) == MAP_FAILED)
			st = errno;
		if (i >= warmup)
			bench_sample(ns, st);
	}
	return 0;
}
