/* SPDX-License-Identifier: Apache-2.0 */
/* The one clock of the hosted code: CLOCK_MONOTONIC (include/uie/sys.h). */
#include <time.h>

#include "uie/sys.h"

uint64_t uie_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

uint64_t uie_now_ms(void)
{
	return uie_now_ns() / 1000000u;
}
