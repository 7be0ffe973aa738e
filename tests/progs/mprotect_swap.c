/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The mapping-swap race on mprotect: one thread turns a read-only mapping
 * of GOOD's code segment executable over and over, while a second thread
 * keeps replacing the mapping at that address with EVIL's (MAP_FIXED,
 * read-only) and back.  `mprotect_swap GOOD EVIL SECONDS`.  GAINED when
 * the range is ever executable while holding EVIL's bytes.
 */
#include <stdint.h>
#include <time.h>
#include <unistd.h>

#include "race.h"

static int good, evil;
static off_t off;
static size_t len;
static unsigned char *at;
static atomic_int stop;

/* Whether the mapping at p is executable now (from /proc/self/maps). */
static int is_exec(const void *p)
{
	char line[512];
	FILE *f = fopen("/proc/self/maps", "r");
	int x = 0;

	while (f && fgets(line, sizeof(line), f)) {
		unsigned long lo, hi;
		char perms[5];

		if (sscanf(line, "%lx-%lx %4s", &lo, &hi, perms) == 3 && (uintptr_t)p >= lo &&
		    (uintptr_t)p < hi)
			x = perms[2] == 'x';
	}
	if (f)
		fclose(f);
	return x;
}

static void *swapper(void *arg)
{
	while (!atomic_load(&stop)) {
		mmap(at, len, PROT_READ, MAP_PRIVATE | MAP_FIXED, evil, off);
		mmap(at, len, PROT_READ, MAP_PRIVATE | MAP_FIXED, good, off);
	}
	return arg;
}

int main(int argc, char **argv)
{
	unsigned long grants = 0, refusals = 0;
	unsigned char *evil_bytes;
	pthread_t t;
	time_t end;

	if (argc < 4)
		return ATTEMPT_SETUP;
	if (race_open(argv[1], argv[2], &good, &evil, &off, &len, &evil_bytes) != 0)
		return ATTEMPT_SETUP;
	at = mmap(NULL, len, PROT_READ, MAP_PRIVATE, good, off);
	if (at == MAP_FAILED)
		return setup_failed("mmap GOOD readable");
	if (pthread_create(&t, NULL, swapper, NULL) != 0)
		return setup_failed("pthread_create");
	end = time(NULL) + atoi(argv[3]);
	while (attempt_go_on(end, grants)) {
		if (mprotect(at, len, PROT_READ | PROT_EXEC) != 0) {
			refusals++;
			continue;
		}
		grants++;
		/* Stop the swapper before looking, so that what we see is what was granted. */
		atomic_store(&stop, 1);
		pthread_join(t, NULL);
		if (is_exec(at) && !memcmp(at, evil_bytes, len))
			return gained("EVIL made executable through a swapped mapping");
		/* Restart from a read-only mapping of GOOD. */
		atomic_store(&stop, 0);
		mmap(at, len, PROT_READ, MAP_PRIVATE | MAP_FIXED, good, off);
		if (pthread_create(&t, NULL, swapper, NULL) != 0)
			return setup_failed("pthread_create");
	}
	return race_refused(t, &stop, "granted", grants, refusals, "GOOD was never made executable",
			    "EVIL never made executable");
}
