/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The path-swap race on execve: a thread keeps pointing DIR/prog at GOOD
 * and at EVIL (atomic rename of a symlink) while the main thread forks
 * children that execute DIR/prog.  `pathswap DIR GOOD EVIL SECONDS [ARG]`.
 * GOOD must exit 0; EVIL (the payload) exits 10 if it ever runs.  ARG, if
 * given, is passed to the program (EVIL = ld.so, ARG = --version: the loader
 * run as a program prints its banner, which the caller looks for).
 */
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "race.h"

static char link_path[4096], tmp_good[4096], tmp_evil[4096];
static atomic_int stop;

static void *swapper(void *arg)
{
	while (!atomic_load(&stop)) {
		rename(tmp_evil, link_path);
		symlink(((char **)arg)[2], tmp_good);
		rename(tmp_good, link_path);
		symlink(((char **)arg)[3], tmp_evil);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	unsigned long good_runs = 0, refusals = 0;
	pthread_t t;
	time_t end;

	if (argc < 5)
		return ATTEMPT_SETUP;
	snprintf(link_path, sizeof(link_path), "%s/prog", argv[1]);
	snprintf(tmp_good, sizeof(tmp_good), "%s/.good", argv[1]);
	snprintf(tmp_evil, sizeof(tmp_evil), "%s/.evil", argv[1]);
	unlink(link_path);
	unlink(tmp_good);
	unlink(tmp_evil);
	if (symlink(argv[2], link_path) != 0 || symlink(argv[3], tmp_evil) != 0)
		return setup_failed("symlink");
	if (pthread_create(&t, NULL, swapper, argv) != 0)
		return setup_failed("pthread_create");
	end = time(NULL) + atoi(argv[4]);
	while (attempt_go_on(end, good_runs)) {
		int st;
		pid_t c = fork();

		if (c < 0)
			return setup_failed("fork");
		if (c == 0) {
			char *args[] = { link_path, argc > 5 ? argv[5] : NULL, NULL };

			execv(link_path, args);
			_exit(errno == EACCES || errno == EPERM ? 77 : 78);
		}
		if (waitpid(c, &st, 0) != c)
			return setup_failed("waitpid");
		if (WIFEXITED(st) && WEXITSTATUS(st) == ATTEMPT_GAINED) {
			atomic_store(&stop, 1);
			return gained("EVIL executed through a swapped path");
		}
		if (WIFEXITED(st) && WEXITSTATUS(st) == 0)
			good_runs++;
		else if (WIFEXITED(st) && WEXITSTATUS(st) == 77)
			refusals++;
	}
	return race_refused(t, &stop, "GOOD ran", good_runs, refusals, "GOOD never ran",
			    "EVIL never executed");
}
