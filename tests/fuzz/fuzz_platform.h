/* SPDX-License-Identifier: Apache-2.0 */
/* The host platform (lib/host) of a libFuzzer target. */
#ifndef UIE_FUZZ_PLATFORM_H
#define UIE_FUZZ_PLATFORM_H

#include <stdlib.h>

#include "host_platform.h"
#include "uie/err.h"

/* The target's platform, set up on the first input; aborts when it cannot be. */
static inline struct uie_host_platform *fuzz_platform(void)
{
	static struct uie_host_platform hp;
	static int ready;

	if (!ready) {
		if (uie_host_platform_init(&hp) != UIE_OK)
			abort();
		ready = 1;
	}
	return &hp;
}

#endif
