/* SPDX-License-Identifier: Apache-2.0 */
#include "vmexec.h"

#include <string.h>

#include "uie/bridge.h"
#include "uie/err.h"

/* Whether the frames at a and b hold other bytes. */
static int frames_differ(const struct uie_vmram *g, uint64_t a, uint64_t b, bool *differ)
{
	uint8_t pa[UIE_VM_FRAME], pb[UIE_VM_FRAME];
	int r;

	*differ = false;
	if (a == b)
		return UIE_OK;
	if ((r = uie_vmram_read(g, a, pa, sizeof(pa))) != UIE_OK ||
	    (r = uie_vmram_read(g, b, pb, sizeof(pb))) != UIE_OK)
		return r;
	*differ = memcmp(pa, pb, UIE_VM_FRAME) != 0;
	return UIE_OK;
}

int uie_vmexec_apply(const struct uie_vmram *g, uint64_t *frames, size_t n, uint64_t file_offset,
		     const uint64_t *range, size_t nrange, bool *execmod)
{
	uint64_t first = file_offset / UIE_VM_FRAME;

	*execmod = false;
	for (size_t j = 0; j < nrange; j++)
		if (range[j] != UIE_VM_PAGE_ABSENT && !uie_vmram_frame_ok(g, range[j]))
			return UIE_E_RANGE;
	for (size_t j = 0; j < nrange; j++) {
		bool differ;
		int r;

		if (range[j] == UIE_VM_PAGE_ABSENT)
			continue;
		if (first >= n || j >= n - first) { /* present, past the object's end */
			*execmod = true;
			continue;
		}
		if ((r = frames_differ(g, range[j], frames[first + j], &differ)) != UIE_OK)
			return r;
		*execmod |= differ;
		frames[first + j] = range[j];
	}
	return UIE_OK;
}
