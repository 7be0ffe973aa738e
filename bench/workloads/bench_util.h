/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Helpers shared by the benchmark drivers.  Every driver prints one line per
 * timed iteration on stdout, "<nanoseconds> <status>", where status is 0 when
 * the operation succeeded and the errno (or 256 + exit status) when it did
 * not, so bench/run can check that a configuration did what it claims (an
 * Enforce run of a denied object must show failures, an allowed one none).
 */
#ifndef UIE_BENCH_UTIL_H
#define UIE_BENCH_UTIL_H

#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static inline uint64_t bench_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static inline void bench_sample(uint64_t ns, int status)
{
	printf("%" PRIu64 " %d\n", ns, status);
}

/* Parses a positive count no larger than max; exits with usage status 2 otherwise. */
static inline unsigned long bench_count(const char *s, unsigned long max)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || end == s || *end || v == 0 || v > max) {
		fprintf(stderr, "bad count '%s' (1..%lu)\n", s, max);
		exit(2);
	}
	return v;
}

/*
 * The options every timing driver takes: -c (cold: touch the objects before
 * each iteration) and -w N (untimed warm-up iterations, default 1).  Returns
 * false on an unknown option; optind then points past the options.
 */
static inline bool bench_options(int argc, char **argv, bool *cold, unsigned long *warmup)
{
	int opt;

	*cold = false;
	*warmup = 1;
	while ((opt = getopt(argc, argv, "cw:")) != -1) {
		if (opt == 'c')
			*cold = true;
		else if (opt == 'w')
			*warmup = strcmp(optarg, "0") ? bench_count(optarg, 1000) : 0;
		else
			return false;
	}
	return true;
}

#endif
