/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The whole-boot guard (guest/lsm/guard.bpf.c; docs/SYSCALLS.md,
 * "Whole-boot mode"): what the tree's Landlock domain refuses in process
 * mode, refused by a BPF LSM program when the tree runs without one.
 */
#ifndef UIE_GUEST_LSM_GUARD_H
#define UIE_GUEST_LSM_GUARD_H

#include <stdbool.h>

struct uie_guard;

/*
 * Loads and attaches the program, then checks in a marked grandchild that
 * a write open of /proc/self/mem and of the core_pattern sysctl are refused.
 * UIE_OK with *out, or UIE_E_SYS (errno set) with *step naming what failed.
 */
int uie_guard_start(bool allow_userns, struct uie_guard **out, const char **step);

/* Marks the calling process, single-threaded, as the tree's first task (before its exec). */
int uie_guard_join(struct uie_guard *g);

#endif
