/* SPDX-License-Identifier: Apache-2.0 */
/*
 * What the kernel charges for the primitives `uie run` is made of
 * (docs/PERFORMANCE.md, "uie run start-up"): a system call, a page fault,
 * a round trip between two processes, fork and exit of a process that maps
 * libcrypto (as `uie` does), a fanotify group's release, a Landlock ruleset
 * over the top-level directories and a seccomp filter with a listener.
 * Each is timed on the monotonic clock, many times; the minimum is what
 * the kernel itself costs, the median what the machine's load adds.
 *
 *   kernel_costs [--samples N]      (root, for fanotify)
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/filter.h>
#include <linux/landlock.h>
#include <linux/seccomp.h>
#include <openssl/crypto.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/fanotify.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAX_SAMPLES 2000

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* One operation: its name, how many times one sample repeats it, the sample. */
struct op {
	const char *name;
	unsigned per_sample;
	int (*run)(unsigned n); /* 0, or -1 with errno */
};

static int op_syscall(unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		syscall(SYS_getppid);
	return 0;
}

static int op_page_fault(unsigned n)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	volatile char *p = mmap(NULL, page * n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		return -1;
	for (unsigned i = 0; i < n; i++)
		p[i * page] = 1;
	munmap((void *)p, page * n);
	return 0;
}

/* A byte to a child and back, n times: two context switches each (both on one CPU or not). */
static int op_round_trip(unsigned n)
{
	int to[2], from[2];
	char c = 0;
	pid_t pid;

	if (pipe(to) != 0 || pipe(from) != 0)
		return -1;
	pid = fork();
	if (pid == 0) {
		close(to[1]); /* else the read below never sees the end */
		close(from[0]);
		while (read(to[0], &c, 1) == 1 && write(from[1], &c, 1) == 1)
			;
		_exit(0);
	}
	for (unsigned i = 0; pid > 0 && i < n; i++)
		if (write(to[1], &c, 1) != 1 || read(from[0], &c, 1) != 1)
			break;
	close(to[1]);
	close(to[0]);
	close(from[0]);
	close(from[1]);
	if (pid > 0)
		waitpid(pid, NULL, 0);
	return pid > 0 ? 0 : -1;
}

static int op_fork_exit(unsigned n)
{
	for (unsigned i = 0; i < n; i++) {
		pid_t pid = fork();

		if (pid == 0)
			_exit(0);
		if (pid < 0 || waitpid(pid, NULL, 0) != pid)
			return -1;
	}
	return 0;
}

/*
 * A group with a mount mark on / (a notification event, so that no exec on the machine waits for
 * this group), closed with the mark in place or after flushing it, as fan.c does.
 */
static int fanotify_release(unsigned n, bool flush_first)
{
	for (unsigned i = 0; i < n; i++) {
		int fd = fanotify_init(FAN_CLASS_NOTIF | FAN_CLOEXEC, O_RDONLY);

		if (fd < 0 ||
		    fanotify_mark(fd, FAN_MARK_ADD | FAN_MARK_MOUNT, FAN_OPEN_EXEC, AT_FDCWD, "/") != 0)
			return -1;
		if (flush_first)
			fanotify_mark(fd, FAN_MARK_FLUSH | FAN_MARK_MOUNT, 0, AT_FDCWD, NULL);
		close(fd);
	}
	return 0;
}

static int op_fanotify_close(unsigned n)
{
	return fanotify_release(n, false);
}

static int op_fanotify_flush_close(unsigned n)
{
	return fanotify_release(n, true);
}

/* In a child, since both are for good: what spawn.c does before the exec. */
static int in_child(int (*f)(void))
{
	int st;
	pid_t pid = fork();

	if (pid == 0)
		_exit(f() == 0 ? 0 : 1);
	return pid > 0 && waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : -1;
}

static int child_pipe[2]; /* the child's own timing, read back by timed_in_child */

/* In the child: the time since t0, to the parent. */
static int send_elapsed(uint64_t t0)
{
	uint64_t ns = now_ns() - t0;

	return write(child_pipe[1], &ns, sizeof(ns)) == sizeof(ns) ? 0 : -1;
}

static int landlock_top_level(void)
{
	struct landlock_ruleset_attr attr = { .handled_access_fs = LANDLOCK_ACCESS_FS_WRITE_FILE };
	uint64_t t0 = now_ns();
	int rs = (int)syscall(SYS_landlock_create_ruleset, &attr, sizeof(attr), 0);
	DIR *d = opendir("/");
	struct dirent *de;

	if (rs < 0 || !d)
		return -1;
	while ((de = readdir(d)) != NULL) {
		struct landlock_path_beneath_attr pb = { .allowed_access = LANDLOCK_ACCESS_FS_WRITE_FILE };

		if (de->d_name[0] == '.' || strcmp(de->d_name, "proc") == 0)
			continue;
		pb.parent_fd = openat(dirfd(d), de->d_name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
		if (pb.parent_fd >= 0) {
			syscall(SYS_landlock_add_rule, rs, LANDLOCK_RULE_PATH_BENEATH, &pb, 0);
			close(pb.parent_fd);
		}
	}
	closedir(d);
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 || syscall(SYS_landlock_restrict_self, rs, 0) != 0)
		return -1;
	return send_elapsed(t0);
}

static int seccomp_listener(void)
{
	struct sock_filter insns[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, 0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_execve, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_USER_NOTIF),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = { .len = sizeof(insns) / sizeof(insns[0]), .filter = insns };
	uint64_t t0 = now_ns();
	int fd;

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
		return -1;
	fd = (int)syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_NEW_LISTENER, &prog);
	if (fd < 0)
		return -1;
	return send_elapsed(t0);
}

static uint64_t timed_in_child(int (*f)(void))
{
	uint64_t ns = 0;

	if (in_child(f) != 0 || read(child_pipe[0], &ns, sizeof(ns)) != sizeof(ns))
		return 0;
	return ns;
}

static void report(const char *name, uint64_t *ns, unsigned n)
{
	qsort(ns, n, sizeof(*ns), cmp_u64);
	printf("%-22s min %9.2f us  median %9.2f us  (%u samples)\n", name, (double)ns[0] / 1000.0,
	       (double)ns[n / 2] / 1000.0, n);
}

int main(int argc, char **argv)
{
	static const struct op ops[] = {
		{ "syscall (getppid)", 1000, op_syscall },
		{ "page fault", 64, op_page_fault },
		{ "round trip (2 procs)", 200, op_round_trip },
		{ "fork+exit+wait", 1, op_fork_exit },
		{ "fanotify close", 1, op_fanotify_close },
		{ "fanotify flush+close", 1, op_fanotify_flush_close },
	};
	static uint64_t ns[MAX_SAMPLES];
	unsigned samples = 200;

	if (argc == 3 && strcmp(argv[1], "--samples") == 0)
		samples = (unsigned)strtoul(argv[2], NULL, 10);
	else if (argc != 1) {
		fprintf(stderr, "usage: kernel_costs [--samples N]\n");
		return 2;
	}
	if (samples == 0 || samples > MAX_SAMPLES) {
		fprintf(stderr, "kernel_costs: --samples must be 1 to %d\n", MAX_SAMPLES);
		return 2;
	}
	/* Map libcrypto as uie does, so that fork copies page tables of that size. */
	OPENSSL_init_crypto(0, NULL);
	if (pipe(child_pipe) != 0) {
		perror("kernel_costs: pipe");
		return 1;
	}
	for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++) {
		for (unsigned s = 0; s < samples; s++) {
			uint64_t t0 = now_ns();

			if (ops[i].run(ops[i].per_sample) != 0) {
				fprintf(stderr, "kernel_costs: %s: %s\n", ops[i].name, strerror(errno));
				return 1;
			}
			ns[s] = (now_ns() - t0) / ops[i].per_sample;
		}
		report(ops[i].name, ns, samples);
	}
	for (unsigned s = 0; s < samples; s++)
		if ((ns[s] = timed_in_child(landlock_top_level)) == 0) {
			fprintf(stderr, "kernel_costs: Landlock: %s\n", strerror(errno));
			return 1;
		}
	report("Landlock (top level)", ns, samples);
	for (unsigned s = 0; s < samples; s++)
		if ((ns[s] = timed_in_child(seccomp_listener)) == 0) {
			fprintf(stderr, "kernel_costs: seccomp: %s\n", strerror(errno));
			return 1;
		}
	report("seccomp + listener", ns, samples);
	return 0;
}
