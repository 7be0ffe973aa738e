/* SPDX-License-Identifier: Apache-2.0 */
/* The monitor connection (connection.c) and the fast path fetched on it. */
#ifndef UIE_GUEST_CONNECTION_H
#define UIE_GUEST_CONNECTION_H

#include <stdbool.h>
#include <stdint.h>

#include "fastpath.h"
#include "uie/bridge.h"

struct uie_conn {
	/*
	 * Fast path: the hint and generation page fetched on the current
	 * connection (fp_ok), with the digests the monitor reported (ask.c).
	 * Fetched at the connection's first refusal (fp_tried), not at
	 * connect: the fast path refuses only digests learned from the
	 * monitor's refusals, so before one it could refuse nothing.
	 */
	struct uie_fastpath fp;
	int fd;  /* -1 while down */
	int err; /* errno of the last failed connect, for the refusal's message */
	bool fp_ok, fp_tried;
	bool fd_used; /* the handed-over connection (o->socket_fd) was taken */
	/*
	 * The monitor run (STATUS boot_id) this tree started under: a
	 * reconnection that finds another run refuses every later grant
	 * (docs/DESIGN.md, "Restart").
	 */
	bool have_boot, other_boot;
	uint8_t boot_id[UIE_BOOT_ID_LEN];
};

struct uie_sup;
/* Connects (when down and the monitor run is still ours). */
void uie_guest_connect(struct uie_sup *s);
/* Closes the monitor connection and what was fetched on it (hint, page, subjects). */
void uie_guest_disconnect(struct uie_sup *s);

#endif
