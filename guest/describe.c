/* SPDX-License-Identifier: Apache-2.0 */
#include "describe.h"
#include "uie/sys.h"

/*
 * What a diagnostic names: the caller's description, or else the object's
 * path, looked up only when a message is printed (a readlink per grant
 * was a measurable part of the interceptor's time).
 */
const char *uie_guest_describe(const char *what, int objfd, char *buf, size_t cap)
{
	if (what)
		return what;
	return uie_sys_fd_name(objfd, buf, cap) < 0 ? "an unnamed object" : buf;
}
