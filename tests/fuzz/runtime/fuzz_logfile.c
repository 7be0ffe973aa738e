/* SPDX-License-Identifier: Apache-2.0 */
/*
 * libFuzzer target: the parsers of the monitor's state directory, the
 * write-ahead log file and the packages file (docs/FORMATS.md 3.6).  An
 * accepted log must be whole records that replay from its start vPCR16 to
 * the end it reports; a refusal must name an offset inside the input.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_platform.h"
#include "logfile.h"
#include "uie/err.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct uie_host_platform *hp = fuzz_platform();
	static const uint8_t want[UIE_SHA256_LEN];
	struct uie_logfile_info info;
	uint8_t pcr[UIE_PCR_LEN];
	uint64_t bad;
	size_t off, len;
	int r;

	r = uie_logfile_parse(&hp->pl, data, size, &info);
	if (r == UIE_OK) {
		if (size != UIE_LOGFILE_HDR_LEN + info.nrecords * UIE_LOG_RECORD_LEN ||
		    info.records != data + UIE_LOGFILE_HDR_LEN)
			abort();
		memcpy(pcr, info.hdr.start_pcr, UIE_PCR_LEN);
		if (uie_log_replay(&hp->pl, info.records, size - UIE_LOGFILE_HDR_LEN, info.hdr.first_seq, pcr,
				   &bad) != UIE_OK ||
		    memcmp(pcr, info.end_pcr, UIE_PCR_LEN) != 0)
			abort();
	} else if (r >= 0 || info.bad_offset > size) {
		abort();
	}
	r = uie_pkgfile_find(&hp->pl, data, size, want, &off, &len);
	if (r == UIE_OK && (off > size || len > size - off))
		abort();
	return 0;
}
