/* SPDX-License-Identifier: Apache-2.0 */
/* The interceptor's one clock: CLOCK_MONOTONIC milliseconds, for deadlines and ages. */
#include <time.h>

#include "sup.h"

uint64_t uie_guest_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}
