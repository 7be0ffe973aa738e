/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A JSON-over-HTTP(S) client of the fleet verifier (libcurl): one
 * keep-alive connection per handle.  Used by `uie attest`, the tests and
 * the load generator.
 */
#ifndef UIE_TOOLS_HTTP_H
#define UIE_TOOLS_HTTP_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

struct uie_http_opts {
	const char *base;       /* "http://127.0.0.1:8080" or "https://..." */
	const char *cacert;     /* PEM file the server's certificate must chain to; NULL: system's */
	const char *cert, *key; /* client certificate and key (PEM), or NULL */
	const char *bearer;     /* sent as "Authorization: Bearer ..." (an administrator's token), or NULL */
	long timeout_ms;        /* per request, 0: 30 s */
	bool quiet;             /* no message on stderr when a request fails */
};

struct uie_http;

/* A handle owned by the caller (uie_http_free).  Return: UIE_OK or UIE_E_NOMEM. */
int uie_http_open_alloc(const struct uie_http_opts *o, struct uie_http **out);
void uie_http_free(struct uie_http *h);

/*
 * method on base + path with body (len bytes, content_type; NULL: none);
 * *status the HTTP status, *reply the JSON answer (owned, NULL when the
 * answer is not JSON).  Return: UIE_OK when an answer came, whatever its
 * status; UIE_E_PEER (connection, TLS: the reason on stderr), UIE_E_NOMEM.
 */
int uie_http_raw(struct uie_http *h, const char *method, const char *path, const char *body, size_t len,
		 const char *content_type, long *status, json_t **reply);
/* The same with body a JSON value (NULL: no body). */
int uie_http_json(struct uie_http *h, const char *method, const char *path, const json_t *body, long *status,
		  json_t **reply);

#endif
