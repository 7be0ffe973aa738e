/* SPDX-License-Identifier: Apache-2.0 */
/* A descriptor's file by its /proc/self/fd link (include/uie/sys.h). */
#include <errno.h>
#include <stdio.h>
#include <unistd.h>

#include "uie/sys.h"

static void link_of(int fd, char *link, size_t cap)
{
	snprintf(link, cap, "/proc/self/fd/%d", fd);
}

ssize_t uie_sys_fd_name(int fd, char *buf, size_t cap)
{
	char link[32];
	ssize_t n;

	if (cap == 0) {
		errno = EINVAL;
		return -1;
	}
	buf[0] = '\0';
	if (fd < 0) {
		errno = EBADF;
		return -1;
	}
	link_of(fd, link, sizeof(link));
	if ((n = readlink(link, buf, cap - 1)) < 0)
		return -1;
	buf[n] = '\0';
	return n;
}

int uie_sys_reopen_read(int fd)
{
	char link[32];

	link_of(fd, link, sizeof(link));
	return open(link, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
}
