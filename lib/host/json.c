/* SPDX-License-Identifier: Apache-2.0 */
#include "json.h"

#include <stdio.h>

json_t *uie_json_u64(uint64_t v)
{
	char dec[24];

	if (v <= INT64_MAX)
		return json_integer((json_int_t)v);
	snprintf(dec, sizeof(dec), "%llu", (unsigned long long)v);
	return json_string(dec);
}
