/* SPDX-License-Identifier: Apache-2.0 */
/* Durations kept for their median (include/uie/samples.h). */
#include <string.h>

#include "uie/samples.h"

void uie_samples_add(struct uie_samples *s, uint64_t ns)
{
	s->v[s->n % UIE_SAMPLES_CAP] = ns > UINT32_MAX ? UINT32_MAX : (uint32_t)ns;
	s->n++;
}

/*
 * Sorted in place by insertion, not by qsort: glibc's qsort asks the kernel
 * for the machine's memory (sysinfo) before sorting more than 1 KiB, and
 * the monitor's seccomp filter kills it for that (`uie-monitord --timing`
 * died of SIGSYS when it stopped).  At most UIE_SAMPLES_CAP values, sorted
 * once when a program or the monitor ends.
 */
static void sort_u32(uint32_t *v, size_t k)
{
	for (size_t i = 1; i < k; i++) {
		uint32_t x = v[i];
		size_t j = i;

		for (; j > 0 && v[j - 1] > x; j--)
			v[j] = v[j - 1];
		v[j] = x;
	}
}

uint64_t uie_samples_median(const struct uie_samples *s)
{
	uint32_t v[UIE_SAMPLES_CAP];
	size_t k = s->n < UIE_SAMPLES_CAP ? (size_t)s->n : UIE_SAMPLES_CAP;

	if (k == 0)
		return 0;
	memcpy(v, s->v, k * sizeof(v[0]));
	sort_u32(v, k);
	return k % 2 ? v[k / 2] : ((uint64_t)v[k / 2 - 1] + v[k / 2]) / 2;
}
