/* SPDX-License-Identifier: Apache-2.0 */
#include "admin.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/crypto.h>
#include <openssl/sha.h>

#include "uie/err.h"

#define BEARER "Bearer "

static bool b64token_char(uint8_t c)
{
	return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
	       (c && strchr("-._~+/", c) != NULL);
}

int vd_admin_token_parse_alloc(const uint8_t *b, size_t n, char **token, const char **why)
{
	size_t len = n, i;

	*token = NULL;
	*why = NULL;
	if (len && b[len - 1] == '\n')
		len--;
	for (i = 0; i < len && b64token_char(b[i]); i++)
		;
	while (i < len && b[i] == '=' && i > 0)
		i++;
	if (i != len) {
		*why = "a token is letters, digits, -._~+/ and trailing = on one line";
		return UIE_E_FORMAT;
	}
	if (len < VD_ADMIN_TOKEN_MIN || len > VD_ADMIN_TOKEN_MAX) {
		*why = "a token is 16..256 characters";
		return UIE_E_FORMAT;
	}
	if (!(*token = strndup((const char *)b, len)))
		return UIE_E_NOMEM;
	return UIE_OK;
}

enum vd_admin_verdict vd_admin_check(const char *token, const char *authorization)
{
	uint8_t want[SHA256_DIGEST_LENGTH], got[SHA256_DIGEST_LENGTH];
	const char *given;

	if (!token)
		return VD_ADMIN_DISABLED;
	if (!authorization || strncmp(authorization, BEARER, strlen(BEARER)) != 0)
		return VD_ADMIN_REQUIRED;
	given = authorization + strlen(BEARER);
	/* Digests of equal length: neither the token's length nor its bytes leak through timing. */
	SHA256((const uint8_t *)token, strlen(token), want);
	SHA256((const uint8_t *)given, strlen(given), got);
	return CRYPTO_memcmp(want, got, sizeof(want)) == 0 ? VD_ADMIN_OK : VD_ADMIN_REQUIRED;
}
