/* SPDX-License-Identifier: Apache-2.0 */
/* Kernel features with fallbacks, probed once at start-up (kernel.c). */
#ifndef UIE_GUEST_KERNEL_H
#define UIE_GUEST_KERNEL_H

#include <stdbool.h>

struct uie_kernel {
	bool pidfd_thread;   /* PIDFD_THREAD, Linux 6.9 */
	bool sync_wake_up;   /* SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP, Linux 6.6 (tried on the listener) */
	bool procmap_query;  /* PROCMAP_QUERY, Linux 6.11 */
	bool pidfd_get_info; /* PIDFD_GET_INFO, Linux 6.13 */
	int landlock_abi;    /* 1 (Linux 5.13) or more; 2 (5.19) adds LANDLOCK_ACCESS_FS_REFER */
};

/*
 * Probes once; prints (verbose) what falls back.  Return: UIE_OK, or
 * UIE_E_VERSION after naming on stderr a feature nothing replaces.
 */
int uie_guest_kernel_probe(struct uie_kernel *k, int verbose);

#endif
