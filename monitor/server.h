/* SPDX-License-Identifier: Apache-2.0 */
/* The monitor's socket: listening, and the poll() loop (measurements may go to workers). */
#ifndef UIE_MONITOR_SERVER_H
#define UIE_MONITOR_SERVER_H

#include <signal.h>
#include <sys/types.h>

#include "monitor.h"

#define UIE_SERVER_BACKLOG 128
#define UIE_SERVER_CLIENTS_CAP 65536 /* highest --max-clients */

/* Connection limits (uie-monitord options; docs/DESIGN.md "Fair service"). */
struct uie_server_limits {
	unsigned max_clients;     /* connections at once (--max-clients) */
	unsigned max_per_process; /* connections of one peer process (--max-clients-per-process) */
};

#define UIE_SERVER_DEFAULT_MAX_CLIENTS 1024u
#define UIE_SERVER_DEFAULT_PER_PROCESS 16u

/*
 * Binds and listens on path (SOCK_SEQPACKET).  The parent directory is
 * created 0750 when missing, and refused (UIE_E_STATE) when it exists but
 * is not ours or is group- or world-writable; a stale socket is replaced,
 * a live monitor refused (UIE_E_STATE; errno says which: EPERM or ENOTDIR
 * for the directory, EADDRINUSE for a live monitor, EISDIR or ENOTSOCK for
 * another file at path).  The socket gets mode 0660 and group gid.
 * Return: UIE_OK, UIE_E_INVAL, UIE_E_STATE, UIE_E_SYS.
 */
int uie_server_listen(const char *path, gid_t gid, int *lfd);

/*
 * Checks lim and raises the descriptor limit to fit max_clients; where the
 * hard limit is too low, max_clients is lowered to fit (with a diagnostic).
 * Call before the sandbox forbids setrlimit.
 * Return: UIE_OK, UIE_E_INVAL (a zero or too large limit), UIE_E_LIMIT, UIE_E_SYS.
 */
int uie_server_limits_apply(struct uie_server_limits *lim, const struct uie_monitor *m);

/*
 * Serves clients until *stop becomes nonzero, within lim (a connection past
 * a limit is closed at once, with a diagnostic).  Each message gets exactly
 * one answer; a client that sends while its answer cannot be delivered
 * (it does not read) is disconnected.  Return: UIE_OK, UIE_E_NOMEM, UIE_E_SYS.
 */
int uie_server_run(struct uie_monitor *m, const struct uie_server_limits *lim, int lfd,
		   volatile sig_atomic_t *stop);

#endif
