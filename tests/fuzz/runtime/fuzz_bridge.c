/* SPDX-License-Identifier: Apache-2.0 */
/*
 * libFuzzer target: the bridge message decoder, and the monitor's whole
 * request path behind it.  An accepted message must re-encode to exactly
 * the same bytes (no two encodings of one message, nothing ignored); every
 * input must get exactly one answer that itself decodes.  The input is also
 * read as fast-path entries (the same re-encoding rule for the first) and
 * sent to the monitor as a FASTPATH_REQ memfd.  A VIOLATION_REQ that decodes
 * is served a second time with the input itself as the written file.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fdpass.h"
#include "monitor_serve.h"
#include "uie/err.h"
#include "wire.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void fastpath_entries(struct uie_monitor *m, const uint8_t *data, size_t size)
{
	struct uie_wire_msg q = { .type = UIE_MSG_FASTPATH_REQ };
	uint8_t e[UIE_BRIDGE_FASTPATH_ENTRY_LEN], msg[UIE_BRIDGE_MAX_MSG];
	size_t n = size / UIE_BRIDGE_FASTPATH_ENTRY_LEN, len;
	struct uie_digest d;
	struct uie_req req;
	int fd;

	if (n == 0)
		return;
	if (uie_bridge_fastpath_entry_decode(data, &req, &d) == UIE_OK &&
	    (uie_bridge_fastpath_entry_encode(&req, &d, e) != UIE_OK || memcmp(e, data, sizeof(e))))
		abort();
	q.u.fastpath_req = (struct uie_msg_fastpath_req){ .count = (uint32_t)n, .epoch = m->core.epoch };
	if (uie_bridge_encode(&q, msg, sizeof(msg), &len) != UIE_OK ||
	    uie_memfd_create_sealed("fuzz", data, n * UIE_BRIDGE_FASTPATH_ENTRY_LEN, &fd) != UIE_OK)
		abort();
	fuzz_monitor_serve(m, msg, len, fd);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct uie_host_platform hp;
	static struct uie_monitor m;
	static int ready;
	uint8_t out[UIE_BRIDGE_MAX_MSG];
	struct uie_wire_msg msg;
	size_t len;

	if (!ready) {
		fuzz_monitor_start(&hp, &m);
		ready = 1;
	}
	if (uie_bridge_decode(data, size, &msg) == UIE_OK) {
		if (uie_bridge_encode(&msg, out, sizeof(out), &len) != UIE_OK || len != size ||
		    memcmp(out, data, size) != 0)
			abort();
	}
	fuzz_monitor_serve(&m, data, size, -1);
	if (msg.type == UIE_MSG_VIOLATION_REQ && uie_bridge_fd_rule(&msg) == UIE_FD_ONE) {
		int fd;

		if (uie_memfd_create_sealed("fuzz-object", data, size, &fd) != UIE_OK)
			abort();
		fuzz_monitor_serve(&m, data, size, fd);
	}
	fastpath_entries(&m, data, size);
	return 0;
}
