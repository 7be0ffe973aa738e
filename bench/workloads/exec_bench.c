/* SPDX-License-Identifier: Apache-2.0 */
/*
 * exec-bench [-c] [-w WARMUP] N PROGRAM: times fork+execve+wait of PROGRAM,
 * N times.  With -c (cold) the file's timestamps are set to now before every
 * iteration, outside the timed region: any change of mtime/ctime makes both
 * our monitor and fapolicyd measure the file again, while the page cache stays
 * warm, so the difference to a warm run is the cost of measurement.
 */
#include <sys/stat.h>
#include <sys/wait.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "bench_util.h"

extern char **environ;

static int run_once(const char *prog)
{
	char *argv[] = { (char *)prog, NULL };
	int st;
	pid_t pid = fork();

	if (pid < 0)
		return errno;
	if (pid == 0) {
		execve(prog, argv, environ);
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
	unsigned long n, warmup;
	bool cold;

	if (!bench_options(argc, argv, &cold, &warmup))
		goto usage;
	if (argc - optind != 2)
		goto usage;
	n = bench_count(argv[optind], 10000000);
	for (unsigned long i = 0; i < warmup + n; i++) {
		uint64_t t0, t1;
		int status;

		if (cold && utimensat(AT_FDCWD, argv[optind + 1], NULL, 0) < 0) {
			perror("utimensat");
			return 1;
		}
		t0 = bench_now_ns();
		status = run_once(argv[optind + 1]);
		t1 = bench_now_ns();
		if (i >= warmup)
			bench_sample(t1 - t0, status);
	}
	return 0;
usage:
	fprintf(stderr, "usage: exec-bench [-c] [-w WARMUP] N PROGRAM\n");
	return 2;
}
