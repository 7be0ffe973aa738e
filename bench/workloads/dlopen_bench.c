/* SPDX-License-Identifier: Apache-2.0 */
/*
 * dlopen-bench [-c] [-w WARMUP] N DSO...: times loading all the given shared
 * objects with dlopen(RTLD_NOW), N times; each iteration closes them again so
 * the next one maps them afresh (one mmap(PROT_EXEC) request per object).
 * With -c (cold) every object's timestamps are set to now before each
 * iteration, outside the timed region, so every object is measured again.
 * The status of an iteration is 0 when every object loaded, else the number
 * of objects that failed to load (expected when they are missing from an
 * enforced policy).
 */
#include <sys/stat.h>
#include <dlfcn.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "bench_util.h"

#define MAX_DSO 64

int main(int argc, char **argv)
{
	void *h[MAX_DSO];
	unsigned long n, warmup;
	bool cold;
	int count;

	if (!bench_options(argc, argv, &cold, &warmup))
		goto usage;
	count = argc - optind - 1;
	if (count < 1 || count > MAX_DSO)
		goto usage;
	n = bench_count(argv[optind], 10000000);
	for (unsigned long i = 0; i < warmup + n; i++) {
		uint64_t t0, t1;
		int failed = 0;

		for (int k = 0; cold && k < count; k++) {
			if (utimensat(AT_FDCWD, argv[optind + 1 + k], NULL, 0) < 0) {
				perror("utimensat");
				return 1;
			}
		}
		t0 = bench_now_ns();
		for (int k = 0; k < count; k++) {
			h[k] = dlopen(argv[optind + 1 + k], RTLD_NOW | RTLD_LOCAL);
			failed += !h[k];
		}
		t1 = bench_now_ns();
		for (int k = 0; k < count; k++)
			if (h[k])
				dlclose(h[k]);
		if (i >= warmup)
			bench_sample(t1 - t0, failed);
	}
	return 0;
usage:
	fprintf(stderr, "usage: dlopen-bench [-c] [-w WARMUP] N DSO... (at most %d)\n", MAX_DSO);
	return 2;
}
