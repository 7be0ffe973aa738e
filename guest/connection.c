/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The monitor connection: opened on the first request (or the one handed
 * over with --socket-fd), checked to belong to the monitor run the tree
 * started under (the fast path's page and hint are fetched on it at its
 * first refusal, reports.c); closed on any bridge failure (the next
 * request reconnects; a handed-over connection cannot be reopened, so
 * every later request is refused).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "connection.h"
#include "reports.h"
#include "sup.h"
#include "uie/bridge.h"
#include "uie/err.h"

void uie_guest_disconnect(struct uie_sup *s)
{
	if (s->conn.fd >= 0)
		close(s->conn.fd);
	s->conn.fd = -1;
	uie_guest_fastpath_close(s);
	uie_guest_subjects_forget(&s->subjects); /* granted on that connection only */
}

/*
 * The run of the monitor behind a fresh connection must be the one this
 * tree started under: false (and other_boot set for good) when it is not,
 * or when it cannot be asked.
 */
static bool same_run(struct uie_sup *s)
{
	struct uie_status st;

	if (uie_bridge_status(s->conn.fd, &st) != UIE_OK)
		return false;
	if (!s->conn.have_boot) {
		memcpy(s->conn.boot_id, st.boot_id, sizeof(s->conn.boot_id));
		s->conn.have_boot = true;
		return true;
	}
	if (memcmp(s->conn.boot_id, st.boot_id, sizeof(s->conn.boot_id)) == 0)
		return true;
	s->conn.other_boot = true;
	fprintf(stderr,
		"uie: the monitor was restarted (now run %llu) while this tree ran: "
		"every later grant of this tree is refused; start it again\n",
		(unsigned long long)st.boot);
	return false;
}

static void connect_now(struct uie_sup *s)
{
	if (s->o->socket_fd >= 0) {
		/* One connection, handed over by uie-init: once closed, none is left (fail closed). */
		s->conn.fd = s->conn.fd_used ? -1 : s->o->socket_fd;
		s->conn.fd_used = true;
		if (s->conn.fd < 0)
			return;
	} else if (uie_bridge_connect(s->o->socket_path, &s->conn.fd) != UIE_OK) {
		s->conn.err = errno;
		s->conn.fd = -1;
		return;
	}
	if (!same_run(s))
		uie_guest_disconnect(s);
}

void uie_guest_connect(struct uie_sup *s)
{
	uint64_t begun;

	if (s->conn.fd >= 0 || s->conn.other_boot)
		return;
	begun = uie_phase_begin(&s->phases);
	connect_now(s);
	uie_phase_end(&s->phases, UIE_PHASE_CONNECT, begun);
}
