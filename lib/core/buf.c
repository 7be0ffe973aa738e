/* SPDX-License-Identifier: Apache-2.0 */
#include "uie/buf.h"

#include "mem.h"
#include "uie/types.h"

void uie_rbuf_init(struct uie_rbuf *b, const void *p, size_t len)
{
	b->p = p;
	b->len = p ? len : 0;
	b->off = 0;
	b->err = UIE_OK;
}

size_t uie_rbuf_left(const struct uie_rbuf *b)
{
	return b->len - b->off;
}

const uint8_t *uie_rbuf_cur(const struct uie_rbuf *b)
{
	return b->p + b->off;
}

int uie_rbuf_view(struct uie_rbuf *b, const uint8_t **out, size_t n)
{
	*out = NULL;
	if (b->err != UIE_OK)
		return b->err;
	if (uie_rbuf_left(b) < n)
		return b->err = UIE_E_TRUNCATED;
	*out = b->p + b->off;
	b->off += n;
	return UIE_OK;
}

int uie_rbuf_bytes(struct uie_rbuf *b, void *out, size_t n)
{
	const uint8_t *p;
	int r = uie_rbuf_view(b, &p, n);

	if (r == UIE_OK && n)
		uie_memcpy(out, p, n);
	return r;
}

int uie_rbuf_skip(struct uie_rbuf *b, size_t n)
{
	const uint8_t *p;

	return uie_rbuf_view(b, &p, n);
}

int uie_rbuf_file_id(struct uie_rbuf *b, struct uie_file_id *id)
{
	uint64_t mt = 0, ct = 0;
	int r;

	if ((r = uie_rbuf_u64(b, &id->dev)) != UIE_OK || (r = uie_rbuf_u64(b, &id->ino)) != UIE_OK ||
	    (r = uie_rbuf_u64(b, &id->size)) != UIE_OK || (r = uie_rbuf_u64(b, &mt)) != UIE_OK ||
	    (r = uie_rbuf_u64(b, &ct)) != UIE_OK)
		return r;
	id->mtime_ns = (int64_t)mt;
	id->ctime_ns = (int64_t)ct;
	return UIE_OK;
}

int uie_rbuf_zero(struct uie_rbuf *b, size_t n)
{
	const uint8_t *p;
	uint8_t acc = 0;
	int r;

	if ((r = uie_rbuf_view(b, &p, n)) != UIE_OK)
		return r;
	for (size_t i = 0; i < n; i++)
		acc |= p[i];
	if (acc) {
		b->off -= n;
		return b->err = UIE_E_FORMAT;
	}
	return UIE_OK;
}

int uie_rbuf_magic_version(struct uie_rbuf *b, const void *magic, size_t n, uint16_t version)
{
	size_t start = b->off;
	const uint8_t *m;
	uint16_t v;
	int r;

	if ((r = uie_rbuf_view(b, &m, n)) != UIE_OK)
		return r;
	if (uie_memcmp(m, magic, n) != 0) {
		b->off = start;
		return b->err = UIE_E_FORMAT;
	}
	if ((r = uie_rbuf_u16(b, &v)) != UIE_OK)
		return r;
	if (v != version) {
		b->off = start;
		return b->err = UIE_E_VERSION;
	}
	return UIE_OK;
}

int uie_rbuf_err(const struct uie_rbuf *b)
{
	return b->err;
}

int uie_rbuf_end(const struct uie_rbuf *b)
{
	if (b->err != UIE_OK)
		return b->err;
	return uie_rbuf_left(b) == 0 ? UIE_OK : UIE_E_FORMAT;
}

int uie_rbuf_u8(struct uie_rbuf *b, uint8_t *v)
{
	const uint8_t *p;
	int r = uie_rbuf_view(b, &p, 1);

	*v = r == UIE_OK ? p[0] : 0;
	return r;
}

int uie_rbuf_u16(struct uie_rbuf *b, uint16_t *v)
{
	const uint8_t *p;
	int r = uie_rbuf_view(b, &p, 2);

	*v = r == UIE_OK ? uie_le16(p) : 0;
	return r;
}

int uie_rbuf_u32(struct uie_rbuf *b, uint32_t *v)
{
	const uint8_t *p;
	int r = uie_rbuf_view(b, &p, 4);

	*v = r == UIE_OK ? uie_le32(p) : 0;
	return r;
}

int uie_rbuf_u64(struct uie_rbuf *b, uint64_t *v)
{
	const uint8_t *p;
	int r = uie_rbuf_view(b, &p, 8);

	*v = r == UIE_OK ? uie_le64(p) : 0;
	return r;
}

void uie_wbuf_init(struct uie_wbuf *b, void *p, size_t cap)
{
	b->p = p;
	b->cap = p ? cap : 0;
	b->len = 0;
	b->err = UIE_OK;
}

/* Reserves n bytes; NULL (and a latched error) when they do not fit. */
static uint8_t *wbuf_reserve(struct uie_wbuf *b, size_t n)
{
	uint8_t *p;

	if (b->err != UIE_OK)
		return NULL;
	if (b->cap - b->len < n) {
		b->err = UIE_E_OVERFLOW;
		return NULL;
	}
	p = b->p + b->len;
	b->len += n;
	return p;
}

void uie_wbuf_u8(struct uie_wbuf *b, uint8_t v)
{
	uint8_t *p = wbuf_reserve(b, 1);

	if (p)
		p[0] = v;
}

void uie_wbuf_u16(struct uie_wbuf *b, uint16_t v)
{
	uint8_t *p = wbuf_reserve(b, 2);

	if (p)
		uie_put_le16(p, v);
}

void uie_wbuf_u32(struct uie_wbuf *b, uint32_t v)
{
	uint8_t *p = wbuf_reserve(b, 4);

	if (p)
		uie_put_le32(p, v);
}

void uie_wbuf_u64(struct uie_wbuf *b, uint64_t v)
{
	uint8_t *p = wbuf_reserve(b, 8);

	if (p)
		uie_put_le64(p, v);
}

void uie_wbuf_bytes(struct uie_wbuf *b, const void *src, size_t n)
{
	uint8_t *p = wbuf_reserve(b, n);

	if (p && n)
		uie_memcpy(p, src, n);
}

void uie_wbuf_zero(struct uie_wbuf *b, size_t n)
{
	uint8_t *p = wbuf_reserve(b, n);

	if (p && n)
		uie_memset(p, 0, n);
}

void uie_wbuf_drop(struct uie_wbuf *b, size_t n)
{
	if (n > b->len)
		n = b->len;
	if (b->len > n)
		uie_memmove(b->p, b->p + n, b->len - n);
	b->len -= n;
}

void uie_wbuf_file_id(struct uie_wbuf *b, const struct uie_file_id *id)
{
	uie_wbuf_u64(b, id->dev);
	uie_wbuf_u64(b, id->ino);
	uie_wbuf_u64(b, id->size);
	uie_wbuf_u64(b, (uint64_t)id->mtime_ns);
	uie_wbuf_u64(b, (uint64_t)id->ctime_ns);
}

uint16_t uie_le16(const uint8_t *p)
{
	return (uint16_t)(p[0] | (unsigned)p[1] << 8);
}

uint32_t uie_le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

uint64_t uie_le64(const uint8_t *p)
{
	return (uint64_t)uie_le32(p) | (uint64_t)uie_le32(p + 4) << 32;
}

void uie_put_le16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
}

void uie_put_le32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

void uie_put_le64(uint8_t *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}
