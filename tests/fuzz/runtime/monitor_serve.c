/* SPDX-License-Identifier: Apache-2.0 */
/* The runtime fuzz targets' shared monitor (see monitor_serve.h). */
#include <stdlib.h>
#include <unistd.h>

#include "monitor_serve.h"
#include "uie/err.h"
#include "wire.h"

void fuzz_monitor_start(struct uie_host_platform *hp, struct uie_monitor *m)
{
	if (uie_host_platform_init(hp) != UIE_OK || uie_mon_init(m, &hp->pl, NULL, NULL) != UIE_OK)
		abort();
	m->log.max = 1u << 16; /* anonymous requests are logged */
}

void fuzz_monitor_serve(struct uie_monitor *m, const uint8_t *msg, size_t len, int fd)
{
	uint8_t ans[UIE_BRIDGE_MAX_MSG];
	struct uie_wire_msg a;
	size_t alen;
	int afd;

	uie_mon_handle(m, msg, len, fd, ans, &alen, &afd);
	if (afd >= 0)
		close(afd);
	if (uie_bridge_decode(ans, alen, &a) != UIE_OK || a.type % 2 != 1)
		abort();
}
