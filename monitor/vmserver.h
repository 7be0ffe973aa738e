/* SPDX-License-Identifier: Apache-2.0 */
/*
 * VM mode: the monitor serves one guest over the host end of its
 * virtio-serial port, a QEMU chardev that connects to this stream socket
 * (`-chardev socket,id=c0,path=PATH,reconnect=1`).  Frames of
 * docs/BRIDGE.md section 11; one connection at a time.
 */
#ifndef UIE_MONITOR_VMSERVER_H
#define UIE_MONITOR_VMSERVER_H

#include <signal.h>

#include "monitor.h"

/*
 * Binds and listens on path (SOCK_STREAM, mode 0600).  A socket left at
 * path is replaced; anything else there is refused (UIE_E_STATE).
 * Return: UIE_OK, UIE_E_INVAL, UIE_E_STATE, UIE_E_SYS.
 */
int uie_vmserver_listen(const char *path, int *lfd);

/*
 * Serves one message of guest (its record quota: uie_mon_client_init) on
 * the connected stream c and answers it.  Return: UIE_OK; UIE_E_PEER when
 * the connection is over (closed, timed out, or a frame that does not
 * parse: the stream cannot be resynchronised).
 */
int uie_vmserver_serve_one(struct uie_monitor *m, struct uie_mon_client *guest, int c);

/* Accepts one guest connection at a time and serves it until *stop. */
int uie_vmserver_run(struct uie_monitor *m, int lfd, volatile sig_atomic_t *stop);

#endif
