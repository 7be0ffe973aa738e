/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The floor of user notification (the `floor` configuration of bench/run
 * and bench/real/run, docs/PERFORMANCE.md): a supervisor that does nothing
 * but answer.  Its filter has the shape of guest/filter.c's where it
 * matters for cost (the x86-64 check, then execve/execveat and
 * mmap/mprotect/pkey_mprotect with PROT_EXEC to user space, everything
 * else allowed in the kernel), and every notification is answered with
 * SECCOMP_USER_NOTIF_FLAG_CONTINUE at once: poll, NOTIF_RECV, NOTIF_SEND,
 * in one thread.  What any design that stops a thread and asks a process
 * costs on this kernel; Enforce / floor is our own share.
 *
 *   floor_notifier -- PROG [ARGS...]
 *
 * Forks; the child installs the filter (NEW_LISTENER, as `uie run` does),
 * hands the listener over a socketpair, and execs PROG.  The exit status is
 * PROG's (128 + signal when killed), 127 when it could not be started.
 */
#include <errno.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <poll.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fdpass.h"
#include "uie/bridge.h"
#include "uie/err.h"
#include "uie/seccomp.h"

#define ARG2_LO ((uint32_t)offsetof(struct seccomp_data, args[2]))

/* Installs the filter in the calling process; the listener, or -1. */
static int install(void)
{
	/* Jump offsets count the instructions after the jump. */
	struct sock_filter f[] = {
		UIE_BPF_X86_64_NR(SECCOMP_RET_KILL_PROCESS),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_execve, 8, 0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_execveat, 7, 0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_mmap, 3, 0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_mprotect, 2, 0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_pkey_mprotect, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, ARG2_LO), /* prot */
		BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, PROT_EXEC, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_USER_NOTIF),
	};
	struct sock_fprog fp = { .len = (unsigned short)(sizeof(f) / sizeof(f[0])), .filter = f };
	long fd;

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
		return -1;
	fd = syscall(__NR_seccomp, SECCOMP_SET_MODE_FILTER,
		     SECCOMP_FILTER_FLAG_NEW_LISTENER | SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV, &fp);
	if (fd < 0 && errno == EINVAL) /* kernels before 5.19 */
		fd = syscall(__NR_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_NEW_LISTENER, &fp);
	return (int)fd;
}

static void child(int sock, char **argv)
{
	static const uint8_t tag = 'L';
	int listener = install();

	if (listener < 0) {
		fprintf(stderr, "floor_notifier: seccomp filter: %s\n", strerror(errno));
		_exit(127);
	}
	if (uie_bridge_send(sock, &tag, 1, listener) != UIE_OK) {
		fprintf(stderr, "floor_notifier: cannot hand the listener over\n");
		_exit(127);
	}
	close(listener);
	close(sock);
	execvp(argv[0], argv);
	fprintf(stderr, "floor_notifier: %s: %s\n", argv[0], strerror(errno));
	_exit(127);
}

/* Answers CONTINUE to every notification until no process uses the filter. */
static int serve(int listener)
{
	struct seccomp_notif_sizes sz;
	struct seccomp_notif *n;
	struct seccomp_notif_resp *r;
	__u64 flags = SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP;

	if (syscall(__NR_seccomp, SECCOMP_GET_NOTIF_SIZES, 0, &sz) != 0)
		return -1;
	n = calloc(1, sz.seccomp_notif);
	r = calloc(1, sz.seccomp_notif_resp);
	if (!n || !r) {
		free(n);
		free(r);
		return -1;
	}
	/* As `uie run` does (guest/loop.c): the answer wakes the caller on this CPU. */
	(void)ioctl(listener, SECCOMP_IOCTL_NOTIF_SET_FLAGS, flags);
	for (;;) {
		struct pollfd p = { .fd = listener, .events = POLLIN };

		if (poll(&p, 1, -1) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		if (!(p.revents & POLLIN)) {
			if (p.revents & (POLLHUP | POLLERR))
				break;
			continue;
		}
		memset(n, 0, sz.seccomp_notif);
		if (ioctl(listener, SECCOMP_IOCTL_NOTIF_RECV, n) != 0)
			continue; /* the caller died before it was received */
		memset(r, 0, sz.seccomp_notif_resp);
		r->id = n->id;
		r->flags = SECCOMP_USER_NOTIF_FLAG_CONTINUE;
		(void)ioctl(listener, SECCOMP_IOCTL_NOTIF_SEND, r); /* ENOENT: the caller is gone */
	}
	free(n);
	free(r);
	return 0;
}

int main(int argc, char **argv)
{
	uint8_t buf[UIE_BRIDGE_MAX_MSG];
	size_t len = sizeof(buf);
	int sv[2], listener = -1, ws;
	pid_t pid;

	if (argc < 3 || strcmp(argv[1], "--") != 0) {
		fprintf(stderr, "usage: floor_notifier -- PROG [ARGS...]\n");
		return 2;
	}
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) != 0) {
		perror("floor_notifier: socketpair");
		return 127;
	}
	pid = fork();
	if (pid < 0) {
		perror("floor_notifier: fork");
		return 127;
	}
	if (pid == 0) {
		close(sv[0]);
		child(sv[1], argv + 2);
	}
	close(sv[1]);
	if (uie_bridge_recv(sv[0], buf, &len, &listener, -1) != UIE_OK || listener < 0) {
		fprintf(stderr, "floor_notifier: no listener from the child\n");
		waitpid(pid, &ws, 0);
		return 127;
	}
	close(sv[0]);
	if (serve(listener) != 0)
		perror("floor_notifier: serving notifications");
	close(listener);
	if (waitpid(pid, &ws, 0) != pid)
		return 127;
	return WIFEXITED(ws) ? WEXITSTATUS(ws) : 128 + WTERMSIG(ws);
}
