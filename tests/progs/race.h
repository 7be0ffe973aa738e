/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The swap races (fdswap, mprotect_swap, pathswap): a swapper thread keeps
 * flipping one name between GOOD and EVIL until stop is set, while the main
 * thread tries to have the name made executable.
 */
#ifndef UIE_TEST_RACE_H
#define UIE_TEST_RACE_H

#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <sys/mman.h>

#include "attempt.h"
#include "elfseg.h"

/*
 * Opens GOOD and EVIL, finds GOOD's code segment (*off, *len) and maps the
 * same range of EVIL readable at *evil_bytes, to compare what was made
 * executable with.  0, or ATTEMPT_SETUP after saying what failed.
 */
static inline int race_open(const char *good_path, const char *evil_path, int *good, int *evil, off_t *off,
			    size_t *len, unsigned char **evil_bytes)
{
	*good = open(good_path, O_RDONLY);
	*evil = open(evil_path, O_RDONLY);
	if (*good < 0 || *evil < 0 || exec_segment(*good, off, len) != 0)
		return setup_failed("open");
	*evil_bytes = mmap(NULL, *len, PROT_READ, MAP_PRIVATE, *evil, *off);
	if (*evil_bytes == MAP_FAILED)
		return setup_failed("mmap EVIL readable");
	return 0;
}

/*
 * The end of a race EVIL never won: stops and joins the swapper t, prints
 * "<did> N times, refused M times" and returns the verdict: a setup failure
 * (never_good) when GOOD never succeeded, else refused (never_evil).
 */
static inline int race_refused(pthread_t t, atomic_int *stop, const char *did, unsigned long done,
			       unsigned long refusals, const char *never_good, const char *never_evil)
{
	atomic_store(stop, 1);
	pthread_join(t, NULL);
	printf("%s %lu times, refused %lu times\n", did, done, refusals);
	if (done == 0)
		return setup_failed(never_good);
	return refused(never_evil, EACCES);
}

#endif
