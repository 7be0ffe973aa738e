/* SPDX-License-Identifier: Apache-2.0 */
/*
 * VM mode, guest side: the relay between the guest's local bridge socket
 * (SOCK_SEQPACKET, docs/BRIDGE.md section 1: the interceptor and the `uie`
 * tools connect to it unchanged) and the monitor outside the guest, reached
 * through the virtio-serial port (section 11).  Requests are forwarded one
 * at a time; a MEASURE_REQ's descriptor becomes the frame list of a
 * MEASURE_VM_REQ (section 12).  The relay decides nothing: every answer it
 * gives on its own is an error, which the interceptor applies as DENY.
 */
#ifndef UIE_GUEST_VMRELAY_H
#define UIE_GUEST_VMRELAY_H

#include <signal.h>

#define UIE_VMRELAY_DEFAULT_PORT "/dev/virtio-ports/uie.bridge"

struct uie_vmrelay_opts {
	const char *port;   /* virtio-serial port device */
	const char *socket; /* local bridge socket to serve */
	int ready_fd;       /* "READY\n" once serving, or -1 */
	int verbose;
};

/*
 * Opens the port and /proc/self/pagemap, listens on opts->socket and
 * serves until *stop.  Return: UIE_OK, or the setup error (UIE_E_PEER: no
 * port; UIE_E_SYS).
 */
int uie_vmrelay_run(const struct uie_vmrelay_opts *opts, volatile sig_atomic_t *stop);

#endif
