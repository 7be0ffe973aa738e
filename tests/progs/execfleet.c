/* SPDX-License-Identifier: Apache-2.0 */
/*
 * `execfleet N SPINNER PROG`: starts N processes that exec SPINNER (a
 * program that computes for ever after its execve, making no system call),
 * waits until every one of them runs SPINNER, then runs PROG and reports
 * its exit status; the spinners (SCHED_IDLE) are killed at the end.  Not an attack: N
 * execves that are over, whose threads are on a CPU or waiting for one,
 * must not keep a later execve from running (the interceptor keeps 64
 * execves in flight).
 *
 * Exit: 0 and "PROG ran, for N ms" (from its fork to its end) when PROG
 * ran and exited 0; 1 when it did not; 2 when the set-up failed.
 */
#include <limits.h>
#include <sched.h>
#include <stdbool.h>
#include <stdlib.h>

#include "attempt.h"

#define FLEET_MAX 256

/* Whether pid's /proc/PID/exe is path (its execve is done). */
static bool runs(pid_t pid, const char *path)
{
	char link[64], exe[PATH_MAX + 1], want[PATH_MAX + 1];
	ssize_t n;

	snprintf(link, sizeof(link), "/proc/%d/exe", (int)pid);
	if ((n = readlink(link, exe, PATH_MAX)) < 0 || !realpath(path, want))
		return false;
	exe[n] = '\0';
	return strcmp(exe, want) == 0;
}

static void end_all(const pid_t *kid, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		child_end(kid[i]);
}

int main(int argc, char **argv)
{
	unsigned n = argc == 4 ? (unsigned)atoi(argv[1]) : 0, started = 0, waited;
	pid_t kid[FLEET_MAX], p;
	double t0;
	int st;

	if (n == 0 || n > FLEET_MAX)
		return ATTEMPT_SETUP;
	for (; started < n; started++) {
		if ((kid[started] = fork()) < 0) {
			end_all(kid, started);
			return setup_failed("fork");
		}
		if (kid[started] == 0) {
			/* Computing at the lowest priority: the rest of the machine, the
			 * interceptor and the monitor included, still gets the CPUs. */
			struct sched_param none = { .sched_priority = 0 };

			if (sched_setscheduler(0, SCHED_IDLE, &none) != 0)
				_exit(126);
			execl(argv[2], argv[2], (char *)NULL);
			_exit(127);
		}
	}
	for (waited = 0; waited < 30000; waited += 10) {
		unsigned ready = 0;

		for (unsigned i = 0; i < n; i++)
			ready += runs(kid[i], argv[2]);
		if (ready == n)
			break;
		usleep(10000);
	}
	if (waited >= 30000) {
		end_all(kid, n);
		fprintf(stderr, "execfleet: not every process runs %s\n", argv[2]);
		return ATTEMPT_SETUP;
	}
	t0 = attempt_now_s();
	if ((p = fork()) < 0) {
		end_all(kid, n);
		return setup_failed("fork");
	}
	if (p == 0) {
		execl(argv[3], argv[3], (char *)NULL);
		fprintf(stderr, "execfleet: execve %s: %s\n", argv[3], strerror(errno));
		_exit(127);
	}
	st = -1;
	waitpid(p, &st, 0);
	t0 = attempt_now_s() - t0;
	end_all(kid, n);
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
		fprintf(stderr, "execfleet: %s ended with status %#x\n", argv[3], st);
		return 1;
	}
	printf("%s ran, for %.0f ms\n", argv[3], t0 * 1e3);
	return 0;
}
