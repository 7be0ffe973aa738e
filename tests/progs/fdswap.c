/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The descriptor-swap race on mmap: one thread maps fd N executable over
 * and over (the code segment of GOOD, which the policy allows) while a
 * second thread keeps replacing fd N with EVIL (same layout, not allowed)
 * and back with dup2.  `fdswap GOOD EVIL SECONDS`.  GAINED when a mapping
 * that is executable ever holds EVIL's bytes.
 */
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "attempt.h"
#include "elfseg.h"

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
	size_t len;
	off_t off;

	if (argc < 4)
		return ATTEMPT_SETUP;
	good = open(argv[1], O_RDONLY);
	evil = open(argv[2], O_RDONLY);
	if (good < 0 || evil < 0 || exec_segment(good, &off, &len) != 0 || dup2(good, N) != N)
		return setup_failed("open");
	evil_bytes = mmap(NULL, len, PROT_READ, MAP_PRIVATE, evil, off);
	if (evil_bytes == MAP_FAILED)
		return setup_failed("mmap EVIL readable");
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
	atomic_store(&stop, 1);
	pthread_join(t, NULL);
	printf("mapped GOOD %lu times, refused %lu times\n", maps, refusals);
	if (maps == 0)
		return setup_failed("GOOD was never mapped");
	return refused("EVIL never mapped executable", EACCES);
}
