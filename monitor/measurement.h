/* SPDX-License-Identifier: Apache-2.0 */
/*
 * What measuring one request's object gave, in process mode (a file
 * descriptor, in the loop or a worker) and in VM mode (guest frames) alike:
 * the one thing the monitor's decide step takes (uie_mon_decide).
 */
#ifndef UIE_MONITOR_MEASUREMENT_H
#define UIE_MONITOR_MEASUREMENT_H

#include <stdint.h>

#include "uie/types.h"

struct uie_measurement {
	int err;       /* UIE_OK, or why the object could not be measured (policy: MEASURE_FAIL) */
	uint8_t scope; /* UIE_SCOPE_NONE: no digest (an error, anonymous memory, a fileless object) */
	struct uie_digest digest;
};

#endif
