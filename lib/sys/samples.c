/* SPDX-License-Identifier: Apache-2.0 */
/* Durations kept for their median (include/uie/samples.h). */
#include <stdlib.h>
#include <string.h>

#include "uie/samples.h"

void uie_samples_add(struct uie_samples *s, uint64_t ns)
{
	s->v[s->n % UIE_SAMPLES_CAP] = ns > UINT32_MAX ? UINT32_MAX : (uint32_t)ns;
	s->n++;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return (x > y) - (x < y);
}

uint64_t uie_samples_median(const struct uie_samples *s)
{
	uint32_t v[UIE_SAMPLES_CAP];
	size_t k = s->n < UIE_SAMPLES_CAP ? (size_t)s->n : UIE_SAMPLES_CAP;

	if (k == 0)
		return 0;
	memcpy(v, s->v, k * sizeof(v[0]));
	qsort(v, k, sizeof(v[0]), cmp_u32);
	return k % 2 ? v[k / 2] : ((uint64_t)v[k / 2 - 1] + v[k / 2]) / 2;
}
