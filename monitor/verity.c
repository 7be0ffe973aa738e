/* SPDX-License-Identifier: Apache-2.0 */
#include "verity.h"

#include <fcntl.h>
#include <linux/fsverity.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>

bool uie_verity_of(int fd, struct uie_verity *v)
{
	/* struct fsverity_digest ends in the digest, a flexible array: room for the largest. */
	_Alignas(struct fsverity_digest) uint8_t buf[sizeof(struct fsverity_digest) + UIE_VERITY_MAX] = { 0 };
	struct fsverity_digest *d = (struct fsverity_digest *)buf;
	struct statx sx;

	memset(v, 0, sizeof(*v));
	d->digest_size = UIE_VERITY_MAX;
	if (statx(fd, "", AT_EMPTY_PATH, 0, &sx) != 0 || !(sx.stx_attributes_mask & STATX_ATTR_VERITY) ||
	    !(sx.stx_attributes & STATX_ATTR_VERITY))
		return false;
	if (ioctl(fd, FS_IOC_MEASURE_VERITY, d) != 0 || d->digest_algorithm == 0 || d->digest_size == 0 ||
	    d->digest_size > UIE_VERITY_MAX)
		return false;
	v->alg = d->digest_algorithm;
	v->len = d->digest_size;
	memcpy(v->digest, d->digest, v->len);
	return true;
}
