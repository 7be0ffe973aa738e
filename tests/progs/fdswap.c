/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The descriptor-swap race on mmap: one thread maps fd N executable over
 * and over (the code segment of GOOD, which the policy allows) while a
 * second thread keeps replacing fd N with EVIL (same layout, not allowed)
 * and back with dup2.  `fdswap GOOD EVIL SECONDS`.  GAINED when a mapping
 * that is executable ever holds EVIL's bytes.
 */
#include <time.h>
#include <unistd.h>

#include "race.h"

#define N 100

static int good, evil;
static atomic_int stop;

static void *swapper(void *arg)
{
	while (!atomic_load(&stop)) {
		dup2(evil, N);
		dup2(good, N);
	}
	return arg;
}

int main(int argc, char **argv)
{
	unsigned long maps = 0, refusals = 0;
	unsigned char *evil_bytes;
	pthread_t t;
	time_t end;
	size_t len = 0;
	off_t off = 0;

	if (argc < 4)
		return ATTEMPT_SETUP;
	if (race_open(argv[1], argv[2], &good, &evil, &off, &len, &evil_bytes) != 0)
		return ATTEMPT_SETUP;
	if (dup2(good, N) != N)
		return setup_failed("dup2");
	if (pthread_create(&t, NULL, swapper, NULL) != 0)
		return setup_failed("pthread_create");
	end = time(NULL) + atoi(argv[3]);
	while (attempt_go_on(end, maps)) {
		unsigned char *p = mmap(NULL, len, PROT_READ | PROT_EXEC, MAP_PRIVATE, N, off);

		if (p == MAP_FAILED) {
			refusals++;
			continue;
		}
		maps++;
		if (!memcmp(p, evil_bytes, len)) {
			atomic_store(&stop, 1);
			return gained("EVIL mapped executable through a swapped descriptor");
		}
		munmap(p, len);
	}
	return race_refused(t, &stop, "mapped GOOD", maps, refusals, "GOOD was never mapped",
			    "EVIL never mapped executable");
}
