/* SPDX-License-Identifier: Apache-2.0 */
#include <stdio.h>
#include <unistd.h>

#include "describe.h"

/*
 * What a diagnostic names: the caller's description, or else the object's
 * path, looked up only when a message is printed (a readlink per grant
 * was a measurable part of the interceptor's time).
 */
const char *uie_guest_describe(const char *what, int objfd, char *buf, size_t cap)
{
	char link[48];
	ssize_t n;

	if (what)
		return what;
	snprintf(link, sizeof(link), "/proc/self/fd/%d", objfd);
	n = objfd < 0 ? -1 : readlink(link, buf, cap - 1);
	if (n < 0)
		return "an unnamed object";
	buf[n] = '\0';
	return buf;
}
