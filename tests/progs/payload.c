/* SPDX-License-Identifier: Apache-2.0 */
/* The "unapproved" program: if it ever runs, it says so and exits 10. */
#include "attempt.h"

int main(void)
{
	return gained("payload ran");
}
