/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The HTTP(S) side of uie-verifierd: the relay (relay.h) owns the clients'
 * connections and their TLS; libmicrohttpd's pool of threads reads each
 * request up to the body limit, routes it, runs it with a database
 * connection of its own and answers it with JSON.
 */
#ifndef UIE_VERIFIERD_SERVER_H
#define UIE_VERIFIERD_SERVER_H

#include <stdint.h>

#include "vd.h"

struct vd_server_opts {
	uint32_t addr; /* IPv4, host order */
	uint16_t port; /* 0: any free port */
	unsigned threads;
	unsigned per_client;      /* connections per client address */
	unsigned idle_timeout;    /* seconds a connection may stay silent */
	unsigned request_timeout; /* seconds a request may take to arrive whole (deadline.h) */
	struct vd_rate *rate;     /* requests per client address (ratelimit.h), or NULL */
	const char *tls_cert;     /* PEM text, or NULL for plain HTTP */
	const char *tls_key;
	const char *client_ca;   /* PEM text: clients must present a certificate it signed */
	const char *admin_token; /* administrative calls need it as a bearer token (admin.h); NULL: none */
};

struct vd_server;

#define VD_SERVER_WHY_LEN 256

/*
 * Serves ctx (which must outlive the server) on o's address; *port is the
 * port bound.  Return: UIE_OK; UIE_E_FORMAT (the TLS certificate, key or
 * client CA: why names it), UIE_E_SYS (why says what did not start), an
 * error of bind (errno's), UIE_E_NOMEM.
 */
int vd_server_start_alloc(const struct vd_ctx *ctx, const struct vd_server_opts *o, struct vd_server **out,
			  uint16_t *port, char why[VD_SERVER_WHY_LEN]);
/* Stops after the requests in flight; frees s. */
void vd_server_free(struct vd_server *s);

#endif
