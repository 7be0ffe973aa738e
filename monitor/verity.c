/* SPDX-License-Identifier: Apache-2.0 */
#include "verity.h"

#include <fcntl.h>
#include <linux/fsverity.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>

bool uie_verity_of(int fd, struct uie_verity *v)
{
	struct {
		struct fsverity_digest d;
		uint8_t bytes[UIE_VERITY_MAX];
	} m = { .d.digest_size = UIE_VERITY_MAX };
	struct statx sx;

	memset(v, 0, sizeof(*v));
	if (statx(fd, "", AT_EMPTY_PATH, 0, &sx) != 0 || !(sx.stx_attributes_mask & STATX_ATTR_VERITY) ||
	    !(sx.stx_attributes & STATX_ATTR_VERITY))
		return false;
	if (ioctl(fd, FS_IOC_MEASURE_VERITY, &m) != 0 || m.d.digest_algorithm == 0 || m.d.digest_size == 0 ||
	    m.d.digest_size > UIE_VERITY_MAX)
		return false;
	v->alg = m.d.digest_algorithm;
	v->len = m.d.digest_size;
	memcpy(v->digest, m.d.digest, v->len);
	return true;
}
