/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Starting the supervised program.  The child confines itself (no new
 * privileges, Landlock, the seccomp filter), hands its listener to the
 * parent over a socketpair (SCM_RIGHTS) and then executes the program, so
 * that the very first execve is already checked.  If anything in that
 * sequence fails the program is never executed.
 */
#include <errno.h>
#include <fcntl.h>
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

#include "sup.h"
#include "uie/err.h"

static int send_fd(int sock, int fd)
{
	char byte = 'L';
	union { struct cmsghdr h; char b[CMSG_SPACE(sizeof(int))]; } cm;
	struct iovec iov = { &byte, 1 };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = cm.b,
			     .msg_controllen = sizeof(cm.b) };
	struct cmsghdr *c;

	memset(&cm, 0, sizeof(cm));
	c = CMSG_FIRSTHDR(&mh);
	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(c), &fd, sizeof(int));
	return sendmsg(sock, &mh, MSG_NOSIGNAL) == 1 ? UIE_OK : UIE_E_SYS;
}

static int recv_fd(int sock, int *fd)
{
	char byte;
	union { struct cmsghdr h; char b[CMSG_SPACE(sizeof(int))]; } cm;
	struct iovec iov = { &byte, 1 };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = cm.b,
			     .msg_controllen = sizeof(cm.b) };
	struct cmsghdr *c;
	ssize_t n;

	*fd = -1;
	do
		n = recvmsg(sock, &mh, MSG_CMSG_CLOEXEC);
	while (n < 0 && errno == EINTR);
	if (n != 1 || byte != 'L' || (mh.msg_flags & MSG_CTRUNC))
		return UIE_E_PEER;
	c = CMSG_FIRSTHDR(&mh);
	if (!c || c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS ||
	    c->cmsg_len != CMSG_LEN(sizeof(int)))
		return UIE_E_PEER;
	memcpy(fd, CMSG_DATA(c), sizeof(int));
	return UIE_OK;
}

/* In the child: never returns. */
static void child(int sock, pid_t parent, int landlock_abi, char *const argv[])
{
	int listener;

	/* Die with the supervisor; fail-closed does not depend on it (see THREAT-MODEL). */
	if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) != 0 || getppid() != parent)
		_exit(127);
	/* READ_IMPLIES_EXEC would be inherited across the exec below. */
	if (personality(0xffffffff) != -1 &&
	    personality((unsigned long)personality(0xffffffff) & ~(unsigned long)READ_IMPLIES_EXEC) ==
		    -1)
		_exit(127);
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
		_exit(127);
	if (uie_guest_landlock_apply(landlock_abi) != UIE_OK) {
		fprintf(stderr, "uie: cannot restrict /proc writes with Landlock: %s\n",
			strerror(errno));
		_exit(127);
	}
	if (uie_guest_filter_install(&listener) != UIE_OK) {
		fprintf(stderr, "uie: cannot install the seccomp filter: %s\n", strerror(errno));
		_exit(127);
	}
	if (send_fd(sock, listener) != UIE_OK)
		_exit(127);
	close(listener);
	close(sock);
	execvp(argv[0], argv);
	fprintf(stderr, "uie: cannot execute %s: %s\n", argv[0], strerror(errno));
	_exit(errno == ENOENT ? 127 : 126);
}

int uie_guest_spawn(char *const argv[], int landlock_abi, pid_t *pid, int *pidfd, int *listener)
{
	int sv[2], r;
	pid_t parent = getpid(), c;

	*pid = -1;
	*pidfd = -1;
	*listener = -1;
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
		child(sv[1], parent, landlock_abi, argv);
	}
	close(sv[1]);
	r = recv_fd(sv[0], listener);
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
