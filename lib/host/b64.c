/* SPDX-License-Identifier: Apache-2.0 */
#include "b64.h"

#include <stdbool.h>
#include <stdlib.h>

#include "uie/err.h"

static const char alphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/* The 6-bit value of c, or -1. */
static int sextet(char c)
{
	if (c >= 'A' && c <= 'Z')
		return c - 'A';
	if (c >= 'a' && c <= 'z')
		return c - 'a' + 26;
	if (c >= '0' && c <= '9')
		return c - '0' + 52;
	return c == '+' ? 62 : c == '/' ? 63 : -1;
}

int uie_b64_decode_alloc(const char *s, size_t n, uint8_t **out, size_t *out_len)
{
	size_t pad = 0, len, o = 0;
	uint8_t *b;

	*out = NULL;
	*out_len = 0;
	if (n % 4)
		return UIE_E_FORMAT;
	if (n && s[n - 1] == '=')
		pad = s[n - 2] == '=' ? 2 : 1;
	len = n / 4 * 3 - pad;
	if (!(b = malloc(len ? len : 1)))
		return UIE_E_NOMEM;
	for (size_t i = 0; i < n; i += 4) {
		int v[4];
		uint32_t w = 0;

		for (int k = 0; k < 4; k++) {
			bool tail_pad = i + 4 == n && (size_t)k >= 4 - pad;

			v[k] = tail_pad ? 0 : sextet(s[i + (size_t)k]);
			if (v[k] < 0) {
				free(b);
				return UIE_E_FORMAT;
			}
			w = w << 6 | (uint32_t)v[k];
		}
		for (int k = 0; k < 3 && o < len; k++)
			b[o++] = (uint8_t)(w >> (16 - 8 * k));
		/* Bits under the padding must be zero, so one text has one meaning. */
		if (i + 4 == n && ((pad == 1 && (w & 0xff)) || (pad == 2 && (w & 0xffff)))) {
			free(b);
			return UIE_E_FORMAT;
		}
	}
	*out = b;
	*out_len = len;
	return UIE_OK;
}

char *uie_b64_encode_alloc(const uint8_t *p, size_t n)
{
	char *s = malloc((n + 2) / 3 * 4 + 1), *o = s;

	if (!s)
		return NULL;
	for (size_t i = 0; i < n; i += 3) {
		uint32_t w = (uint32_t)p[i] << 16 | (i + 1 < n ? (uint32_t)p[i + 1] << 8 : 0) |
			     (i + 2 < n ? p[i + 2] : 0);

		*o++ = alphabet[w >> 18 & 63];
		*o++ = alphabet[w >> 12 & 63];
		*o++ = i + 1 < n ? alphabet[w >> 6 & 63] : '=';
		*o++ = i + 2 < n ? alphabet[w & 63] : '=';
	}
	*o = '\0';
	return s;
}
