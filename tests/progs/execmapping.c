/* SPDX-License-Identifier: Apache-2.0 */
/*
 * `execmapping LIB PROG N`: N times, a process whose second thread maps the
 * code of LIB (a shared object) over and over while its first thread execs PROG.  Not an
 * attack: each grant of LIB to a process with two threads stops the other
 * thread (freeze.c, PTRACE_SEIZE), and a thread inside its execve holds
 * the process's exec mutex, which PTRACE_SEIZE takes, while it waits for
 * the exec watch's answer to the kernel's open of PROG.  An interceptor
 * that seized then would wait for the mutex, and the execve for the
 * interceptor, for ever.  Every execve must end.
 *
 * Exit: 0 and "N execs beside a mapping thread ended" when every child ran
 * PROG and exited 0; 1 when one failed or did not end within 30 s; 2 when
 * the set-up failed.
 */
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <sys/mman.h>

#include "attempt.h"
#include "elfseg.h"

#define END_MS 30000

static int lib_fd;
static off_t code_off;
static size_t code_len;
static atomic_ulong mapped;

static void *map_forever(void *arg)
{
	(void)arg;
	for (;;) {
		void *p = mmap(NULL, code_len, PROT_READ | PROT_EXEC, MAP_PRIVATE, lib_fd, code_off);

		if (p != MAP_FAILED) {
			munmap(p, code_len);
			atomic_fetch_add(&mapped, 1);
		}
	}
	return NULL;
}

/* The child: a mapping thread, then the execve once it has mapped LIB. */
static void exec_beside_mapper(const char *prog)
{
	pthread_t t;

	if (pthread_create(&t, NULL, map_forever, NULL) != 0)
		_exit(ATTEMPT_SETUP);
	while (atomic_load(&mapped) == 0)
		usleep(100);
	execl(prog, prog, (char *)NULL);
	_exit(127);
}

/* Waits up to END_MS for pid; its status, or -1 (killed) when it did not end. */
static int wait_bounded(pid_t pid)
{
	double end = attempt_now_s() + END_MS / 1000.0;
	int st;

	while (attempt_now_s() < end) {
		pid_t r = waitpid(pid, &st, WNOHANG);

		if (r == pid)
			return st;
		if (r < 0)
			return -1;
		usleep(1000);
	}
	kill(pid, SIGKILL);
	waitpid(pid, &st, 0);
	return -1;
}

int main(int argc, char **argv)
{
	unsigned n = argc == 4 ? (unsigned)atoi(argv[3]) : 0;

	if (n == 0)
		return ATTEMPT_SETUP;
	if ((lib_fd = open(argv[1], O_RDONLY | O_CLOEXEC)) < 0 ||
	    exec_segment(lib_fd, &code_off, &code_len) != 0)
		return setup_failed(argv[1]);
	for (unsigned i = 0; i < n; i++) {
		pid_t pid = fork();
		int st;

		if (pid < 0)
			return setup_failed("fork");
		if (pid == 0)
			exec_beside_mapper(argv[2]);
		st = wait_bounded(pid);
		if (st == -1) {
			fprintf(stderr, "execmapping: execve %u of %s did not end within %d s\n", i, argv[2],
				END_MS / 1000);
			return 1;
		}
		if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
			fprintf(stderr, "execmapping: execve %u of %s: status %#x\n", i, argv[2], st);
			return 1;
		}
	}
	printf("%u execs beside a mapping thread ended\n", n);
	return 0;
}
