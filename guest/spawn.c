/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Starting the supervised program.  The child confines itself (no new
 * privileges, Landlock, the seccomp filter), hands its listener to the
 * parent over a socketpair (SCM_RIGHTS, through lib/bridge/fdpass like every
 * descriptor the project passes) and then executes the program, so
 * that the very first execve is already checked.  If anything in that
 * sequence fails the program is never executed.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/personality.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fdpass.h"
#include "confine.h"
#include "uie/bridge.h"
#include "uie/err.h"

/* The one byte that goes with the listener over the socketpair. */
static const uint8_t listener_tag = 'L';

/* Receives the child's listener: one message of one tag byte and one descriptor. */
static int recv_listener(int sock, int *listener)
{
	uint8_t buf[UIE_BRIDGE_MAX_MSG];
	size_t len;
	int r = uie_bridge_recv(sock, buf, &len, listener, -1);

	if (r != UIE_OK)
		return r == UIE_E_SYS ? r : UIE_E_PEER;
	if (len == 1 && buf[0] == listener_tag && *listener >= 0)
		return UIE_OK;
	if (*listener >= 0)
		close(*listener);
	*listener = -1;
	return UIE_E_PEER;
}

/* In the child: never returns. */
/*
 * --allow-mounts (a whole systemd boot, which mounts): no Landlock domain,
 * since every domain forbids mount(2).  What it guarded against the
 * interceptor (ptrace-mode access: pidfd_getfd of the monitor connection,
 * /proc/PID/mem) is refused instead by the interceptor being non-dumpable
 * and the tree lacking CAP_SYS_PTRACE.  Writes into the code of another
 * process of the tree through /proc/PID/mem are then not refused
 * (docs/THREAT-MODEL.md, "Whole boots").
 */
static int drop_ptrace_cap(void)
{
	struct __user_cap_header_struct h = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct d[2];
	const uint32_t bit = 1u << (CAP_SYS_PTRACE % 32);

	if (prctl(PR_CAPBSET_DROP, CAP_SYS_PTRACE, 0, 0, 0) != 0 || syscall(SYS_capget, &h, d) != 0)
		return UIE_E_SYS;
	d[CAP_SYS_PTRACE / 32].effective &= ~bit;
	d[CAP_SYS_PTRACE / 32].permitted &= ~bit;
	d[CAP_SYS_PTRACE / 32].inheritable &= ~bit;
	if (syscall(SYS_capset, &h, d) != 0)
		return UIE_E_SYS;
	return prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_LOWER, CAP_SYS_PTRACE, 0, 0) == 0 || errno == EINVAL
		       ? UIE_OK
		       : UIE_E_SYS;
}

static void child(int sock, pid_t parent, int landlock_abi, const struct uie_guest_opts *o,
		  char *const argv[])
{
	int listener;

	/* Die with the supervisor; fail-closed does not depend on it (see THREAT-MODEL). */
	if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) != 0 || getppid() != parent)
		_exit(127);
	/* READ_IMPLIES_EXEC would be inherited across the exec below. */
	if (personality(0xffffffff) != -1 &&
	    personality((unsigned long)personality(0xffffffff) & ~(unsigned long)READ_IMPLIES_EXEC) == -1)
		_exit(127);
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
		_exit(127);
	if (o->allow_mounts && drop_ptrace_cap() != UIE_OK) {
		fprintf(stderr, "uie: cannot drop CAP_SYS_PTRACE: %s\n", strerror(errno));
		_exit(127);
	}
	if (!o->allow_mounts && uie_guest_landlock_apply(landlock_abi) != UIE_OK) {
		fprintf(stderr, "uie: cannot restrict /proc writes with Landlock: %s\n", strerror(errno));
		_exit(127);
	}
	if (uie_guest_filter_install(&listener, o->socket_fd < 0) != UIE_OK) {
		fprintf(stderr, "uie: cannot install the seccomp filter: %s\n", strerror(errno));
		_exit(127);
	}
	if (uie_bridge_send(sock, &listener_tag, 1, listener) != UIE_OK)
		_exit(127);
	close(listener);
	close(sock);
	execvp(argv[0], argv);
	fprintf(stderr, "uie: cannot execute %s: %s\n", argv[0], strerror(errno));
	_exit(errno == ENOENT ? 127 : 126);
}

int uie_guest_spawn(char *const argv[], int landlock_abi, const struct uie_guest_opts *o,
		    void (*meanwhile)(void *ctx), void *ctx, pid_t *pid, int *pidfd, int *listener)
{
	int sv[2], r;
	pid_t parent = getpid(), c;

	*pid = -1;
	*pidfd = -1;
	*listener = -1;
	if (o->allow_mounts && prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) != 0)
		return UIE_E_SYS; /* without Landlock's scope, this keeps the tree off our memory and fds */
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) != 0)
		return UIE_E_SYS;
	c = fork();
	if (c < 0) {
		close(sv[0]);
		close(sv[1]);
		return UIE_E_SYS;
	}
	if (c == 0) {
		close(sv[0]);
		child(sv[1], parent, landlock_abi, o, argv);
	}
	close(sv[1]);
	if (meanwhile)
		meanwhile(ctx);
	r = recv_listener(sv[0], listener);
	close(sv[0]);
	if (r == UIE_OK) {
		*pidfd = (int)syscall(SYS_pidfd_open, c, 0);
		if (*pidfd < 0)
			r = UIE_E_SYS;
	}
	if (r != UIE_OK) {
		if (*listener >= 0)
			close(*listener);
		*listener = -1;
		kill(c, SIGKILL);
		waitpid(c, NULL, 0);
		return r;
	}
	*pid = c;
	return UIE_OK;
}
