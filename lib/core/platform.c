/* SPDX-License-Identifier: Apache-2.0 */
#include "uie/platform.h"

#include "uie/buf.h"
#include "uie/err.h"

int uie_hash_buf(const struct uie_platform *pl, uint16_t alg, const void *p, size_t n, uint8_t *out)
{
	void *h;
	int r;

	if ((r = pl->hash.begin(pl->ctx, alg, &h)) != UIE_OK)
		return r;
	r = pl->hash.update(pl->ctx, h, p, n);
	if (r != UIE_OK) {
		pl->hash.end(pl->ctx, h, NULL);
		return r;
	}
	return pl->hash.end(pl->ctx, h, out);
}

int uie_object_read(const struct uie_object *obj, uint64_t off, void *buf, size_t len)
{
	uint64_t end;

	if (!uie_add_ok(off, len, &end) || end > obj->size)
		return UIE_E_RANGE;
	if (obj->map) {
		__builtin_memcpy(buf, obj->map + off, len);
		return UIE_OK;
	}
	if (!obj->read)
		return UIE_E_IO;
	return obj->read(obj->ctx, off, buf, len);
}
