/* SPDX-License-Identifier: Apache-2.0 */
#include "vmexec.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "uie/bridge.h"
#include "uie/err.h"

static int read_frame(const struct uie_guest_ram *g, uint64_t gpa, uint8_t page[UIE_VM_FRAME])
{
	size_t off = 0;

	while (off < UIE_VM_FRAME) {
		ssize_t got = pread(g->fd, page + off, UIE_VM_FRAME - off, (off_t)(gpa + off));

		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0)
			return UIE_E_IO;
		off += (size_t)got;
	}
	return UIE_OK;
}

/* Whether the frames at a and b hold other bytes. */
static int frames_differ(const struct uie_guest_ram *g, uint64_t a, uint64_t b, bool *differ)
{
	uint8_t pa[UIE_VM_FRAME], pb[UIE_VM_FRAME];
	int r;

	*differ = false;
	if (a == b)
		return UIE_OK;
	if ((r = read_frame(g, a, pa)) != UIE_OK || (r = read_frame(g, b, pb)) != UIE_OK)
		return r;
	*differ = memcmp(pa, pb, UIE_VM_FRAME) != 0;
	return UIE_OK;
}

int uie_vmexec_apply(const struct uie_guest_ram *g, uint64_t *frames, size_t n, uint64_t file_offset,
		     const uint64_t *range, size_t nrange, bool *execmod)
{
	uint64_t first = file_offset / UIE_VM_FRAME;

	*execmod = false;
	for (size_t j = 0; j < nrange; j++)
		if (range[j] != UIE_VM_PAGE_ABSENT && !uie_guest_ram_frame_ok(g, range[j]))
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
