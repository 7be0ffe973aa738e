/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Where the monitor's time goes per MEASURE request (uie-monitord
 * --timing), from the request decoded to its answer ready: measuring the
 * object (a cache hit: its identity checked), deciding, writing the
 * record to the write-ahead log and extending the vTPM; medians printed
 * on the diagnostics when the monitor stops.  Off (m->timing NULL), every
 * call is a test of one pointer.
 */
#ifndef UIE_MONITOR_TIMING_H
#define UIE_MONITOR_TIMING_H

#include <stdint.h>

#include "uie/samples.h"

struct uie_monitor;

enum uie_mon_step {
	UIE_MS_MEASURE,
	UIE_MS_DECIDE,
	UIE_MS_LOG,
	UIE_MS_EXTEND,
	UIE_MS_TOTAL,
	UIE_MS__MAX
};

struct uie_mon_timing {
	struct uie_samples step[UIE_MS__MAX];
	uint64_t hashed; /* requests measured by a worker: not timed */
};

/* One request's clock. */
struct uie_mon_clock {
	uint64_t start, measured, file_ns, tpm_ns;
};

void uie_mon_clock_start(const struct uie_monitor *m, struct uie_mon_clock *c);
/* The object is measured (or needs no measuring). */
void uie_mon_clock_measured(const struct uie_monitor *m, struct uie_mon_clock *c);
/* Decided, logged and extended: keeps the request's steps. */
void uie_mon_clock_done(struct uie_monitor *m, const struct uie_mon_clock *c);
/* One diagnostic line of medians. */
void uie_mon_timing_print(const struct uie_monitor *m);

#endif
