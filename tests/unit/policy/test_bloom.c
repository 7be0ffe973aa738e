/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The Bloom hint: no false negatives, a false-positive rate near the
 * design, strict parsing of every header field, and the publication check.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <openssl/evp.h>

#include "uie/buf.h"
#include "uie/err.h"

#include "bloom.h"
#include "tcommon.h"

#define N_ITEMS 100000u

/* Distinct SHA-256 digests: SHA-256 of (tag, i). */
static void digest_of(uint32_t tag, uint32_t i, uint8_t d[32])
{
	uint8_t in[8];

	uie_put_le32(in, tag);
	uie_put_le32(in + 4, i);
	assert_int_equal(EVP_Digest(in, sizeof(in), d, NULL, EVP_sha256(), NULL), 1);
}

static uint8_t *build_bits(uint32_t n, uint32_t bits_per_key, size_t *len)
{
	uint64_t salt[2] = { 0x0123456789abcdefull, 0xfedcba9876543210ull };
	uint32_t nbits;
	uint8_t k, d[32], *buf;

	uie_bloom_params(n, bits_per_key, &nbits, &k);
	*len = uie_bloom_encoded_len(nbits);
	assert_true(*len > 0);
	buf = malloc(*len);
	assert_int_equal(uie_bloom_init(buf, *len, UIE_HASH_SHA256, k, 1, salt, nbits), UIE_OK);
	for (uint32_t i = 0; i < n; i++) {
		digest_of(1, i, d);
		assert_int_equal(uie_bloom_add(buf, *len, d, 32), UIE_OK);
	}
	return buf;
}

static uint8_t *build(uint32_t n, size_t *len)
{
	return build_bits(n, 0, len);
}

/* No false negatives; false positives at the rate the filter's size predicts. */
static void fp_rate_as_designed(uint32_t bits_per_key)
{
	size_t len;
	uint8_t *buf = build_bits(N_ITEMS, bits_per_key, &len), d[32];
	struct uie_bloom b;
	uint32_t fp = 0;
	double rate, design;

	assert_int_equal(uie_bloom_parse(buf, len, &b), UIE_OK);
	assert_int_equal(b.nitems, N_ITEMS);
	for (uint32_t i = 0; i < N_ITEMS; i++) {
		digest_of(1, i, d);
		assert_true(uie_bloom_maybe_contains(&b, d, 32));
	}
	for (uint32_t i = 0; i < N_ITEMS; i++) {
		digest_of(2, i, d);
		fp += uie_bloom_maybe_contains(&b, d, 32);
	}
	rate = (double)fp / N_ITEMS;
	design = pow(1.0 - exp(-(double)b.k * N_ITEMS / b.nbits), b.k);
	print_message("false positives: %.4f%% (design %.4f%%)\n", 100 * rate, 100 * design);
	assert_true(rate < design * 1.25 + 0.0005);
	assert_true(rate > design * 0.75 - 0.0005);
	free(buf);
}

static void test_no_false_negatives_and_fp_rate(void **state)
{
	uint32_t nbits;
	uint8_t k;

	(void)state;
	fp_rate_as_designed(0);
	fp_rate_as_designed(32); /* uie policy sign --bloom-bits 32: design 0.001 % */
	uie_bloom_params(12, 0, &nbits, &k);
	assert_int_equal(nbits, 128); /* 120 bits, rounded up to whole words */
	uie_bloom_params(12, 256, &nbits, &k);
	assert_int_equal(nbits, 3072);
	assert_int_equal(k, UIE_BLOOM_K);
	uie_bloom_params(UINT32_MAX, 1024, &nbits, &k);
	assert_int_equal(nbits, 0); /* too large for a hint */
}

static void test_empty_filter_misses_everything(void **state)
{
	size_t len;
	uint8_t *buf = build(0, &len), d[32];
	struct uie_bloom b;

	(void)state;
	assert_int_equal(uie_bloom_parse(buf, len, &b), UIE_OK);
	assert_int_equal(b.nbits, UIE_BLOOM_MIN_BITS);
	for (uint32_t i = 0; i < 1000; i++) {
		digest_of(3, i, d);
		assert_false(uie_bloom_maybe_contains(&b, d, 32));
	}
	free(buf);
}

static void test_doubt_is_not_a_miss(void **state)
{
	size_t len;
	uint8_t *buf = build(0, &len), d[48] = { 0 };
	struct uie_bloom b;

	(void)state;
	assert_int_equal(uie_bloom_parse(buf, len, &b), UIE_OK);
	assert_true(uie_bloom_maybe_contains(NULL, d, 32));
	assert_true(uie_bloom_maybe_contains(&b, NULL, 32));
	assert_true(uie_bloom_maybe_contains(&b, d, 48)); /* another algorithm's length */
	assert_true(uie_bloom_maybe_contains(&b, d, 0));
	assert_false(uie_bloom_maybe_contains(&b, d, 32));
	free(buf);
}

/* Every corruption of the header is refused, and the output is cleared. */
static void test_corrupt_hint_rejected(void **state)
{
	size_t len;
	uint8_t *buf = build(10, &len), *c;
	struct uie_bloom b;
	static const struct {
		size_t off;
		uint8_t val;
		int err;
	} cases[] = {
		{ 0, 'X', UIE_E_FORMAT },  { 8, 2, UIE_E_VERSION }, { 10, 0x04, UIE_E_ALG },
		{ 12, 0, UIE_E_LIMIT },    { 12, 17, UIE_E_LIMIT }, { 13, 1, UIE_E_FORMAT },
		{ 15, 1, UIE_E_FORMAT },   { 40, 65, UIE_E_LIMIT }, /* nbits not a multiple of 64 */
		{ 43, 0x80, UIE_E_LIMIT },                          /* nbits above the maximum */
	};

	(void)state;
	c = malloc(len + 8);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		memcpy(c, buf, len);
		c[cases[i].off] = cases[i].val;
		memset(&b, 0x5a, sizeof(b));
		assert_int_equal(uie_bloom_parse(c, len, &b), cases[i].err);
		assert_null(b.bits);
		assert_int_equal(b.nbits, 0);
	}
	/* nbits larger than the bytes present, and trailing bytes. */
	memcpy(c, buf, len);
	uie_put_le32(c + 40, uie_le32(buf + 40) + 64);
	assert_int_equal(uie_bloom_parse(c, len, &b), UIE_E_TRUNCATED);
	memcpy(c, buf, len);
	c[len] = 0;
	assert_int_equal(uie_bloom_parse(c, len + 1, &b), UIE_E_FORMAT);
	for (size_t cut = 0; cut < len; cut += 7)
		assert_int_equal(uie_bloom_parse(buf, cut, &b), UIE_E_TRUNCATED);
	assert_int_equal(uie_bloom_parse(NULL, len, &b), UIE_E_INVAL);
	assert_int_equal(uie_bloom_parse(buf, len, NULL), UIE_E_INVAL);
	free(c);
	free(buf);
}

static void test_build_errors(void **state)
{
	uint8_t buf[UIE_BLOOM_HDR_LEN + 8], d[32] = { 0 };
	uint64_t salt[2] = { 0 };

	(void)state;
	assert_int_equal(uie_bloom_init(buf, sizeof(buf), 0x0004, 3, 1, salt, 64), UIE_E_ALG);
	assert_int_equal(uie_bloom_init(buf, sizeof(buf), UIE_HASH_SHA256, 0, 1, salt, 64), UIE_E_LIMIT);
	assert_int_equal(uie_bloom_init(buf, sizeof(buf), UIE_HASH_SHA256, 3, 1, salt, 100), UIE_E_LIMIT);
	assert_int_equal(uie_bloom_init(buf, sizeof(buf), UIE_HASH_SHA256, 3, 1, salt, 128), UIE_E_OVERFLOW);
	assert_int_equal(uie_bloom_init(buf, sizeof(buf), UIE_HASH_SHA256, 3, 1, salt, 64), UIE_OK);
	assert_int_equal(uie_bloom_add(buf, sizeof(buf), d, 48), UIE_E_ALG);
	assert_int_equal(uie_bloom_add(buf, sizeof(buf) - 1, d, 32), UIE_E_TRUNCATED);
	assert_int_equal(uie_bloom_encoded_len(0), 0);
	assert_int_equal(uie_bloom_encoded_len(64), UIE_BLOOM_HDR_LEN + 8);
}

static void test_check_policy(void **state)
{
	struct uie_policy_rule rules[2] = {
		{ .event = UIE_EV_EXECVE, .role = UIE_ROLE_MAIN, .action = UIE_ALLOW, .digest = { 1 } },
		{ .event = UIE_EV_EXECVE, .role = UIE_ROLE_MAIN, .action = UIE_DENY, .digest = { 2 } },
	};
	uint8_t table[256], hint[UIE_BLOOM_HDR_LEN + 8];
	uint64_t salt[2] = { 7, 8 };
	struct uie_policy pol;
	struct uie_bloom b;
	size_t tlen;

	(void)state;
	assert_int_equal(uie_policy_encode(UIE_MODE_ENFORCE, UIE_DENY, UIE_HASH_SHA256, rules, 2, table,
					   sizeof(table), &tlen),
			 UIE_OK);
	assert_int_equal(uie_policy_load(table, tlen, &pol), UIE_OK);
	assert_int_equal(uie_bloom_init(hint, sizeof(hint), UIE_HASH_SHA256, 4, 5, salt, 64), UIE_OK);
	assert_int_equal(uie_bloom_parse(hint, sizeof(hint), &b), UIE_OK);
	assert_int_equal(uie_bloom_check_policy(&b, &pol, 5), UIE_E_FORMAT); /* ALLOW digest missing */
	/* Only ALLOW digests are needed: the DENY rule's digest may miss. */
	assert_int_equal(uie_bloom_add(hint, sizeof(hint), rules[0].digest, 32), UIE_OK);
	assert_int_equal(uie_bloom_parse(hint, sizeof(hint), &b), UIE_OK);
	assert_int_equal(uie_bloom_check_policy(&b, &pol, 5), UIE_OK);
	assert_int_equal(uie_bloom_check_policy(&b, &pol, 6), UIE_E_EPOCH);
	pol.default_action = UIE_ALLOW;
	assert_int_equal(uie_bloom_check_policy(&b, &pol, 5), UIE_E_STATE);
	pol.default_action = UIE_DENY;
	pol.mode = UIE_MODE_MEASURE;
	assert_int_equal(uie_bloom_check_policy(&b, &pol, 5), UIE_E_STATE);
	pol.mode = UIE_MODE_ENFORCE;
	pol.hash_alg = UIE_HASH_SHA384;
	assert_int_equal(uie_bloom_check_policy(&b, &pol, 5), UIE_E_ALG);
}

TC_MAIN(NULL, NULL, cmocka_unit_test(test_no_false_negatives_and_fp_rate),
	cmocka_unit_test(test_empty_filter_misses_everything), cmocka_unit_test(test_doubt_is_not_a_miss),
	cmocka_unit_test(test_corrupt_hint_rejected), cmocka_unit_test(test_build_errors),
	cmocka_unit_test(test_check_policy))
