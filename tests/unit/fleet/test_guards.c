/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The guards in front of uie-verifierd's handlers.  The per-address rate
 * limit (verifierd/ratelimit.c) on a clock the test drives: bursts, refill,
 * Retry-After, refusals that do not count, addresses apart, and a table that
 * is full of flooding addresses.  The administrator's token
 * (verifierd/admin.c): token files accepted and refused, and Authorization
 * headers that carry the token, another one, a prefix or extension of it,
 * or none.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "admin.h"
#include "ratelimit.h"
#include "tcommon.h"
#include "uie/err.h"

#define S 1000000000ull
#define T0 (1000 * S) /* a monotonic clock is far from 0 */

/* How many of n requests of addr at now are accepted. */
static unsigned accepted(struct vd_rate *r, uint64_t addr, uint64_t now, unsigned n)
{
	unsigned ok = 0, retry;

	for (unsigned i = 0; i < n; i++)
		ok += vd_rate_take(r, addr, now, &retry);
	return ok;
}

static void test_burst_then_refill(void **state)
{
	struct vd_rate *r = vd_rate_alloc(10, 5); /* 10/s, bursts of 5 */
	unsigned retry = 0;

	(void)state;
	assert_non_null(r);
	assert_int_equal(accepted(r, 1, T0, 5), 5);
	assert_false(vd_rate_take(r, 1, T0, &retry));
	assert_int_equal(retry, 1);
	/* 0.1 s gives one request back, not two. */
	assert_int_equal(accepted(r, 1, T0 + S / 10, 2), 1);
	/* A flood that is refused does not push the next acceptance further. */
	assert_int_equal(accepted(r, 1, T0 + S / 10 + 1, 1000), 0);
	assert_int_equal(accepted(r, 1, T0 + 2 * S / 10, 1), 1);
	/* A second later the burst is whole again, and never more than whole. */
	assert_int_equal(accepted(r, 1, T0 + 10 * S, 100), 5);
	/* Hours idle: whole, no overflow. */
	assert_int_equal(accepted(r, 1, T0 + 86400 * S, 100), 5);
	vd_rate_free(r);
}

static void test_addresses_apart(void **state)
{
	struct vd_rate *r = vd_rate_alloc(1, 3);

	(void)state;
	assert_non_null(r);
	assert_int_equal(accepted(r, 0x7f000002, T0, 100), 3);
	assert_int_equal(accepted(r, 0x7f000001, T0, 2), 2);
	assert_int_equal(accepted(r, 0x7f000002, T0, 1), 0);
	assert_int_equal(accepted(r, 0x7f000001, T0, 1), 1);
	vd_rate_free(r);
}

static void test_full_table(void **state)
{
	struct vd_rate *r = vd_rate_alloc(1, 2);
	unsigned fresh = 0;

	(void)state;
	assert_non_null(r);
	/* Four times as many flooding addresses as slots, each exhausted. */
	for (uint64_t a = 1; a <= 4 * VD_RATE_SLOTS; a++)
		assert_int_equal(accepted(r, a, T0, 3), 2);
	/* A new address is still served: some flooder's slot is given up for it. */
	for (uint64_t a = 1000000; a < 1000100; a++)
		fresh += accepted(r, a, T0, 1);
	assert_int_equal(fresh, 100);
	vd_rate_free(r);
}

static void test_bad_arguments(void **state)
{
	(void)state;
	assert_null(vd_rate_alloc(0, 1));
	assert_null(vd_rate_alloc(1, 0));
}

#define TOKEN "s3cr3t-Token_of.the~admin+/=="

/* The parse of a file holding text; its token (owned) or NULL. */
static char *parsed(const char *text, size_t n, int want)
{
	const char *why = "unset";
	char *t = (char *)"unset";

	assert_int_equal(vd_admin_token_parse_alloc((const uint8_t *)text, n, &t, &why), want);
	if (want == UIE_OK)
		assert_null(why);
	else
		assert_non_null(why);
	if (want != UIE_OK)
		assert_null(t);
	return t;
}

static void test_token_files(void **state)
{
	char long_token[VD_ADMIN_TOKEN_MAX + 2];
	char *t;

	(void)state;
	t = parsed(TOKEN "\n", strlen(TOKEN) + 1, UIE_OK);
	assert_string_equal(t, TOKEN);
	free(t);
	t = parsed(TOKEN, strlen(TOKEN), UIE_OK);
	assert_string_equal(t, TOKEN);
	free(t);
	memset(long_token, 'a', sizeof(long_token));
	t = parsed(long_token, VD_ADMIN_TOKEN_MAX, UIE_OK);
	assert_int_equal(strlen(t), VD_ADMIN_TOKEN_MAX);
	free(t);
	parsed(long_token, VD_ADMIN_TOKEN_MAX + 1, UIE_E_FORMAT);
	parsed("0123456789abcde", 15, UIE_E_FORMAT); /* shorter than 16 */
	parsed("", 0, UIE_E_FORMAT);
	parsed("\n", 1, UIE_E_FORMAT);
	parsed(TOKEN "\n\n", strlen(TOKEN) + 2, UIE_E_FORMAT);
	parsed(TOKEN "\r\n", strlen(TOKEN) + 2, UIE_E_FORMAT);
	parsed("0123456789 abcdef", 17, UIE_E_FORMAT);
	parsed("0123456789abcdef\0x", 18, UIE_E_FORMAT);
	parsed("0123456789\nabcdef", 17, UIE_E_FORMAT);
	parsed("0123456789=abcdef", 17, UIE_E_FORMAT); /* = only at the end */
	parsed("================", 16, UIE_E_FORMAT);
	parsed("0123456789abcdé", 16, UIE_E_FORMAT);
}

static void test_check(void **state)
{
	(void)state;
	assert_int_equal(vd_admin_check(TOKEN, "Bearer " TOKEN), VD_ADMIN_OK);
	assert_int_equal(vd_admin_check(NULL, "Bearer " TOKEN), VD_ADMIN_DISABLED);
	assert_int_equal(vd_admin_check(NULL, NULL), VD_ADMIN_DISABLED);
	assert_int_equal(vd_admin_check(TOKEN, NULL), VD_ADMIN_REQUIRED);
	assert_int_equal(vd_admin_check(TOKEN, ""), VD_ADMIN_REQUIRED);
	assert_int_equal(vd_admin_check(TOKEN, "Bearer "), VD_ADMIN_REQUIRED);
	assert_int_equal(vd_admin_check(TOKEN, TOKEN), VD_ADMIN_REQUIRED);
	assert_int_equal(vd_admin_check(TOKEN, "Basic " TOKEN), VD_ADMIN_REQUIRED);
	assert_int_equal(vd_admin_check(TOKEN, "bearer" TOKEN), VD_ADMIN_REQUIRED);
	assert_int_equal(vd_admin_check(TOKEN, "Bearer " TOKEN "x"), VD_ADMIN_REQUIRED);
	assert_int_equal(vd_admin_check(TOKEN, "Bearer " TOKEN " "), VD_ADMIN_REQUIRED);
	assert_int_equal(vd_admin_check(TOKEN, "Bearer s3cr3t-Token"), VD_ADMIN_REQUIRED);
	assert_int_equal(vd_admin_check(TOKEN, "Bearer S3cr3t-Token_of.the~admin+/=="), VD_ADMIN_REQUIRED);
}

TC_MAIN(NULL, NULL, cmocka_unit_test(test_burst_then_refill), cmocka_unit_test(test_addresses_apart),
	cmocka_unit_test(test_full_table), cmocka_unit_test(test_bad_arguments),
	cmocka_unit_test(test_token_files), cmocka_unit_test(test_check))
