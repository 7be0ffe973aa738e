/* SPDX-License-Identifier: Apache-2.0 */
/*
 * libFuzzer target: the ELF parser and object digest.  The input is the
 * object.  Beyond "no crash", the mapped and the read path must agree, and
 * an accepted object must satisfy the parser's documented invariants.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_platform.h"
#include "uie/err.h"
#include "uie/measure.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int read_cb(void *ctx, uint64_t off, void *buf, size_t len)
{
	memcpy(buf, (const uint8_t *)ctx + off, len);
	return UIE_OK;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct uie_host_platform *hp = fuzz_platform();
	struct uie_object mapped = { .ctx = (void *)data, .size = size, .map = data, .read = read_cb };
	struct uie_object unmapped = mapped;
	struct uie_elf_info a, b;
	struct uie_digest da, db, dr;
	int ra, rb;

	unmapped.map = NULL;
	ra = uie_elf_measure(&hp->pl, &mapped, UIE_HASH_SHA256, &a, &da);
	rb = uie_elf_measure(&hp->pl, &unmapped, UIE_HASH_SHA256, &b, &db);
	if (ra != rb || memcmp(&a, &b, sizeof(a)) != 0 || memcmp(&da, &db, sizeof(da)) != 0)
		abort();
	if (ra == UIE_OK) {
		if (a.nexec == 0 || a.nexec > UIE_ELF_MAX_EXEC || da.len != 32)
			abort();
		for (uint32_t i = 0; i < a.nexec; i++) {
			const struct uie_exec_seg *s = &a.exec[i];

			if (s->range_off > size || s->range_len > size - s->range_off ||
			    s->range_off % UIE_MEASURE_PAGE != 0 || s->p_offset < s->range_off)
				abort();
			if (s->range_len && !uie_elf_covers(&a, s->range_off, s->range_len))
				abort();
		}
		/* The loader's first mapping starts at the first executable range's page. */
		if (a.reserve_len && (a.reserve_off % UIE_MEASURE_PAGE != 0 ||
				      !uie_elf_is_reservation(&a, a.reserve_off, a.reserve_len) ||
				      uie_elf_is_reservation(&a, a.reserve_off, a.reserve_len + 1)))
			abort();
		if (a.has_interp && (a.interp_off > size || a.interp_len >= size - a.interp_off ||
				     data[a.interp_off + a.interp_len] != 0))
			abort();
	} else if (ra >= 0 || da.alg != 0 || a.nexec != 0) {
		abort();
	}
	if (uie_range_measure(&hp->pl, &mapped, UIE_HASH_SHA256, size / 3, size, &dr) != UIE_OK)
		abort();
	return 0;
}
