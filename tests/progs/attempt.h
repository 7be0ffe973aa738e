/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Exit protocol of the attack programs: each tries to gain executable
 * memory for content no policy approved and says what happened.
 *   0  refused (the line "REFUSED <what>: <errno name>" on stdout)
 *   10 gained (the line "GAINED <what>")
 *   2  the test itself could not be set up
 */
#ifndef UIE_TEST_ATTEMPT_H
#define UIE_TEST_ATTEMPT_H

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define ATTEMPT_REFUSED 0
#define ATTEMPT_GAINED 10
#define ATTEMPT_SETUP 2

static inline int refused(const char *what, int err)
{
	printf("REFUSED %s: %s\n", what, strerrorname_np(err) ? strerrorname_np(err) : "?");
	fflush(stdout);
	return ATTEMPT_REFUSED;
}

static inline int gained(const char *what)
{
	printf("GAINED %s\n", what);
	fflush(stdout);
	return ATTEMPT_GAINED;
}

static inline int setup_failed(const char *what)
{
	fprintf(stderr, "setup failed: %s: %s\n", what, strerror(errno));
	return ATTEMPT_SETUP;
}

/*
 * Whether a race attempt goes on: until `end`, and past it (a minute more at
 * most) while the allowed half of the race has never succeeded.  Each
 * attempt is granted or refused by chance (which file the check finds), and
 * on a loaded machine one attempt can take the whole time: "GOOD never
 * granted" must mean the check refused GOOD itself, not a lost race.
 */
static inline int attempt_go_on(time_t end, unsigned long allowed_done)
{
	time_t now = time(NULL);

	return now < end || (allowed_done == 0 && now < end + 60);
}

/* Seconds on the monotonic clock (the vDSO: no system call, nothing the filter sees). */
static inline double attempt_now_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* A child of the same tree that waits to be killed (child_end), for the
 * attacks on another process's code; -1 (errno set) when fork fails. */
static inline pid_t child_paused(void)
{
	pid_t c = fork();

	if (c == 0) {
		pause();
		_exit(0);
	}
	return c;
}

static inline void child_end(pid_t c)
{
	kill(c, SIGKILL);
	waitpid(c, NULL, 0);
}

#endif
