/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A new user namespace: every capability inside it (mounts, open_tree,
 * CAP_CHECKPOINT_RESTORE for PR_SET_MM_MAP), the door the whole-boot guard
 * closes (guest/lsm/guard.bpf.c).  `userns`: unshare(CLONE_NEWUSER).
 */
#include <sched.h>

#include "attempt.h"

int main(void)
{
	if (unshare(CLONE_NEWUSER) != 0)
		return refused("unshare(CLONE_NEWUSER)", errno);
	return gained("a new user namespace");
}
