/* SPDX-License-Identifier: Apache-2.0 */
/* The monitor's socket: listening, and the single-threaded poll() loop. */
#ifndef UIE_MONITOR_SERVER_H
#define UIE_MONITOR_SERVER_H

#include <signal.h>
#include <sys/types.h>

#include "monitor.h"

#define UIE_SERVER_MAX_CLIENTS 64

/*
 * Binds and listens on path (SOCK_SEQPACKET).  The parent directory is
 * created 0750 when missing, and refused (UIE_E_STATE) when it exists but
 * is not ours or is group- or world-writable; a stale socket is replaced,
 * a live monitor refused (UIE_E_STATE).  The socket gets mode 0660 and group gid.
 * Return: UIE_OK, UIE_E_INVAL, UIE_E_STATE, UIE_E_SYS.
 */
int uie_server_listen(const char *path, gid_t gid, int *lfd);

/*
 * Serves clients until *stop becomes nonzero.  Each message gets exactly
 * one answer; a client that sends while its answer cannot be delivered
 * (it does not read) is disconnected.  Return: UIE_OK, UIE_E_SYS.
 */
int uie_server_run(struct uie_monitor *m, int lfd, volatile sig_atomic_t *stop);

#endif
