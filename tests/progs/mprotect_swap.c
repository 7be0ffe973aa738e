/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The mapping-swap race on mprotect: one thread turns a read-only mapping
 * of GOOD's code segment executable over and over, while a second thread
 * keeps replacing the mapping at that address with EVIL's (MAP_FIXED,
 * read-only) and back.  GAINED when the range is ever executable while
 * holding EVIL's bytes.
 *   mprotect_swap GOOD EVIL SECONDS [thread|vfork|vfork-swapper|vfork-parent]
 * (thread, the default, is what the first lines say).
 *
 * With vfork the mprotect calls come from a child made with CLONE_VM |
 * CLONE_VFORK (as posix_spawn does): another process, with one thread of
 * its own, in the address space of this one, whose swapper thread runs on.
 * Each child first asks for GOOD where nothing swaps it: a refusal ends
 * the run (REFUSED ... of GOOD in a vfork child).
 * With vfork-swapper it is the other way round: the swapper is the vfork
 * child, and a thread of this process calls mprotect.  vfork-parent is
 * vfork with CLONE_PARENT: the child is its grandparent's, not ours.
 */
#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>
#include <unistd.h>

#include "race.h"

static int good, evil;
static off_t off;
static size_t len;
static unsigned char *at, *evil_bytes, *probe;
static atomic_int stop, idle, swapping;
static unsigned long grants, refusals;
static time_t end;

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
	unsigned n = 0;

	/* Stop checked after each swap, EVIL left in place a while: a mapping the caller made
	 * executable stays for it to see.  Every 16th time a long while: natively the caller's
	 * mprotect must land on EVIL and return before the next swap, which short stays alone
	 * made rare where system calls are slow against the spin (a TCG guest: no win in 9889
	 * grants once); the short ones keep the swaps frequent for the race against the
	 * interceptor's check. */
	atomic_store(&swapping, 1);
	while (!atomic_load(&stop)) {
		unsigned stay = n++ % 16 == 15 ? 200000 : 2000;

		mmap(at, len, PROT_READ, MAP_PRIVATE | MAP_FIXED, evil, off);
		for (unsigned i = 0; i < stay && !atomic_load(&stop); i++)
			;
		if (atomic_load(&stop))
			break;
		mmap(at, len, PROT_READ, MAP_PRIVATE | MAP_FIXED, good, off);
	}
	atomic_store(&idle, 1);
	return arg;
}

/* After a grant: stops the swapper; whether EVIL's bytes became executable.  GOOD is put back. */
static bool evil_granted(void)
{
	bool won;

	atomic_store(&stop, 1);
	while (!atomic_load(&idle))
		;
	won = is_exec(at) && !memcmp(at, evil_bytes, len);
	mmap(at, len, PROT_READ, MAP_PRIVATE | MAP_FIXED, good, off);
	atomic_store(&swapping, 0);
	return won;
}

/* A new swapper thread after evil_granted stopped the last one t.  0, else -1. */
static int restart_swapper(pthread_t *t)
{
	pthread_join(*t, NULL);
	atomic_store(&stop, 0);
	atomic_store(&idle, 0);
	return pthread_create(t, NULL, swapper, NULL) == 0 ? 0 : -1;
}

/* mprotect(PROT_EXEC) of the range once the swapper runs (else it would always be GOOD's). */
static int exec_once_swapping(void)
{
	while (!atomic_load(&swapping))
		;
	return mprotect(at, len, PROT_READ | PROT_EXEC);
}

#define CHILD_AGAIN 1   /* a grant of GOOD: start the swapper again and another child */
#define CHILD_REFUSED 3 /* GOOD refused to it, where nothing swaps */

static atomic_int child_said;

/* The vfork child: the swapper is a thread of another process, so it is stopped by flags. */
static int child_round(void)
{
	if (mprotect(probe, len, PROT_READ | PROT_EXEC) != 0)
		return CHILD_REFUSED;
	mprotect(probe, len, PROT_READ);
	while (attempt_go_on(end, grants)) {
		if (exec_once_swapping() != 0) {
			refusals++;
			continue;
		}
		grants++;
		return evil_granted() ? ATTEMPT_GAINED : CHILD_AGAIN;
	}
	return ATTEMPT_REFUSED;
}

/* Its verdict also where its parent is ours (CLONE_PARENT), who gets its exit status. */
static int vfork_child(void *arg)
{
	int r = child_round();

	atomic_store(&child_said, r);
	return r;
}

/* Child after child, while the swapper runs in this process (flags: more for clone). */
static int vfork_race(pthread_t t, int flags)
{
	static _Alignas(16) char stack[1 << 16];

	/* A mapping of GOOD nothing swaps: whether the child may have GOOD at all. */
	if ((probe = mmap(NULL, len, PROT_READ, MAP_PRIVATE, good, off)) == MAP_FAILED)
		return setup_failed("mmap GOOD readable");
	for (;;) {
		pid_t c = clone(vfork_child, stack + sizeof(stack), CLONE_VM | CLONE_VFORK | SIGCHLD | flags,
				NULL);
		int said;

		if (c < 0 && flags) {
			atomic_store(&stop, 1);
			pthread_join(t, NULL);
			return refused("clone(CLONE_VM | CLONE_VFORK | CLONE_PARENT)", errno);
		}
		/* Back here, the child has exited: a vfork parent waits for that (or an execve). */
		if (c < 0 || (!flags && waitpid(c, NULL, 0) != c))
			return setup_failed("clone(CLONE_VM | CLONE_VFORK)");
		said = atomic_load(&child_said);
		if (said == ATTEMPT_GAINED)
			return gained("EVIL made executable through a mapping swapped beside a vfork child");
		if (said == CHILD_REFUSED) {
			atomic_store(&stop, 1);
			pthread_join(t, NULL);
			return refused("mprotect(PROT_EXEC) of GOOD in a vfork child", EACCES);
		}
		if (said != CHILD_AGAIN)
			return race_refused(t, &stop, "granted", grants, refusals,
					    "GOOD was never made executable", "EVIL never made executable");
		if (restart_swapper(&t) != 0)
			return setup_failed("pthread_create");
	}
}

/*
 * The other way round: the swapper a vfork child, the mprotect calls from a
 * thread of this process, whose main thread waits in the vfork meanwhile.
 */
enum {
	GOING,
	AGAIN,
	DONE_GAINED,
	DONE_REFUSED,
	DONE_TIME
};
static atomic_int verdict;

static int swapper_child(void *arg)
{
	swapper(arg);
	return 0;
}

static void *mprotecter(void *arg)
{
	while (attempt_go_on(end, grants)) {
		int v;

		if (exec_once_swapping() != 0) {
			atomic_store(&verdict, DONE_REFUSED);
			atomic_store(&stop, 1);
			return arg;
		}
		grants++;
		v = evil_granted() ? DONE_GAINED : AGAIN;
		atomic_store(&verdict, v);
		if (v != AGAIN)
			return arg;
		while (atomic_load(&verdict) == AGAIN) /* until the next swapper runs */
			;
	}
	atomic_store(&verdict, DONE_TIME);
	atomic_store(&stop, 1);
	return arg;
}

static int vfork_swapper_race(void)
{
	static _Alignas(16) char stack[1 << 16];
	pthread_t m;
	int v;

	atomic_store(&stop, 0);
	if (pthread_create(&m, NULL, mprotecter, NULL) != 0)
		return setup_failed("pthread_create");
	for (;;) {
		int st;
		pid_t c = clone(swapper_child, stack + sizeof(stack), CLONE_VM | CLONE_VFORK | SIGCHLD, NULL);

		if (c < 0 || waitpid(c, &st, 0) != c)
			return setup_failed("clone(CLONE_VM | CLONE_VFORK)");
		while ((v = atomic_load(&verdict)) == GOING)
			;
		if (v != AGAIN)
			break;
		atomic_store(&stop, 0);
		atomic_store(&idle, 0);
		atomic_store(&verdict, GOING);
	}
	pthread_join(m, NULL);
	if (v == DONE_GAINED)
		return gained("EVIL made executable through a mapping a vfork child swapped");
	if (v == DONE_REFUSED)
		return refused("mprotect(PROT_EXEC) beside a vfork child", EACCES);
	printf("granted %lu times\n", grants);
	return grants ? refused("EVIL never made executable", EACCES)
		      : setup_failed("GOOD was never made executable");
}

int main(int argc, char **argv)
{
	const char *mode = argc > 4 ? argv[4] : "thread";
	pthread_t t;

	if (argc < 4 || (strcmp(mode, "thread") && strcmp(mode, "vfork") && strcmp(mode, "vfork-swapper") &&
			 strcmp(mode, "vfork-parent"))) {
		fprintf(stderr,
			"usage: mprotect_swap GOOD EVIL SECONDS [thread|vfork|vfork-swapper|vfork-parent]\n");
		return ATTEMPT_SETUP;
	}
	if (race_open(argv[1], argv[2], &good, &evil, &off, &len, &evil_bytes) != 0)
		return ATTEMPT_SETUP;
	at = mmap(NULL, len, PROT_READ, MAP_PRIVATE, good, off);
	if (at == MAP_FAILED)
		return setup_failed("mmap GOOD readable");
	end = time(NULL) + atoi(argv[3]);
	if (!strcmp(mode, "vfork-swapper"))
		return vfork_swapper_race();
	if (pthread_create(&t, NULL, swapper, NULL) != 0)
		return setup_failed("pthread_create");
	if (!strcmp(mode, "vfork"))
		return vfork_race(t, 0);
	if (!strcmp(mode, "vfork-parent"))
		return vfork_race(t, CLONE_PARENT);
	while (attempt_go_on(end, grants)) {
		if (exec_once_swapping() != 0) {
			refusals++;
			continue;
		}
		grants++;
		/* The swapper stopped before looking, so that what we see is what was granted. */
		if (evil_granted())
			return gained("EVIL made executable through a swapped mapping");
		if (restart_swapper(&t) != 0)
			return setup_failed("pthread_create");
	}
	return race_refused(t, &stop, "granted", grants, refusals, "GOOD was never made executable",
			    "EVIL never made executable");
}
