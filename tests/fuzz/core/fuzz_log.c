/* SPDX-License-Identifier: Apache-2.0 */
/*
 * libFuzzer target: the log record decoder and replay.  An accepted record
 * must re-encode to the same body; replay must never accept a log whose
 * records do not re-hash to their LRH.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_platform.h"
#include "uie/err.h"
#include "uie/slog.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct uie_host_platform *hp = fuzz_platform();
	struct uie_log_record rec;
	uint8_t out[UIE_LOG_RECORD_LEN], pcr[UIE_PCR_LEN] = { 0 };
	uint64_t bad;
	int r;

	r = uie_log_decode(data, size, &rec);
	if (r == UIE_OK) {
		if (size != UIE_LOG_RECORD_LEN || uie_log_encode(&hp->pl, &rec, out) != UIE_OK ||
		    memcmp(out, data, UIE_LOG_BODY_LEN) != 0)
			abort();
	} else if (r >= 0 || rec.seq || rec.event_type) {
		abort();
	}
	r = uie_log_replay(&hp->pl, data, size, 0, pcr, &bad);
	if (r == UIE_OK && (size % UIE_LOG_RECORD_LEN || bad != size / UIE_LOG_RECORD_LEN))
		abort();
	return 0;
}
