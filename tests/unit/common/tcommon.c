/* SPDX-License-Identifier: Apache-2.0 */
#include "tcommon.h"

#include <ctype.h>
#include <stdarg.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "hex.h"

size_t tc_hex(const char *hex, uint8_t *out, size_t cap)
{
	size_t n = 0;
	int hi = -1;

	for (; *hex; hex++) {
		int v;

		if (isspace((unsigned char)*hex))
			continue;
		v = uie_hex_nibble(*hex);
		assert_true(v >= 0);
		if (hi < 0) {
			hi = v;
			continue;
		}
		assert_true(n < cap);
		out[n++] = (uint8_t)(hi << 4 | v);
		hi = -1;
	}
	assert_int_equal(hi, -1);
	return n;
}

uint8_t *tc_hex_alloc(const char *hex, size_t *n)
{
	size_t cap = strlen(hex) / 2;
	uint8_t *out = malloc(cap + 1); /* + 1: never malloc(0) */

	assert_non_null(out);
	*n = tc_hex(hex, out, cap);
	return out;
}
