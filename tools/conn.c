/* SPDX-License-Identifier: Apache-2.0 */
#include "conn.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "uie/bridge.h"
#include "uie/err.h"

int uie_tool_connect(const char *cmd, const char *sock, int *fd)
{
	int r = uie_bridge_connect(sock, fd);

	if (r != UIE_OK)
		fprintf(stderr, "%s: cannot connect to the monitor at %s: %s\n", cmd, sock,
			r == UIE_E_INVAL ? "socket path too long"
			: errno          ? strerror(errno)
					 : uie_err_str(r));
	return r;
}

void uie_tool_peer_err(const char *cmd, const char *sock, int r)
{
	if (r == UIE_E_TIMEOUT)
		fprintf(stderr, "%s: the monitor at %s did not answer in time\n", cmd, sock);
	else if (r == UIE_E_PEER)
		fprintf(stderr, "%s: the monitor at %s %s\n", cmd, sock,
			errno == EPROTO ? "answered out of protocol" : "closed the connection");
	else
		fprintf(stderr, "%s: the monitor at %s: %s\n", cmd, sock, uie_err_str(r));
}
