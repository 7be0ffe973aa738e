/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Starting the supervised program (spawn.c) and the confinement its child
 * applies to itself before the first execve: the seccomp filter
 * (filter.c) and the Landlock domain (landlock.c).  (Not spawn.h: guest/ is
 * on the include path of `uie`, where that name would hide <spawn.h>.)
 */
#ifndef UIE_GUEST_CONFINE_H
#define UIE_GUEST_CONFINE_H

#include <linux/filter.h>
#include <stdbool.h>
#include <sys/types.h>

#include "guest.h"

/*
 * Forks the child, which confines itself and runs argv; receives its
 * listener.  meanwhile(ctx), when not NULL, runs in the parent while the
 * child confines itself (it cannot reach its first execve before the
 * listener is received and that execve answered).
 */
int uie_guest_spawn(char *const argv[], int landlock_abi, const struct uie_guest_opts *o,
		    void (*meanwhile)(void *ctx), void *ctx, pid_t *pid, int *pidfd, int *listener);

/* ---- filter.c: the BPF program and its installation (in the child) ---- */
/* refuse_seqpacket: a SOCK_SEQPACKET path to the monitor may be in the tree's reach. */
int uie_guest_filter_install(int *listener, bool refuse_seqpacket);
#define UIE_FILTER_MAX 128 /* instructions, and conditional jumps */
/*
 * The program uie_guest_filter_install would install, into ins (cap
 * instructions): the number of instructions, or a negative UIE_E_*
 * (tests/unit/runtime/filter_census.c runs it for the census check).
 */
int uie_guest_filter_program(struct sock_filter *ins, unsigned cap, bool refuse_seqpacket);

/* ---- landlock.c: no open-for-write below /proc in the tree (child) ---- */
int uie_guest_landlock_apply(int abi);

#endif
