/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Durations kept for their median (`uie run --timing`, `uie-monitord
 * --timing`): a fixed array holding the last UIE_SAMPLES_CAP samples, so
 * that adding one on a hot path never allocates.
 */
#ifndef UIE_SAMPLES_H
#define UIE_SAMPLES_H

#include <stdint.h>

#define UIE_SAMPLES_CAP 1024u

struct uie_samples {
	uint64_t n;                  /* samples added in all */
	uint32_t v[UIE_SAMPLES_CAP]; /* the last ones, ns (clamped to UINT32_MAX) */
};

void uie_samples_add(struct uie_samples *s, uint64_t ns);
/* Median of the samples kept (the mean of the middle two for an even count), ns; 0 when none. */
uint64_t uie_samples_median(const struct uie_samples *s);

#endif
