/* SPDX-License-Identifier: Apache-2.0 */
#include "fdpass.h"

#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "uie/bridge.h"
#include "uie/err.h"
#include "uie/sys.h"

/* Room for a few descriptors so that extra ones are seen (and closed). */
#define FD_SLOTS 8

void uie_bridge_attach_fd(struct msghdr *mh, union uie_fd_ctl *ctl, int fd)
{
	struct cmsghdr *c;

	memset(ctl, 0, sizeof(*ctl));
	mh->msg_control = ctl->buf;
	mh->msg_controllen = sizeof(ctl->buf);
	c = CMSG_FIRSTHDR(mh);
	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(c), &fd, sizeof(int));
}

int uie_bridge_send(int sock, const uint8_t *buf, size_t len, int fd)
{
	union uie_fd_ctl ctl;
	struct iovec iov = { .iov_base = (void *)buf, .iov_len = len };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };
	ssize_t n;

	if (fd >= 0)
		uie_bridge_attach_fd(&mh, &ctl, fd);
	do
		n = sendmsg(sock, &mh, MSG_NOSIGNAL);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return errno == EPIPE || errno == ECONNRESET || errno == ENOTCONN ? UIE_E_PEER : UIE_E_SYS;
	return (size_t)n == len ? UIE_OK : UIE_E_SYS;
}

/* Collects SCM_RIGHTS descriptors: keeps the first in *fd, counts all. */
static unsigned take_fds(struct msghdr *mh, int *fd)
{
	unsigned count = 0;

	for (struct cmsghdr *c = CMSG_FIRSTHDR(mh); c; c = CMSG_NXTHDR(mh, c)) {
		size_t n;

		if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS)
			continue;
		n = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
		for (size_t i = 0; i < n; i++) {
			int f;

			memcpy(&f, CMSG_DATA(c) + i * sizeof(int), sizeof(int));
			if (count++ == 0)
				*fd = f;
			else
				close(f);
		}
	}
	return count;
}

/* One recvmsg of mh (its control buffer set again), retried on EINTR. */
static ssize_t recv_into(int sock, struct msghdr *mh, size_t controllen, int flags)
{
	ssize_t n;

	mh->msg_controllen = controllen;
	do
		n = recvmsg(sock, mh, MSG_CMSG_CLOEXEC | flags);
	while (n < 0 && errno == EINTR);
	return n;
}

int uie_bridge_recv(int sock, uint8_t *buf, size_t *len, int *fd, int timeout_ms)
{
	union {
		struct cmsghdr align;
		char buf[CMSG_SPACE(FD_SLOTS * sizeof(int))];
	} ctl;
	struct iovec iov = { .iov_base = buf, .iov_len = UIE_BRIDGE_MAX_MSG };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctl.buf };
	unsigned nfds;
	ssize_t n;

	*len = 0;
	*fd = -1;
	/* An answer is often there already (the monitor ran while we sent): poll only when it is not. */
	n = recv_into(sock, &mh, sizeof(ctl.buf), timeout_ms >= 0 ? MSG_DONTWAIT : 0);
	if (n < 0 && timeout_ms >= 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
		struct pollfd p = { .fd = sock, .events = POLLIN };
		int r;

		do
			r = poll(&p, 1, timeout_ms);
		while (r < 0 && errno == EINTR);
		if (r < 0)
			return UIE_E_SYS;
		if (r == 0)
			return UIE_E_TIMEOUT;
		n = recv_into(sock, &mh, sizeof(ctl.buf), 0);
	}
	if (n < 0)
		return errno == ECONNRESET ? UIE_E_PEER : UIE_E_SYS;
	nfds = take_fds(&mh, fd);
	if (n == 0 && nfds == 0)
		return UIE_E_PEER;
	if ((mh.msg_flags & MSG_TRUNC) || (mh.msg_flags & MSG_CTRUNC) || nfds > 1) {
		if (*fd >= 0)
			close(*fd);
		*fd = -1;
		*len = (size_t)n < UIE_BRIDGE_MAX_MSG ? (size_t)n : UIE_BRIDGE_MAX_MSG; /* for the refusal */
		return mh.msg_flags & MSG_TRUNC ? UIE_E_LIMIT : UIE_E_FORMAT;
	}
	*len = (size_t)n;
	return UIE_OK;
}

int uie_memfd_open(const char *name, int *fd)
{
	*fd = memfd_create(name, MFD_CLOEXEC | MFD_ALLOW_SEALING);
	return *fd >= 0 ? UIE_OK : UIE_E_SYS;
}

int uie_memfd_append(int fd, const void *p, size_t len)
{
	const uint8_t *b = p;
	size_t off = 0;

	while (off < len) {
		ssize_t n = write(fd, b + off, len - off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return UIE_E_IO;
		off += (size_t)n;
	}
	return UIE_OK;
}

int uie_memfd_seal(int fd)
{
	return fcntl(fd, F_ADD_SEALS, UIE_MEMFD_SEALS) == 0 ? UIE_OK : UIE_E_SYS;
}

int uie_memfd_create_sealed(const char *name, const void *p, size_t len, int *fd)
{
	int f, r;

	*fd = -1;
	if ((r = uie_memfd_open(name, &f)) != UIE_OK)
		return r;
	if ((r = uie_memfd_append(f, p, len)) != UIE_OK || (r = uie_memfd_seal(f)) != UIE_OK) {
		close(f);
		return r;
	}
	*fd = f;
	return UIE_OK;
}

int uie_memfd_check(int fd, uint64_t len)
{
	return uie_sealed_check(fd, len, UIE_MEMFD_SEALS) == UIE_OK ? UIE_OK : UIE_E_FORMAT;
}

int uie_memfd_read_alloc(int fd, uint64_t len, uint64_t max, uint8_t **out)
{
	uint8_t *b;
	uint64_t off = 0;
	int r;

	*out = NULL;
	if (len > max || len > SIZE_MAX)
		return UIE_E_LIMIT;
	if ((r = uie_memfd_check(fd, len)) != UIE_OK)
		return r;
	b = malloc(len ? (size_t)len : 1);
	if (!b)
		return UIE_E_NOMEM;
	while (off < len) {
		ssize_t n = pread(fd, b + off, (size_t)(len - off), (off_t)off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			free(b);
			return UIE_E_IO;
		}
		off += (uint64_t)n;
	}
	*out = b;
	return UIE_OK;
}
