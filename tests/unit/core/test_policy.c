/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Compiled policy table (docs/FORMATS.md section 2): vector, lookup order,
 * a 100,000-rule table, and every malformed-table class.
 */
#include <stdarg.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "helpers.h"
#include "uie/err.h"
#include "uie/policy.h"
#include "tcommon.h"

/* Vector V3: SHA-256, ENFORCE, default DENY, four rules. */
static const char v3_hex[] = "554945504f4c543102000b000200000004000000000000000203000011111111"
			     "1111111111111111111111111111111111111111111111111111111102030100"
			     "1111111111111111111111111111111111111111111111111111111111111111"
			     "010101003a5f3a9a3ae4180533459e66a9a10e53a6059b9e1ba5c1d37dbf8698"
			     "945c1de103050100ffffffffffffffffffffffffffffffffffffffffffffffff"
			     "ffffffffffffffff";
static const char v1_digest_hex[] = "3a5f3a9a3ae4180533459e66a9a10e53a6059b9e1ba5c1d37dbf8698945c1de1";

static void v3_rules(struct uie_policy_rule r[4])
{
	memset(r, 0, 4 * sizeof(*r));
	r[0] = (struct uie_policy_rule){ UIE_EV_MMAP_EXEC, UIE_ROLE_DSO, UIE_DENY, { 0 } };
	r[1] = (struct uie_policy_rule){ UIE_EV_MMAP_EXEC, UIE_ROLE_DSO, UIE_ALLOW, { 0 } };
	r[2] = (struct uie_policy_rule){ UIE_EV_EXECVE, UIE_ROLE_MAIN, UIE_ALLOW, { 0 } };
	r[3] = (struct uie_policy_rule){ UIE_EV_MPROTECT_EXEC, UIE_ROLE_ANON, UIE_ALLOW, { 0 } };
	memset(r[0].digest, 0x11, 32);
	memset(r[1].digest, 0x11, 32);
	tc_hex(v1_digest_hex, r[2].digest, 32);
	memset(r[3].digest, 0xff, 32);
}

static void test_vector(void **state)
{
	struct uie_policy_rule rules[4];
	uint8_t want[256], out[256];
	struct uie_policy pol;
	size_t wlen, olen;

	(void)state;
	v3_rules(rules);
	wlen = tc_hex(v3_hex, want, sizeof(want));
	assert_int_equal(wlen, uie_policy_encoded_len(UIE_HASH_SHA256, 4));
	assert_int_equal(uie_policy_encode(UIE_MODE_ENFORCE, UIE_DENY, UIE_HASH_SHA256, rules, 4, out,
					   sizeof(out), &olen),
			 UIE_OK);
	assert_int_equal(olen, wlen);
	assert_memory_equal(out, want, wlen);
	assert_int_equal(uie_policy_load(want, wlen, &pol), UIE_OK);
	assert_int_equal(pol.nrules, 4);
	assert_int_equal(pol.rule_len, 36);
	assert_int_equal(pol.hash_alg, UIE_HASH_SHA256);
	assert_int_equal(pol.mode, UIE_MODE_ENFORCE);
	assert_int_equal(pol.default_action, UIE_DENY);
	assert_ptr_equal(pol.rules, want + 24);

	/*
	 * Vector V3S: V3 with require=immutable (flags 0x0001) and trust_fs=fuse,
	 * virtiofs (trusted_fs 0x00000006); only the header differs.
	 */
	static const char v3s_header[] = "554945504f4c543102000b00020001000400000006000000";
	struct uie_policy_sources src = { .flags = UIE_POLICY_REQUIRE_IMMUTABLE,
					  .trusted_fs = (1u << UIE_FS_FUSE) | (1u << UIE_FS_VIRTIOFS) };

	wlen = tc_hex(v3_hex, want, sizeof(want));
	tc_hex(v3s_header, want, 24);
	assert_int_equal(uie_policy_encode_sources(UIE_MODE_ENFORCE, UIE_DENY, UIE_HASH_SHA256, &src, rules,
						   4, out, sizeof(out), &olen),
			 UIE_OK);
	assert_int_equal(olen, wlen);
	assert_memory_equal(out, want, wlen);
	assert_int_equal(uie_policy_load(want, wlen, &pol), UIE_OK);
	assert_int_equal(pol.flags, UIE_POLICY_REQUIRE_IMMUTABLE);
	assert_int_equal(pol.trusted_fs, 0x6);
	assert_int_equal(pol.nrules, 4);
	/* Without sources the encoding is V3's, byte for byte. */
	assert_int_equal(uie_policy_encode_sources(UIE_MODE_ENFORCE, UIE_DENY, UIE_HASH_SHA256, NULL, rules,
						   4, out, sizeof(out), &olen),
			 UIE_OK);
	tc_hex(v3_hex, want, sizeof(want));
	assert_memory_equal(out, want, wlen);
	src.flags = 0x2;
	assert_int_equal(uie_policy_encode_sources(UIE_MODE_ENFORCE, UIE_DENY, UIE_HASH_SHA256, &src, rules,
						   4, out, sizeof(out), &olen),
			 UIE_E_INVAL);
}

static void lookup(const struct uie_policy *pol, uint8_t ev, uint8_t role, const uint8_t *d, uint8_t want_dec,
		   uint16_t want_reason)
{
	uint8_t dec = 0xee;
	uint16_t reason = 0xeeee;

	uie_policy_lookup(pol, ev, role, d, &dec, &reason);
	assert_int_equal(dec, want_dec);
	assert_int_equal(reason, want_reason);
}

/* Deny rules win over allow rules, which win over the default. */
static void test_decision_order(void **state)
{
	struct uie_policy_rule rules[4];
	uint8_t buf[256], d11[32], dv1[32], dff[32], d00[32] = { 0 };
	struct uie_policy pol;
	size_t len;

	(void)state;
	v3_rules(rules);
	memcpy(d11, rules[0].digest, 32);
	memcpy(dv1, rules[2].digest, 32);
	memcpy(dff, rules[3].digest, 32);
	for (uint8_t def = 0; def < 2; def++) {
		assert_int_equal(uie_policy_encode(UIE_MODE_MEASURE, def, UIE_HASH_SHA256, rules, 4, buf,
						   sizeof(buf), &len),
				 UIE_OK);
		assert_int_equal(uie_policy_load(buf, len, &pol), UIE_OK);
		lookup(&pol, UIE_EV_MMAP_EXEC, UIE_ROLE_DSO, d11, UIE_DENY, UIE_R_RULE_DENY);
		lookup(&pol, UIE_EV_EXECVE, UIE_ROLE_MAIN, dv1, UIE_ALLOW, UIE_R_RULE_ALLOW);
		lookup(&pol, UIE_EV_MPROTECT_EXEC, UIE_ROLE_ANON, dff, UIE_ALLOW, UIE_R_RULE_ALLOW);
		/* Same digest, other event or role: default. */
		lookup(&pol, UIE_EV_EXECVE, UIE_ROLE_DSO, dv1, def, UIE_R_DEFAULT);
		lookup(&pol, UIE_EV_MMAP_EXEC, UIE_ROLE_MAIN, d11, def, UIE_R_DEFAULT);
		lookup(&pol, UIE_EV_EXECVE, UIE_ROLE_MAIN, d00, def, UIE_R_DEFAULT);
		lookup(&pol, UIE_EV_EXECVE, UIE_ROLE_MAIN, dff, def, UIE_R_DEFAULT);
	}
	/* Fail closed without a table or digest. */
	lookup(NULL, UIE_EV_EXECVE, UIE_ROLE_MAIN, dv1, UIE_DENY, UIE_R_DEFAULT);
	lookup(&pol, UIE_EV_EXECVE, UIE_ROLE_MAIN, NULL, UIE_DENY, UIE_R_DEFAULT);
}

static int cmp384(const void *a, const void *b)
{
	return uie_policy_rule_cmp(a, b, UIE_SHA384_LEN);
}

/* 100,000 rules with SHA-384 digests: every rule is found, absent digests get the default. */
static void test_large_table(void **state)
{
	const uint32_t n = 100000;
	struct uie_policy_rule *rules = calloc(n, sizeof(*rules));
	size_t cap = uie_policy_encoded_len(UIE_HASH_SHA384, n), len;
	uint8_t *buf = malloc(cap), probe[48];
	struct uie_policy pol;
	uint64_t x = 0x9e3779b97f4a7c15u;

	(void)state;
	assert_non_null(rules);
	assert_non_null(buf);
	for (uint32_t i = 0; i < n; i++) {
		for (int j = 0; j < 48; j++) {
			x ^= x << 13, x ^= x >> 7, x ^= x << 17;
			rules[i].digest[j] = (uint8_t)x;
		}
		rules[i].digest[47] = 1; /* probes below end in 0: never present */
		rules[i].event = (uint8_t)(1 + i % 3);
		rules[i].role = (uint8_t)(1 + i % 5);
		rules[i].action = (uint8_t)(i % 2);
	}
	qsort(rules, n, sizeof(*rules), cmp384);
	assert_int_equal(
		uie_policy_encode(UIE_MODE_ENFORCE, UIE_ALLOW, UIE_HASH_SHA384, rules, n, buf, cap, &len),
		UIE_OK);
	assert_int_equal(len, cap);
	assert_int_equal(uie_policy_load(buf, len, &pol), UIE_OK);
	for (uint32_t i = 0; i < n; i++)
		lookup(&pol, rules[i].event, rules[i].role, rules[i].digest, rules[i].action,
		       rules[i].action ? UIE_R_RULE_ALLOW : UIE_R_RULE_DENY);
	for (uint32_t i = 0; i < n; i += 97) {
		memcpy(probe, rules[i].digest, 48);
		probe[47] = 0;
		lookup(&pol, rules[i].event, rules[i].role, probe, UIE_ALLOW, UIE_R_DEFAULT);
	}
	free(rules);
	free(buf);
}

static void expect_reject(const uint8_t *buf, size_t len, int err, const char *what)
{
	struct uie_policy pol;
	static const uint8_t zero[sizeof(pol)];
	int r;

	memset(&pol, 0xa5, sizeof(pol));
	r = uie_policy_load(buf, len, &pol);
	if (r != err)
		fail_msg("%s: got %d (%s), want %d", what, r, uie_err_str(r), err);
	assert_memory_equal(&pol, zero, sizeof(pol));
}

static void test_malformed(void **state)
{
	uint8_t good[256], bad[300];
	size_t len;

	(void)state;
	len = tc_hex(v3_hex, good, sizeof(good));
	/* Every truncation of the header and the rules. */
	for (size_t i = 0; i < len; i++)
		expect_reject(good, i, UIE_E_TRUNCATED, "truncated");
	expect_reject(NULL, 0, UIE_E_INVAL, "NULL");
	memcpy(bad, good, len);
	bad[len] = 0;
	expect_reject(bad, len + 1, UIE_E_FORMAT, "trailing byte");
#define MUT(off, val, err, what)                    \
	do {                                        \
		memcpy(bad, good, len);             \
		bad[off] = (val);                   \
		expect_reject(bad, len, err, what); \
	} while (0)
	MUT(0, 'V', UIE_E_FORMAT, "bad magic");
	MUT(7, '2', UIE_E_FORMAT, "bad magic version digit");
	MUT(8, 1, UIE_E_VERSION, "version 1 (no SCRIPT role, ANON rules not consulted)");
	MUT(8, 3, UIE_E_VERSION, "version 3");
	MUT(9, 1, UIE_E_VERSION, "version 258");
	MUT(10, 0x0A, UIE_E_ALG, "hash alg 0x000A");
	MUT(10, 0x0C, UIE_E_TRUNCATED, "sha384 with sha256-sized rules");
	MUT(12, 0, UIE_E_FORMAT, "mode bootstrap");
	MUT(12, 3, UIE_E_FORMAT, "mode 3");
	MUT(13, 2, UIE_E_FORMAT, "default action 2");
	MUT(14, 2, UIE_E_FORMAT, "flags: undefined bit 1");
	MUT(15, 0x80, UIE_E_FORMAT, "flags: undefined bit 15");
	MUT(20, 1, UIE_E_FORMAT, "trusted_fs bit 0 (LOCAL is no kind to trust)");
	MUT(21, 0x04, UIE_E_FORMAT, "trusted_fs bit 10 (no such kind)");
	MUT(23, 0x80, UIE_E_FORMAT, "trusted_fs bit 31");
	MUT(16, 3, UIE_E_FORMAT, "nrules too small for length");
	MUT(16, 5, UIE_E_TRUNCATED, "nrules too large for length");
	MUT(19, 0x7f, UIE_E_LIMIT, "nrules above limit");
	/* Rule fields: first rule at 24. */
	MUT(24, 0, UIE_E_FORMAT, "event 0");
	MUT(24, 4, UIE_E_FORMAT, "event 4");
	MUT(25, 0, UIE_E_FORMAT, "role NONE");
	MUT(25, 7, UIE_E_FORMAT, "role 7");
	MUT(26, 2, UIE_E_FORMAT, "action 2");
	MUT(27, 1, UIE_E_FORMAT, "rule reserved");
	/* Order: rule 0 (deny) and rule 1 (allow) share a digest. */
	MUT(26, 1, UIE_E_ORDER, "duplicate rule");
	MUT(24 + 36 + 2, 0, UIE_E_ORDER, "duplicate rule, second copy");
#undef MUT
	/* Swap rules 2 and 3: unsorted. */
	memcpy(bad, good, len);
	memcpy(bad + 24 + 2 * 36, good + 24 + 3 * 36, 36);
	memcpy(bad + 24 + 3 * 36, good + 24 + 2 * 36, 36);
	expect_reject(bad, len, UIE_E_ORDER, "unsorted");
}

static void test_encode_checks(void **state)
{
	struct uie_policy_rule rules[4], tmp;
	uint8_t out[256];
	size_t len = 1;

	(void)state;
	v3_rules(rules);
	tmp = rules[2];
	rules[2] = rules[3];
	rules[3] = tmp;
	assert_int_equal(uie_policy_encode(UIE_MODE_ENFORCE, UIE_DENY, UIE_HASH_SHA256, rules, 4, out,
					   sizeof(out), &len),
			 UIE_E_ORDER);
	assert_int_equal(len, 0);
	v3_rules(rules);
	rules[1] = rules[0];
	assert_int_equal(uie_policy_encode(UIE_MODE_ENFORCE, UIE_DENY, UIE_HASH_SHA256, rules, 4, out,
					   sizeof(out), &len),
			 UIE_E_ORDER);
	v3_rules(rules);
	assert_int_equal(
		uie_policy_encode(UIE_MODE_ENFORCE, UIE_DENY, UIE_HASH_SHA256, rules, 4, out, 100, &len),
		UIE_E_OVERFLOW);
	assert_int_equal(uie_policy_encode(UIE_MODE_BOOTSTRAP, UIE_DENY, UIE_HASH_SHA256, rules, 4, out,
					   sizeof(out), &len),
			 UIE_E_INVAL);
	assert_int_equal(
		uie_policy_encode(UIE_MODE_ENFORCE, UIE_DENY, 0x0012, rules, 4, out, sizeof(out), &len),
		UIE_E_ALG);
	rules[0].role = UIE_ROLE_NONE;
	assert_int_equal(uie_policy_encode(UIE_MODE_ENFORCE, UIE_DENY, UIE_HASH_SHA256, rules, 4, out,
					   sizeof(out), &len),
			 UIE_E_INVAL);
	/* An empty table is valid: only the default applies. */
	assert_int_equal(uie_policy_encode(UIE_MODE_ENFORCE, UIE_ALLOW, UIE_HASH_SHA384, NULL, 0, out,
					   sizeof(out), &len),
			 UIE_OK);
	assert_int_equal(len, 24);
}

TC_MAIN(NULL, NULL, cmocka_unit_test(test_vector), cmocka_unit_test(test_decision_order),
	cmocka_unit_test(test_large_table), cmocka_unit_test(test_malformed),
	cmocka_unit_test(test_encode_checks))
