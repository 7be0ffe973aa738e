/* SPDX-License-Identifier: Apache-2.0 */
/*
 * libFuzzer target: the bridge message decoder, and the monitor's whole
 * request path behind it.  An accepted message must re-encode to exactly
 * the same bytes (no two encodings of one message, nothing ignored); every
 * input must get exactly one answer that itself decodes.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "host_platform.h"
#include "monitor.h"
#include "uie/err.h"
#include "wire.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct uie_host_platform hp;
	static struct uie_monitor m;
	static int ready;
	uint8_t out[UIE_BRIDGE_MAX_MSG], ans[UIE_BRIDGE_MAX_MSG];
	struct uie_wire_msg msg, a;
	size_t len, alen;
	int afd;

	if (!ready) {
		if (uie_host_platform_init(&hp) != UIE_OK || uie_monitor_init(&m, &hp.pl, NULL, NULL) != UIE_OK)
			abort();
		m.log.max = 1u << 16; /* anonymous requests are logged: keep memory bounded */
		ready = 1;
	}
	if (uie_bridge_decode(data, size, &msg) == UIE_OK) {
		if (uie_bridge_encode(&msg, out, sizeof(out), &len) != UIE_OK || len != size ||
		    memcmp(out, data, size) != 0)
			abort();
	}
	uie_monitor_handle(&m, data, size, -1, ans, &alen, &afd);
	if (afd >= 0)
		close(afd);
	if (uie_bridge_decode(ans, alen, &a) != UIE_OK || a.type % 2 != 1)
		abort();
	return 0;
}
