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

/* The started child: its pid, a pidfd and its filter's listener. */
struct uie_spawned {
	pid_t pid;
	int pidfd, listener;
};

/*
 * Starts the child, which confines itself and runs argv; receives its
 * listener.  meanwhile(ctx), when not NULL, runs in the parent while the
 * child confines itself (it cannot reach its first execve before the
 * listener is received and that execve answered).  pipe_ignored: SIGPIPE
 * was ignored when we were started (the program keeps it ignored; else it
 * gets the default back).  On success the caller owns sp's descriptors.
 */
int uie_guest_spawn(char *const argv[], int landlock_abi, const struct uie_guest_opts *o, bool pipe_ignored,
		    void (*meanwhile)(void *ctx), void *ctx, struct uie_spawned *sp);

/* ---- filter.c: the BPF program and its installation (in the child) ---- */
/* refuse_seqpacket: a SOCK_SEQPACKET path to the monitor may be in the tree's reach. */
int uie_guest_filter_install(int *listener, bool refuse_seqpacket);
/*
 * Sets no_new_privs and installs fp with a listener: the listener, or
 * -errno.  Raw system calls only (rawsys.h): safe in spawn.c's child.
 */
int uie_guest_filter_load(const struct sock_fprog *fp);
#define UIE_FILTER_MAX 128 /* instructions, and conditional jumps */
/*
 * The program uie_guest_filter_install would install, into ins (cap
 * instructions): the number of instructions, or a negative UIE_E_*
 * (tests/unit/runtime/filter_census.c runs it for the census check).
 */
int uie_guest_filter_program(struct sock_filter *ins, unsigned cap, bool refuse_seqpacket);

/* ---- landlock.c: no open-for-write below /proc in the tree (child) ---- */
/* 0, or -errno.  Raw system calls only, nothing allocated: safe in spawn.c's child. */
int uie_guest_landlock_apply(int abi);

#endif
