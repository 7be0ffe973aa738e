/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Confinement of uie-monitord: a dedicated unprivileged user, no core dumps
 * or ptrace by other processes of that user, no new privileges, and a
 * seccomp allow-list of the system calls its request loop needs.
 */
#ifndef UIE_MONITOR_SANDBOX_H
#define UIE_MONITOR_SANDBOX_H

#include <stdbool.h>
#include <sys/types.h>

/*
 * Looks up user name, creating it as a system user (no home, no login
 * shell) when missing and create is set.  Return: UIE_OK, UIE_E_NOTFOUND,
 * UIE_E_SYS.
 */
int uie_sandbox_user(const char *name, bool create, uid_t *uid, gid_t *gid);

/*
 * Drops to uid/gid with no supplementary groups and checks that root
 * cannot be regained.  Return: UIE_OK, UIE_E_SYS.
 */
int uie_sandbox_drop(uid_t uid, gid_t gid);

/*
 * Makes the process non-dumpable, sets no_new_privs and installs the
 * seccomp filter.  With net, socket() and connect() stay allowed (the
 * swtpm TCTI opens control connections).  Return: UIE_OK, UIE_E_SYS.
 */
int uie_sandbox_lock(bool net);

#endif
