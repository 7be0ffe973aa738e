/* SPDX-License-Identifier: Apache-2.0 */
/*
 * VM mode, guest side: the relay between the guest's local bridge socket
 * (SOCK_SEQPACKET, docs/BRIDGE.md section 1: the interceptor and the `uie`
 * tools connect to it unchanged) and the monitor outside the guest, reached
 * through the virtio-serial port (section 11).  Requests are forwarded one
 * at a time; a MEASURE_REQ's descriptor becomes the frame list of a
 * MEASURE_VM_REQ (section 12).  The relay decides nothing: every answer it
 * gives on its own is an error, which the interceptor applies as DENY.
 *
 * Programs inside a supervised tree cannot create SOCK_SEQPACKET sockets
 * (guest/filter.c), so they cannot reach that socket.  uie-init serves no
 * such socket at all: it hands the relay one end of a socket pair and the
 * interceptor the other (client_fd, `uie run --socket-fd`), so nothing in
 * the guest listens for reports and the tree may use SOCK_SEQPACKET.  When whole user
 * space is supervised (uie-init as PID 1) the `uie` tools run in the tree
 * too: for them the relay serves a second, SOCK_STREAM socket (framed as
 * on the port, section 11) that forwards only STATUS, EXPORT, INSTALL,
 * PUBKEY, TPM_KEYS and ACTIVATE requests (the codec table's "tree"
 * senders, docs/BRIDGE.md 3).
 * Everything a forger would want (MEASURE, MEASURE_VM, fast-path and
 * violation reports, CHECKPOINT, HINT, GEN) is refused there without
 * reaching the monitor, and the bridge socket refuses the relay's own
 * frame-list requests.
 */
#ifndef UIE_GUEST_VMRELAY_H
#define UIE_GUEST_VMRELAY_H

#include <signal.h>

#define UIE_VMRELAY_DEFAULT_PORT "/dev/virtio-ports/uie.bridge"
#define UIE_VMRELAY_DEFAULT_CONTROL "/run/uie/control.sock"

struct uie_vmrelay_opts {
	const char *port;    /* virtio-serial port device */
	const char *socket;  /* local bridge socket to serve, or NULL */
	int client_fd;       /* the interceptor's connection, already made (uie-init), or -1 */
	const char *control; /* control-only stream socket to serve, or NULL */
	int port_fd;         /* the port, already open (uie-init keeps a copy), or -1: open port */
	int ready_fd;        /* "READY\n" once serving, or -1 */
	int verbose;
};

/*
 * Opens the port (unless opts->port_fd) and /proc/self/pagemap, listens on
 * opts->socket (and opts->control), serves them and opts->client_fd until
 * *stop.  Closes opts->port_fd and opts->client_fd.  Return: UIE_OK, or the setup error (UIE_E_PEER: no
 * port; UIE_E_SYS).
 */
int uie_vmrelay_run(const struct uie_vmrelay_opts *opts, volatile sig_atomic_t *stop);

#endif
