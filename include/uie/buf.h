/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The one bounds-checked buffer API used by every encoder and decoder.
 *
 * A reader is a read-only view over caller-owned bytes; every get checks the
 * remaining length first and, on failure, returns UIE_E_TRUNCATED and leaves
 * the cursor where it was.  A writer appends into caller-owned storage of
 * fixed capacity; the first failing put latches UIE_E_OVERFLOW in `err` so a
 * sequence of puts can be checked once at the end.  All multi-byte integers
 * are little-endian.  Freestanding: no libc.
 */
#ifndef UIE_BUF_H
#define UIE_BUF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "uie/err.h"

struct uie_file_id;

/*
 * A read buffer latches its first error: once a read fails (truncated, or
 * reserved bytes not zero), every later read fails with the same error and
 * yields zeros, so a decoder may read all fields and check once
 * (uie_rbuf_err, or uie_rbuf_end).
 */
struct uie_rbuf {
	const uint8_t *p;
	size_t len;
	size_t off;
	int err; /* UIE_OK until a read fails */
};

struct uie_wbuf {
	uint8_t *p;
	size_t cap;
	size_t len;
	int err; /* UIE_OK until a put does not fit */
};

void uie_rbuf_init(struct uie_rbuf *b, const void *p, size_t len);
size_t uie_rbuf_left(const struct uie_rbuf *b);
/* Pointer to the unread bytes (valid while the underlying storage lives). */
const uint8_t *uie_rbuf_cur(const struct uie_rbuf *b);
int uie_rbuf_u8(struct uie_rbuf *b, uint8_t *v);
int uie_rbuf_u16(struct uie_rbuf *b, uint16_t *v);
int uie_rbuf_u32(struct uie_rbuf *b, uint32_t *v);
int uie_rbuf_u64(struct uie_rbuf *b, uint64_t *v);
int uie_rbuf_bytes(struct uie_rbuf *b, void *out, size_t n);
/* A file identity (uie/types.h) as five u64s: dev, ino, size, mtime_ns, ctime_ns. */
int uie_rbuf_file_id(struct uie_rbuf *b, struct uie_file_id *id);
/* Returns a pointer to the next n bytes in place and advances past them. */
int uie_rbuf_view(struct uie_rbuf *b, const uint8_t **out, size_t n);
int uie_rbuf_skip(struct uie_rbuf *b, size_t n);
/* Reads n bytes that must all be zero (reserved fields); UIE_E_FORMAT if not. */
int uie_rbuf_zero(struct uie_rbuf *b, size_t n);
/*
 * Reads the start every versioned format shares: the n bytes of magic, then
 * a u16 version.  UIE_E_FORMAT when the bytes are not magic, UIE_E_VERSION
 * when the version is not version (both latched, the cursor left where it
 * was), or the read's own error.
 */
int uie_rbuf_magic_version(struct uie_rbuf *b, const void *magic, size_t n, uint16_t version);
/* The first error of a read from b, or UIE_OK. */
int uie_rbuf_err(const struct uie_rbuf *b);
/*
 * The first error of a read from b if there was one; else UIE_OK when every
 * byte was consumed, UIE_E_FORMAT when bytes remain.
 */
int uie_rbuf_end(const struct uie_rbuf *b);

/*
 * Every decoder's contract on its result: uie_out_begin zeroes the
 * caller's *out (size bytes) and answers UIE_E_INVAL for a NULL out or
 * when the inputs are missing (inputs false); uie_out_end passes the
 * decoder's r on, zeroing *out again when it is an error, so that a caller
 * never sees half a result.  Inline, so that static analysis sees the
 * NULL checks at each caller.
 */
static inline int uie_out_begin(void *out, size_t size, bool inputs)
{
	if (!out)
		return UIE_E_INVAL;
	__builtin_memset(out, 0, size);
	return inputs ? UIE_OK : UIE_E_INVAL;
}

static inline int uie_out_end(void *out, size_t size, int r)
{
	if (r != UIE_OK)
		__builtin_memset(out, 0, size);
	return r;
}

void uie_wbuf_init(struct uie_wbuf *b, void *p, size_t cap);
void uie_wbuf_u8(struct uie_wbuf *b, uint8_t v);
void uie_wbuf_u16(struct uie_wbuf *b, uint16_t v);
void uie_wbuf_u32(struct uie_wbuf *b, uint32_t v);
void uie_wbuf_u64(struct uie_wbuf *b, uint64_t v);
void uie_wbuf_bytes(struct uie_wbuf *b, const void *p, size_t n);
void uie_wbuf_zero(struct uie_wbuf *b, size_t n);
void uie_wbuf_file_id(struct uie_wbuf *b, const struct uie_file_id *id);
/* Drops the first n bytes written (sent, say): the rest moves to the start. n > len drops all. */
void uie_wbuf_drop(struct uie_wbuf *b, size_t n);

/* Raw little-endian loads and stores for code that already checked bounds. */
uint16_t uie_le16(const uint8_t *p);
uint32_t uie_le32(const uint8_t *p);
uint64_t uie_le64(const uint8_t *p);
void uie_put_le16(uint8_t *p, uint16_t v);
void uie_put_le32(uint8_t *p, uint32_t v);
void uie_put_le64(uint8_t *p, uint64_t v);

/* Overflow-checked a + b into *out; false on overflow. */
static inline bool uie_add_ok(uint64_t a, uint64_t b, uint64_t *out)
{
	return !__builtin_add_overflow(a, b, out);
}

#endif
