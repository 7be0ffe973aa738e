/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The HTTP(S) side of uie-verifierd (libmicrohttpd): a pool of threads,
 * each request read up to the body limit, routed, run with a database
 * connection of its own and answered with JSON.
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

/*
 * Serves ctx (which must outlive the server) on o's address; *port is the
 * port bound.  Return: UIE_OK, UIE_E_SYS (bind, TLS set-up), UIE_E_NOMEM.
 */
int vd_server_start_alloc(const struct vd_ctx *ctx, const struct vd_server_opts *o, struct vd_server **out,
			  uint16_t *port);
/* Stops after the requests in flight; frees s. */
void vd_server_free(struct vd_server *s);

#endif
