/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Seccomp constants newer than the kernel headers we build with (Debian
 * 12's are Linux 6.1): the values are the kernel's ABI, so a binary built
 * here uses them on a newer kernel and probes for them at run time (an
 * older kernel refuses them with EINVAL).  And the start every classic
 * BPF filter of ours has.
 */
#ifndef UIE_SECCOMP_H
#define UIE_SECCOMP_H

#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>

#ifndef SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV
#define SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV (1UL << 5) /* Linux 5.19 */
#endif
#ifndef SECCOMP_IOCTL_NOTIF_SET_FLAGS
#define SECCOMP_IOCTL_NOTIF_SET_FLAGS SECCOMP_IOW(4, __u64) /* Linux 6.6 */
#endif
#ifndef SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP
#define SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP (1UL << 0) /* Linux 6.6 */
#endif

/*
 * A filter's first instructions: a system call of an architecture other
 * than x86-64 ends with other (a SECCOMP_RET_ action); for the others the
 * accumulator then holds the call's number.
 */
#define UIE_BPF_X86_64_NR(other)                                                 \
	BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)), \
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 1, 0),    \
		BPF_STMT(BPF_RET | BPF_K, (other)),                              \
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr))

#endif
