/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The front of uie-verifierd's HTTP server: a thread of ours owns the
 * listening socket and every client connection, and hands libmicrohttpd
 * one end of a socketpair per client (MHD_add_connection, with the
 * client's address, so its connection limits and our rate limit key on the
 * client).  It pumps bytes both ways through bounded buffers, speaks TLS
 * (OpenSSL, tls.h) when given a context, and reads the responses coming
 * back (resphead.h): a reply of the library's own is replaced with our
 * JSON and the connection closed.  When libmicrohttpd closes its end (a
 * response with Connection: close, a timeout, a deadline: deadline.h) the
 * relay closes the client's connection once what it has is sent.
 */
#ifndef UIE_VERIFIERD_RELAY_H
#define UIE_VERIFIERD_RELAY_H

#include <stdbool.h>

#include <microhttpd.h>
#include <openssl/ssl.h>

struct vd_relay;

/*
 * Starts the relay on the listening socket lfd (it owns it from now on,
 * even on failure) for the daemon d (started with MHD_USE_NO_LISTEN_SOCKET);
 * tls: a server context (kept, not freed) or NULL for plain HTTP.
 * Return: UIE_OK, UIE_E_NOMEM, UIE_E_SYS (epoll, thread; errno kept).
 */
int vd_relay_start_alloc(int lfd, struct MHD_Daemon *d, SSL_CTX *tls, struct vd_relay **out);

/*
 * Whether the client of the connection libmicrohttpd has on socket fd
 * presented a certificate the client CA signed (false before its TLS
 * handshake is over, and always for plain HTTP).
 */
bool vd_relay_client_verified(const struct vd_relay *r, int fd);

/* Closes every client connection and the listening socket; frees r. */
void vd_relay_stop(struct vd_relay *r);

#endif
