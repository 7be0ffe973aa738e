/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The monitor as the `uie` commands reach it: one connect and one way of
 * saying what went wrong, so that every command names the socket and tells
 * a missing or refused socket, a timeout and a broken peer apart.
 */
#ifndef UIE_TOOLS_CONN_H
#define UIE_TOOLS_CONN_H

/* uie_bridge_connect(sock, fd); on failure says why on stderr for cmd ("uie status"). */
int uie_tool_connect(const char *cmd, const char *sock, int *fd);

/*
 * A request to the monitor at sock failed with r: on stderr, naming the
 * socket and the cause (no answer in time, connection closed, answer out
 * of protocol, or the monitor's own error answer).
 */
void uie_tool_peer_err(const char *cmd, const char *sock, int r);

#endif
