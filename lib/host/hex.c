/* SPDX-License-Identifier: Apache-2.0 */
#include "hex.h"

#include <string.h>

#include "uie/err.h"

int uie_hex_nibble(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

int uie_hex_decode(const char *hex, size_t hexlen, uint8_t *out, size_t n)
{
	if (!hex || hexlen != 2 * n)
		return UIE_E_FORMAT;
	for (size_t i = 0; i < n; i++) {
		int hi = uie_hex_nibble(hex[2 * i]), lo = uie_hex_nibble(hex[2 * i + 1]);

		if (hi < 0 || lo < 0)
			return UIE_E_FORMAT;
		out[i] = (uint8_t)(hi << 4 | lo);
	}
	return UIE_OK;
}

int uie_hex_decode_upto(const char *hex, uint8_t *out, size_t cap, size_t *n)
{
	size_t l = hex ? strlen(hex) : 0;
	int r;

	*n = 0;
	if (l == 0 || l % 2)
		return UIE_E_FORMAT;
	if (l / 2 > cap)
		return UIE_E_LIMIT;
	if ((r = uie_hex_decode(hex, l, out, l / 2)) == UIE_OK)
		*n = l / 2;
	return r;
}

void uie_hex_encode(char *out, const uint8_t *p, size_t n)
{
	static const char d[] = "0123456789abcdef";

	for (size_t i = 0; i < n; i++) {
		out[2 * i] = d[p[i] >> 4];
		out[2 * i + 1] = d[p[i] & 15];
	}
	out[2 * n] = '\0';
}

int uie_parse_u64(const char *s, uint64_t *v)
{
	uint64_t x = 0;

	*v = 0;
	if (!s || !*s)
		return UIE_E_FORMAT;
	for (; *s; s++) {
		if (*s < '0' || *s > '9')
			return UIE_E_FORMAT;
		if (x > (UINT64_MAX - (uint64_t)(*s - '0')) / 10)
			return UIE_E_OVERFLOW;
		x = x * 10 + (uint64_t)(*s - '0');
	}
	*v = x;
	return UIE_OK;
}
