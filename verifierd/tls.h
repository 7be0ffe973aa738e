/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The TLS of uie-verifierd (OpenSSL): the server's certificate and key,
 * and the client CA whose certificates clients may present.  A client
 * without one, or with one the CA did not sign, still completes the
 * handshake: the handler answers it 403 client_cert (docs/VERIFIER.md 5).
 */
#ifndef UIE_VERIFIERD_TLS_H
#define UIE_VERIFIERD_TLS_H

#include <stdbool.h>
#include <stddef.h>

#include <openssl/ssl.h>

#define VD_TLS_WHY_LEN 256

/*
 * A server context of cert (PEM text: the certificate, then its chain),
 * key (PEM) and client_ca (PEM certificates, or NULL: no client
 * certificates asked).  Return: UIE_OK, UIE_E_FORMAT (why names the
 * option and OpenSSL's reason), UIE_E_NOMEM.
 */
int vd_tls_ctx_alloc(const char *cert, const char *key, const char *client_ca, SSL_CTX **out,
		     char why[VD_TLS_WHY_LEN]);

/* After the handshake: the client presented a certificate that the client CA signed. */
bool vd_tls_client_verified(const SSL *ssl);

#endif
