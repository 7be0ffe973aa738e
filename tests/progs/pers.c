/* SPDX-License-Identifier: Apache-2.0 */
/*
 * personality(READ_IMPLIES_EXEC): every later PROT_READ mapping would be
 * executable.  The query personality(0xffffffff) must keep working.
 */
#include <sys/mman.h>
#include <sys/personality.h>

#include "attempt.h"

int main(void)
{
	int cur = personality(0xffffffff);

	if (cur == -1)
		return setup_failed("personality query");
	if (personality((unsigned long)cur | READ_IMPLIES_EXEC) == -1)
		return refused("personality(READ_IMPLIES_EXEC)", errno);
	if (personality(0xffffffff) & READ_IMPLIES_EXEC)
		return gained("READ_IMPLIES_EXEC set");
	return ATTEMPT_SETUP;
}
