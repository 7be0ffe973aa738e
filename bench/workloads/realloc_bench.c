/* SPDX-License-Identifier: Apache-2.0 */
/*
 * realloc-bench [-w WARMUP] [-t] N: times N chains of glibc realloc growing
 * one block from 256 KiB to 16 MiB by doubling, the pattern of a growing
 * buffer (a parser's input, a vector).  The mmap threshold is fixed at
 * 128 KiB, so every block is a mapping of its own and every realloc a
 * mremap(MREMAP_MAYMOVE) growth: 6 per chain, the calls the interceptor
 * traps since issue 25 (guest/remap.c), on memory that is not executable.
 * -t keeps a second thread alive (the interceptor's multi-threaded path).
 * One sample per chain; status 0, or the errno of a failed realloc.
 */
#include <malloc.h>
#include <pthread.h>

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

static void *idle(void *arg)
{
	pause();
	return arg;
}

int main(int argc, char **argv)
{
	unsigned long n, warmup = 1;
	pthread_t t;
	int opt;

	while ((opt = getopt(argc, argv, "tw:")) != -1) {
		if (opt == 'w') {
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
	for (unsigned long i = 0; i < warmup; i++)
		chain();
	for (unsigned long i = 0; i < n; i++) {
		uint64_t t0 = bench_now_ns();
		int st = chain();

		bench_sample(bench_now_ns() - t0, st);
	}
	return 0;
}
