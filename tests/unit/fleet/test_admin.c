/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The administrator's token of uie-verifierd (verifierd/admin.c): token
 * files accepted and refused, and Authorization headers that carry the
 * token, another one, a prefix or extension of it, or none.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "admin.h"
#include "uie/err.h"

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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_token_files),
		cmocka_unit_test(test_check),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
