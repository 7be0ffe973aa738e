/* SPDX-License-Identifier: Apache-2.0 */
#include "json.h"

#include <stdio.h>

#include "uie/err.h"

json_t *uie_json_u64(uint64_t v)
{
	char dec[24];

	if (v <= INT64_MAX)
		return json_integer((json_int_t)v);
	snprintf(dec, sizeof(dec), "%llu", (unsigned long long)v);
	return json_string(dec);
}

int uie_json_print(json_t *j)
{
	int r = j && json_dumpf(j, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER) == 0 ? UIE_OK : UIE_E_NOMEM;

	if (r == UIE_OK)
		putchar('\n');
	json_decref(j);
	return r;
}
