/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The administrator's credential of uie-verifierd (docs/VERIFIER.md 7):
 * a bearer token read from --admin-token FILE at start, which enrolment,
 * deletion and re-keying require in "Authorization: Bearer TOKEN".
 */
#ifndef UIE_VERIFIERD_ADMIN_H
#define UIE_VERIFIERD_ADMIN_H

#include <stddef.h>
#include <stdint.h>

#define VD_ADMIN_TOKEN_MIN 16
#define VD_ADMIN_TOKEN_MAX 256

/*
 * The token of a token file's n bytes (one trailing newline allowed) in
 * *token (owned, free()).  A token is VD_ADMIN_TOKEN_MIN..MAX characters
 * of RFC 6750's b64token (letters, digits, -._~+/ and trailing =).
 * Return: UIE_OK, UIE_E_FORMAT (*why says what), UIE_E_NOMEM.
 */
int vd_admin_token_parse_alloc(const uint8_t *b, size_t n, char **token, const char **why);

/* What an administrative call may do under a configured token (NULL: none). */
enum vd_admin_verdict {
	VD_ADMIN_OK,       /* the request carries the token */
	VD_ADMIN_DISABLED, /* no token configured */
	VD_ADMIN_REQUIRED, /* no Authorization, not Bearer, or another token */
};

/*
 * authorization: the request's Authorization header, or NULL.  The tokens
 * are compared in time independent of where they differ (their SHA-256
 * digests with CRYPTO_memcmp), so timing tells nothing of the token.
 */
enum vd_admin_verdict vd_admin_check(const char *token, const char *authorization);

#endif
