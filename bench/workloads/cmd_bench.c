/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cmd-bench [-w WARMUP] [-b SETUP] N PROGRAM [ARGS...]: times fork + execvp
 * + wait of a whole command line, N times (the real workloads of bench/real:
 * a shell loop, python imports, a compile, a make; and `uie run -- true` for
 * the interceptor's start-up).  SETUP, when given, is run with /bin/sh -c
 * before every iteration, outside the timed region (e.g. `make clean`); a
 * failing SETUP stops the driver.  One "<ns> <status> <cpu-ns>" line per
 * iteration: wall time, status as in bench_util.h (0, or 256 + the command's
 * exit status, or 512 + the signal that killed it), and the CPU time (user
 * plus system) of the command's whole process tree, which outside load
 * disturbs much less than the wall time.
 */
#include <sys/resource.h>
#include <sys/wait.h>

#include "bench_util.h"

static uint64_t tv_ns(struct timeval tv)
{
	return (uint64_t)tv.tv_sec * 1000000000u + (uint64_t)tv.tv_usec * 1000u;
}

/* Runs argv, waits; *cpu_ns (if not NULL) gets the CPU time of its process tree. */
static int run_once(char *const argv[], uint64_t *cpu_ns)
{
	struct rusage ru;
	int st;
	pid_t pid = fork();

	if (pid < 0)
		return errno;
	if (pid == 0) {
		execvp(argv[0], argv);
		_exit(errno == EACCES || errno == EPERM ? 126 : 127);
	}
	while (wait4(pid, &st, 0, &ru) < 0)
		if (errno != EINTR)
			return errno;
	if (cpu_ns)
		*cpu_ns = tv_ns(ru.ru_utime) + tv_ns(ru.ru_stime);
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
		uint64_t t0, t1, cpu = 0;
		int status;

		if (setup && (status = run_once(sh, NULL)) != 0) {
			fprintf(stderr, "cmd-bench: setup '%s' failed (%d)\n", setup, status);
			return 1;
		}
		t0 = bench_now_ns();
		status = run_once(argv + optind + 1, &cpu);
		t1 = bench_now_ns();
		if (i >= warmup) {
			printf("%" PRIu64 " %d %" PRIu64 "\n", t1 - t0, status, cpu);
			fflush(stdout);
		}
	}
	return 0;
usage:
	fprintf(stderr, "usage: cmd-bench [-w WARMUP] [-b SETUP] N PROGRAM [ARGS...]\n");
	return 2;
}
