/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The read buffer (lib/core/buf.c): little-endian fields, bounds, and the
 * first error latched so that a decoder can read every field and check once.
 */
#include <stdarg.h>
#include <setjmp.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "uie/buf.h"
#include "uie/err.h"
#include "tcommon.h"

static void test_reads(void **state)
{
	static const uint8_t in[] = { 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x00, 0x00 };
	struct uie_rbuf b;
	uint8_t u8;
	uint16_t u16;
	uint32_t u32;

	(void)state;
	uie_rbuf_init(&b, in, sizeof(in));
	assert_int_equal(uie_rbuf_u8(&b, &u8), UIE_OK);
	assert_int_equal(uie_rbuf_u16(&b, &u16), UIE_OK);
	assert_int_equal(uie_rbuf_u32(&b, &u32), UIE_OK);
	assert_int_equal(u8, 0x01);
	assert_int_equal(u16, 0x0302);
	assert_int_equal(u32, 0x07060504);
	assert_int_equal(uie_rbuf_end(&b), UIE_E_FORMAT); /* two bytes left */
	assert_int_equal(uie_rbuf_zero(&b, 2), UIE_OK);
	assert_int_equal(uie_rbuf_end(&b), UIE_OK);
	assert_int_equal(uie_rbuf_err(&b), UIE_OK);
}

/* After a short read every later read fails the same way and yields zero. */
static void test_truncation_latches(void **state)
{
	static const uint8_t in[] = { 0xaa, 0xbb, 0xcc };
	struct uie_rbuf b;
	uint32_t u32 = 7;
	uint8_t u8 = 7;

	(void)state;
	uie_rbuf_init(&b, in, sizeof(in));
	assert_int_equal(uie_rbuf_u32(&b, &u32), UIE_E_TRUNCATED);
	assert_int_equal(u32, 0);
	/* A byte is still there, but the buffer has failed: no partial decoding. */
	assert_int_equal(uie_rbuf_u8(&b, &u8), UIE_E_TRUNCATED);
	assert_int_equal(u8, 0);
	assert_int_equal(uie_rbuf_err(&b), UIE_E_TRUNCATED);
	assert_int_equal(uie_rbuf_end(&b), UIE_E_TRUNCATED);
}

/* Reserved bytes that are not zero latch UIE_E_FORMAT. */
static void test_reserved_latches(void **state)
{
	static const uint8_t in[] = { 0x00, 0x01, 0x05 };
	struct uie_rbuf b;
	uint8_t u8 = 7;

	(void)state;
	uie_rbuf_init(&b, in, sizeof(in));
	assert_int_equal(uie_rbuf_zero(&b, 2), UIE_E_FORMAT);
	assert_int_equal(uie_rbuf_u8(&b, &u8), UIE_E_FORMAT);
	assert_int_equal(u8, 0);
	assert_int_equal(uie_rbuf_end(&b), UIE_E_FORMAT);
}

/* A format's magic and version: each wrong part has its own error, which latches. */
static void test_magic_version(void **state)
{
	static const uint8_t in[] = { 'U', 'I', 'E', 'X', 0x02, 0x00, 0x09 };
	struct uie_rbuf b;
	uint8_t u8 = 7;

	(void)state;
	uie_rbuf_init(&b, in, sizeof(in));
	assert_int_equal(uie_rbuf_magic_version(&b, "UIEX", 4, 2), UIE_OK);
	assert_int_equal(uie_rbuf_u8(&b, &u8), UIE_OK);
	assert_int_equal(u8, 9);
	assert_int_equal(uie_rbuf_end(&b), UIE_OK);
	uie_rbuf_init(&b, in, sizeof(in));
	assert_int_equal(uie_rbuf_magic_version(&b, "UIEY", 4, 2), UIE_E_FORMAT);
	assert_int_equal(uie_rbuf_left(&b), sizeof(in));
	assert_int_equal(uie_rbuf_u8(&b, &u8), UIE_E_FORMAT);
	uie_rbuf_init(&b, in, sizeof(in));
	assert_int_equal(uie_rbuf_magic_version(&b, "UIEX", 4, 1), UIE_E_VERSION);
	assert_int_equal(uie_rbuf_left(&b), sizeof(in));
	assert_int_equal(uie_rbuf_err(&b), UIE_E_VERSION);
	uie_rbuf_init(&b, in, 5); /* the version cut short */
	assert_int_equal(uie_rbuf_magic_version(&b, "UIEX", 4, 2), UIE_E_TRUNCATED);
	uie_rbuf_init(&b, in, 3); /* the magic cut short */
	assert_int_equal(uie_rbuf_magic_version(&b, "UIEX", 4, 2), UIE_E_TRUNCATED);
}

/* Sent bytes dropped from the front: the rest stays in order, more can be written after it. */
static void test_wbuf_drop(void **state)
{
	uint8_t mem[6];
	struct uie_wbuf b;

	(void)state;
	uie_wbuf_init(&b, mem, sizeof(mem));
	uie_wbuf_bytes(&b, "abcde", 5);
	uie_wbuf_drop(&b, 2);
	assert_int_equal(b.len, 3);
	assert_memory_equal(b.p, "cde", 3);
	uie_wbuf_bytes(&b, "fgh", 3);
	assert_int_equal(b.err, UIE_OK);
	assert_memory_equal(b.p, "cdefgh", 6);
	uie_wbuf_drop(&b, 99);
	assert_int_equal(b.len, 0);
	uie_wbuf_u8(&b, 1);
	assert_int_equal(b.len, 1);
}

TC_MAIN(NULL, NULL, cmocka_unit_test(test_reads), cmocka_unit_test(test_truncation_latches),
	cmocka_unit_test(test_reserved_latches), cmocka_unit_test(test_magic_version),
	cmocka_unit_test(test_wbuf_drop))
