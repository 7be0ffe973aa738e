/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Whether the pages behind a private file mapping are still the file's
 * (execmod).  A write to a MAP_PRIVATE mapping copies the page: from then
 * on the range holds bytes the monitor never measured although the file,
 * and so its digest, is unchanged.  /proc/PID/pagemap says per page:
 * bit 63 present, bit 62 swapped, bit 61 "file page or shared anonymous".
 * A present page without bit 61 is a private copy; a swapped page of a
 * file mapping is one too (the file's own pages are dropped, not
 * swapped).  A page that is neither has not been touched: a fault will
 * bring the file's page.  The caller's other threads are stopped
 * (freeze.c) while this runs, so no write can make a copy before the
 * kernel applies the answer.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

#include "pages.h"
#include "uie/err.h"
#include "uie/measure.h"

#define BATCH 512u /* pagemap entries per read */
#define PM_PRESENT (1ull << 63)
#define PM_SWAPPED (1ull << 62)
#define PM_FILE (1ull << 61)

int uie_guest_pages_copied(pid_t pid, uint64_t lo, uint64_t hi, bool *copied)
{
	uint64_t e[BATCH];
	char path[48];
	int fd, r = UIE_OK;

	*copied = false;
	snprintf(path, sizeof(path), "/proc/%d/pagemap", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return UIE_E_SYS;
	for (uint64_t at = lo / UIE_MEASURE_PAGE; at < hi / UIE_MEASURE_PAGE && !*copied;) {
		uint64_t want = hi / UIE_MEASURE_PAGE - at < BATCH ? hi / UIE_MEASURE_PAGE - at : BATCH;
		ssize_t n = pread(fd, e, want * 8, (off_t)(at * 8));

		if (n <= 0 || n % 8) {
			if (n == 0)
				errno = EIO;
			r = UIE_E_SYS;
			break;
		}
		for (ssize_t i = 0; i < n / 8; i++)
			if ((e[i] & PM_SWAPPED) || ((e[i] & PM_PRESENT) && !(e[i] & PM_FILE)))
				*copied = true;
		at += (uint64_t)n / 8;
	}
	close(fd);
	return r;
}
