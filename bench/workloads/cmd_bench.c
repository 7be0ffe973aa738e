/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cmd-bench [-w WARMUP] [-b SETUP] N PROGRAM [ARGS...]: times fork + execvp
 * + wait of a whole command line, N times (the real workloads of bench/real:
 * a shell loop, python imports, a compile, a make; and `uie run -- true` for
 * the interceptor's start-up).  SETUP, when given, is run with /bin/sh -c
 * before every iteration, outside the timed region (e.g. `make clean`); a
 * failing SETUP stops the driver.  One "<ns> <status>" line per iteration
 * (bench_util.h): status 0, or 256 + the command's exit status, or 512 +
 * the signal that killed it.
 */
#include <sys/wait.h>

#include "bench_util.h"

static int run_once(char *const argv[])
{
	int st;
	pid_t pid = fork();

	if (pid < 0)
		return errno;
	if (pid == 0) {
		execvp(argv[0], argv);
		_exit(errno == EACCES || errno == EPERM ? 126 : 127);
	}
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return errno;
	if (WIFEXITED(st))
		return WEXITSTATUS(st) ? 256 + WEXITSTATUS(st) : 0;
	return 512 + (WIFSIGNALED(st) ? WTERMSIG(st) : 0);
}

int main(int argc, char **argv)
{
	char *sh[] = { "/bin/sh", "-c", NULL, NULL };
	unsigned long n, warmup = 1;
	const char *setup = NULL;
	int opt;

	while ((opt = getopt(argc, argv, "+w:b:")) != -1) {
		if (opt == 'w')
			warmup = strcmp(optarg, "0") ? bench_count(optarg, 1000) : 0;
		else if (opt == 'b')
			setup = optarg;
		else
			goto usage;
	}
	if (argc - optind < 2)
		goto usage;
	n = bench_count(argv[optind], 10000000);
	sh[2] = (char *)setup;
	for (unsigned long i = 0; i < warmup + n; i++) {
		uint64_t t0, t1;
		int status;

		if (setup && (status = run_once(sh)) != 0) {
			fprintf(stderr, "cmd-bench: setup '%s' failed (%d)\n", setup, status);
			return 1;
		}
		t0 = bench_now_ns();
		status = run_once(argv + optind + 1);
		t1 = bench_now_ns();
		if (i >= warmup) {
			bench_sample(t1 - t0, status);
			fflush(stdout);
		}
	}
	return 0;
usage:
	fprintf(stderr, "usage: cmd-bench [-w WARMUP] [-b SETUP] N PROGRAM [ARGS...]\n");
	return 2;
}
