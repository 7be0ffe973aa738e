/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Seccomp answers.  Every response starts as a denial (loop.c); only a
 * monitor ALLOW turns it into CONTINUE.
 */
#include <linux/seccomp.h>
#include <sys/ioctl.h>

#include "answer.h"

void uie_guest_deny(struct seccomp_notif_resp *r, int err)
{
	r->flags = 0;
	r->val = 0;
	r->error = -err;
}

void uie_guest_cont(struct seccomp_notif_resp *r)
{
	r->flags = SECCOMP_USER_NOTIF_FLAG_CONTINUE;
	r->val = 0;
	r->error = 0;
}

bool uie_guest_id_valid(int listener, uint64_t id)
{
	return ioctl(listener, SECCOMP_IOCTL_NOTIF_ID_VALID, &id) == 0;
}
