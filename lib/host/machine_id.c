/* SPDX-License-Identifier: Apache-2.0 */
#include "machine_id.h"

#include <stddef.h>

bool uie_machine_id_ok(const char *s)
{
	size_t n = 0;

	for (; s[n]; n++)
		if (n == UIE_MACHINE_ID_MAX ||
		    !((s[n] >= 'a' && s[n] <= 'z') || (s[n] >= 'A' && s[n] <= 'Z') ||
		      (s[n] >= '0' && s[n] <= '9') || s[n] == '.' || s[n] == '_' || s[n] == '-'))
			return false;
	return n > 0;
}
