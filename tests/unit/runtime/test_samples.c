/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Durations kept for their median (lib/sys/samples.c): odd and even
 * counts, order of arrival, clamping, and the bound (only the last
 * UIE_SAMPLES_CAP samples count).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "uie/samples.h"
#include "tcommon.h"

static void test_empty(void **state)
{
	static struct uie_samples s;

	(void)state;
	assert_int_equal(uie_samples_median(&s), 0);
}

static void test_odd_even_unordered(void **state)
{
	static struct uie_samples s;
	static const uint64_t in[] = { 900, 100, 500, 300, 700 };

	(void)state;
	for (size_t i = 0; i < sizeof(in) / sizeof(in[0]); i++)
		uie_samples_add(&s, in[i]);
	assert_int_equal(uie_samples_median(&s), 500);
	uie_samples_add(&s, 1100);
	assert_int_equal(uie_samples_median(&s), 600); /* (500 + 700) / 2 */
	assert_int_equal(s.n, 6);
}

static void test_clamped(void **state)
{
	static struct uie_samples s;

	(void)state;
	uie_samples_add(&s, 1ull << 40);
	assert_int_equal(uie_samples_median(&s), UINT32_MAX);
}

static void test_last_ones_count(void **state)
{
	static struct uie_samples s;

	(void)state;
	for (unsigned i = 0; i < UIE_SAMPLES_CAP; i++)
		uie_samples_add(&s, 1000000);
	for (unsigned i = 0; i < UIE_SAMPLES_CAP / 2 + 1; i++)
		uie_samples_add(&s, 10);
	/* more than half of the kept samples are the newer ones */
	assert_int_equal(uie_samples_median(&s), 10);
	assert_int_equal(s.n, UIE_SAMPLES_CAP + UIE_SAMPLES_CAP / 2 + 1);
}

TC_MAIN(NULL, NULL, cmocka_unit_test(test_empty), cmocka_unit_test(test_odd_even_unordered),
	cmocka_unit_test(test_clamped), cmocka_unit_test(test_last_ones_count))
