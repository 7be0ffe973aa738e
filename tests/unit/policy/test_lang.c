/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The policy language: compile/show round trips, manifests, and hostile
 * inputs that must fail with the right line and column.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "uie/err.h"
#include "uie/policy.h"

#include "lang.h"
#include "tcommon.h"

#define D1 "sha256:1111111111111111111111111111111111111111111111111111111111111111"
#define D2 "sha256:2222222222222222222222222222222222222222222222222222222222222222"
#define HDR "policy_name=test policy_version=1.2.3\n"

static const char good[] = "# a comment line\n"
			   "policy_name=web-01 policy_version=0.1.65535   # trailing comment\n"
			   "\n"
			   "mode=ENFORCE\n"
			   "DEFAULT action=DENY\n"
			   "op=MMAP_EXEC role=DSO digest=" D2 " action=ALLOW\n"
			   "\top=EXECVE   role=MAIN digest=" D1 " action=ALLOW\n"
			   "action=DENY op=EXECVE digest=" D2 " role=MAIN\n"
			   "op=EXECVE role=MAIN digest=" D2 " action=ALLOW\n" /* conflicts: deny wins */
			   "op=EXECVE role=SCRIPT digest=" D2 " action=ALLOW\n"
			   "op=MPROTECT_EXEC role=ANON digest=" D1 " action=ALLOW   # JIT of program D1\n";

static void compile_text(const char *text, size_t len, uint8_t **table, size_t *tlen)
{
	struct uie_lang_policy p;
	struct uie_lang_err err;
	int r = uie_lang_parse(text, len, &p, &err);

	if (r != UIE_OK)
		fail_msg("%u:%u: %s", err.line, err.col, err.msg);
	assert_int_equal(uie_lang_compile_alloc(&p, table, tlen), UIE_OK);
	uie_lang_policy_fini(&p);
}

static char *show(const uint8_t *table, size_t tlen, size_t *len)
{
	struct uie_policy pol;
	char *text = NULL;
	FILE *f = open_memstream(&text, len);

	assert_non_null(f);
	assert_int_equal(uie_policy_load(table, tlen, &pol), UIE_OK);
	assert_int_equal(uie_lang_print(f, &pol, "shown"), UIE_OK);
	fclose(f);
	return text;
}

/* pol's decision for (event, role, digest). */
static uint8_t decision(const struct uie_policy *pol, uint8_t event, uint8_t role, const uint8_t *d)
{
	uint8_t dec;
	uint16_t reason;

	uie_policy_lookup(pol, event, role, d, &dec, &reason);
	return dec;
}

/* The table shown as text compiles again to the same bytes. */
static void check_shown_compiles_back(const uint8_t *table, size_t tlen)
{
	uint8_t *again;
	size_t alen, slen;
	char *text = show(table, tlen, &slen);

	compile_text(text, slen, &again, &alen);
	assert_int_equal(alen, tlen);
	assert_memory_equal(again, table, tlen);
	free(text);
	free(again);
}

static void test_round_trip(void **state)
{
	uint8_t *t1;
	size_t l1;
	struct uie_policy pol;
	uint8_t dec;
	uint16_t reason;
	uint8_t d2[32];

	(void)state;
	compile_text(good, sizeof(good) - 1, &t1, &l1);
	assert_int_equal(uie_policy_load(t1, l1, &pol), UIE_OK);
	assert_int_equal(pol.nrules, 6);
	assert_int_equal(pol.mode, UIE_MODE_ENFORCE);
	assert_int_equal(pol.default_action, UIE_DENY);
	memset(d2, 0x22, 32);
	uie_policy_lookup(&pol, UIE_EV_EXECVE, UIE_ROLE_MAIN, d2, &dec, &reason);
	assert_int_equal(dec, UIE_DENY);
	assert_int_equal(reason, UIE_R_RULE_DENY);
	assert_int_equal(decision(&pol, UIE_EV_MMAP_EXEC, UIE_ROLE_DSO, d2), UIE_ALLOW);
	check_shown_compiles_back(t1, l1);
	free(t1);
}

/* trust_fs= and require= reach the table and come back from it. */
static void test_sources(void **state)
{
	static const char text[] = HDR "DEFAULT action=DENY\ntrust_fs=virtiofs\ntrust_fs=fuse\n"
				       "require=immutable\n";
	struct uie_policy pol;
	uint8_t *t;
	size_t len, slen;
	char *shown;

	(void)state;
	compile_text(text, sizeof(text) - 1, &t, &len);
	assert_int_equal(uie_policy_load(t, len, &pol), UIE_OK);
	assert_int_equal(pol.trusted_fs, (1u << UIE_FS_VIRTIOFS) | (1u << UIE_FS_FUSE));
	assert_int_equal(pol.flags, UIE_POLICY_REQUIRE_IMMUTABLE);
	shown = show(t, len, &slen);
	assert_non_null(strstr(shown, "\nrequire=immutable\ntrust_fs=fuse\ntrust_fs=virtiofs\n"));
	free(shown);
	free(t);
	compile_text(HDR "DEFAULT action=DENY\n", sizeof(HDR "DEFAULT action=DENY\n") - 1, &t, &len);
	assert_int_equal(uie_policy_load(t, len, &pol), UIE_OK);
	assert_int_equal(pol.trusted_fs, 0);
	assert_int_equal(pol.flags, 0);
	free(t);
}

static void test_round_trip_variants(void **state)
{
	static const char *const texts[] = {
		HDR "DEFAULT action=ALLOW\nmode=MEASURE\n",
		HDR "DEFAULT action=DENY\n",
		HDR "DEFAULT action=DENY\nop=MPROTECT_EXEC role=FILE digest=sha384:"
		    "abababababababababababababababababababababababababababababababab"
		    "abababababababababababababababab action=ALLOW\n",
		HDR "DEFAULT action=DENY\nop=EXECVE role=INTERP digest=" D1 " action=ALLOW", /* no final LF */
		HDR
		"trust_fs=virtiofs\nDEFAULT action=DENY\nrequire=immutable\ntrust_fs=9p\ntrust_fs=remote\n",
	};

	(void)state;
	for (size_t i = 0; i < sizeof(texts) / sizeof(texts[0]); i++) {
		uint8_t *t;
		size_t len;

		compile_text(texts[i], strlen(texts[i]), &t, &len);
		check_shown_compiles_back(t, len);
		free(t);
	}
}

struct bad {
	const char *text;
	size_t len; /* 0: strlen */
	uint32_t line, col;
	const char *msg; /* substring of the message */
};

static const struct bad bad_inputs[] = {
	{ "", 0, 1, 1, "policy_name" },
	{ "DEFAULT action=DENY\n", 0, 1, 1, "starts with policy_name" },
	{ HDR, 0, 2, 1, "missing DEFAULT" },
	{ HDR "DEFAULT action=DENY\r\n", 0, 2, 20, "carriage return" },
	{ "policy_name=a policy_version=1.0.0\r\n", 0, 1, 35, "carriage return" },
	{ HDR "DEFAULT action=D\0NY\n", sizeof(HDR "DEFAULT action=D\0NY\n") - 1, 2, 17, "NUL" },
	{ HDR "# \xc3\xa9 is fine in a comment\nDEFAULT action=\xc3\xa9\n", 0, 3, 16, "0xc3" },
	{ HDR "DEFAULT action=DENY\x01\n", 0, 2, 20, "0x01" },
	{ "policy_name=a policy_version=65536.0.0\n", 0, 1, 30, "exceeds 65535" },
	{ "policy_name=a policy_version=1.99999999999999999999.0\n", 0, 1, 32, "exceeds 65535" },
	{ "policy_name=a policy_version=1.2\n", 0, 1, 33, "MAJOR.MINOR.REVISION" },
	{ "policy_name=a policy_version=1.2.3.4\n", 0, 1, 35, "MAJOR.MINOR.REVISION" },
	{ "policy_name=a policy_version=-1.2.3\n", 0, 1, 30, "MAJOR.MINOR.REVISION" },
	{ "policy_name=a b=1\n", 0, 1, 15, "unexpected 'b'" },
	{ "policy_name=a policy_version\n", 0, 1, 15, "unexpected 'policy_version'" },
	{ "policy_name=a policy_name=b policy_version=1.0.0\n", 0, 1, 15, "'policy_name' given twice" },
	{ "policy_name=a\n", 0, 1, 14, "missing policy_version" },
	{ "policy_version=1.0.0\n", 0, 1, 1, "missing policy_name" },
	{ "policy_name=a/b policy_version=1.0.0\n", 0, 1, 14, "policy_name may only" },
	{ HDR HDR, 0, 2, 1, "twice" },
	{ HDR "DEFAULT action=DENY\nDEFAULT action=DENY\n", 0, 3, 1,
	  "DEFAULT given twice (first on line 2)" },
	{ HDR "DEFAULT op=EXECVE action=DENY\n", 0, 2, 9, "per-operation" },
	{ HDR "DEFAULT\n", 0, 2, 8, "DEFAULT needs" },
	{ HDR "DEFAULT action=MAYBE\n", 0, 2, 16, "ALLOW or DENY" },
	{ HDR "mode=AUDIT\n", 0, 2, 6, "ENFORCE or MEASURE" },
	{ HDR "mode=ENFORCE\nmode=MEASURE\n", 0, 3, 1, "mode given twice (first on line 2)" },
	{ HDR "frobnicate=1\n", 0, 2, 1, "unknown field 'frobnicate'" },
	{ HDR "ALLOW\n", 0, 2, 1, "unknown keyword 'ALLOW'" },
	{ HDR "DEFAULT action=DENY\nop=EXECVE role=MAIN digest=" D1 " action=ALLOW color=red\n", 0, 3, 113,
	  "unknown field 'color'" },
	{ HDR "DEFAULT action=DENY\nop=EXECVE role=MAIN digest=" D1 "\n", 0, 3, 99, "missing action=" },
	{ HDR "DEFAULT action=DENY\nop=EXECVE op=EXECVE\n", 0, 3, 11, "'op=' given twice" },
	{ HDR "DEFAULT action=DENY\nop=EXECVE MAIN\n", 0, 3, 11, "unknown field 'MAIN' in a rule" },
	{ HDR "DEFAULT action=DENY\nop=EXEC role=MAIN digest=" D1 " action=ALLOW\n", 0, 3, 4, "op must be" },
	{ HDR "DEFAULT action=DENY\nop=EXECVE role=ANONYMOUS digest=" D1 " action=ALLOW\n", 0, 3, 16,
	  "role must be" },
	{ HDR "DEFAULT action=DENY\nop=EXECVE role=ANON digest=" D1 " action=ALLOW\n", 0, 3, 16,
	  "role ANON (a JIT rule) needs op=MMAP_EXEC or op=MPROTECT_EXEC" },
	{ HDR "DEFAULT action=DENY\nop=MMAP_EXEC role=SCRIPT digest=" D1 " action=ALLOW\n", 0, 3, 19,
	  "role SCRIPT needs op=EXECVE" },
	{ HDR "DEFAULT action=DENY\nop=EXECVE role=MAIN digest=md5:00 action=ALLOW\n", 0, 3, 28,
	  "unknown digest algorithm 'md5'" },
	{ HDR "DEFAULT action=DENY\nop=EXECVE role=MAIN digest=sha256:abcd action=ALLOW\n", 0, 3, 35,
	  "needs 64 hex digits, found 4" },
	{ HDR "DEFAULT action=DENY\nop=EXECVE role=MAIN digest=sha256:"
	      "111111111111111111111111111111111111111111111111111111111111111g action=ALLOW\n",
	  0, 3, 98, "not a hex digit" },
	{ HDR "DEFAULT action=DENY\nop=EXECVE role=MAIN digest=" D1 " action=ALLOW\n"
	      "op=EXECVE role=MAIN digest=" D1 " action=ALLOW\n",
	  0, 4, 1, "duplicate rule (same as line 3)" },
	{ HDR
	  "DEFAULT action=DENY\nop=EXECVE role=MAIN digest=" D1 " action=ALLOW\n"
	  "op=EXECVE role=MAIN digest=sha384:"
	  "111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111"
	  " action=ALLOW\n",
	  0, 4, 28, "differs from the one on line 3" },
	{ HDR "DEFAULT action=DENY\nop= role=MAIN\n", 0, 3, 1, "empty value" },
	{ HDR "DEFAULT action=DENY\n=x\n", 0, 3, 1, "no name" },
	{ HDR "DEFAULT action=DENY\ntrust_fs=ext4\n", 0, 3, 10, "trust_fs must be fuse" },
	{ HDR "DEFAULT action=DENY\ntrust_fs=VIRTIOFS\n", 0, 3, 10, "trust_fs must be" },
	{ HDR "DEFAULT action=DENY\ntrust_fs=local\n", 0, 3, 10, "trust_fs must be" },
	{ HDR "trust_fs=nfs\nDEFAULT action=DENY\ntrust_fs=nfs\n", 0, 4, 1,
	  "trust_fs=nfs given twice (first on line 2)" },
	{ HDR "DEFAULT action=DENY\ntrust_fs=nfs trust_fs=cifs\n", 0, 3, 14, "stands alone" },
	{ HDR "DEFAULT action=DENY\nrequire=sealed\n", 0, 3, 9, "require must be immutable" },
	{ HDR "require=immutable\nDEFAULT action=DENY\nrequire=immutable\n", 0, 4, 1,
	  "require given twice (first on line 2)" },
	{ HDR "a=1 b=2 c=3 d=4 e=5 f=6 g=7 h=8 i=9\n", 0, 2, 33, "too many fields" },
};

static void test_hostile_inputs(void **state)
{
	int failures = 0;

	(void)state;
	for (size_t i = 0; i < sizeof(bad_inputs) / sizeof(bad_inputs[0]); i++) {
		const struct bad *b = &bad_inputs[i];
		size_t len = b->len ? b->len : strlen(b->text);
		struct uie_lang_policy p;
		struct uie_lang_err err;
		int r = uie_lang_parse(b->text, len, &p, &err);

		if (r != UIE_E_FORMAT || err.line != b->line || err.col != b->col ||
		    !strstr(err.msg, b->msg)) {
			print_error("case %zu: r=%d at %u:%u '%s', expected %u:%u '%s'\n", i, r, err.line,
				    err.col, err.msg, b->line, b->col, b->msg);
			failures++;
		}
		assert_null(p.rules);
		assert_int_equal(p.nrules, 0);
	}
	assert_int_equal(failures, 0);
}

static void test_long_line(void **state)
{
	size_t n = UIE_LANG_MAX_LINE + 10;
	char *t = malloc(n + 1);
	struct uie_lang_policy p;
	struct uie_lang_err err;

	(void)state;
	memset(t, '#', n);
	t[n] = '\n';
	assert_int_equal(uie_lang_parse(t, n + 1, &p, &err), UIE_E_FORMAT);
	assert_int_equal(err.line, 1);
	assert_int_equal(err.col, UIE_LANG_MAX_LINE + 1);
	free(t);
}

static void test_manifest(void **state)
{
	static const char man[] = UIE_MANIFEST_BANNER
		"\n"
		"role=MAIN digest=" D1 " path=/usr/bin/a\n"
		"role=MAIN digest=" D1 " path=/usr/bin/hardlink%20to%20a\n" /* same object twice */
		"role=DSO digest=" D2 " path=/lib/libx.so\n"
		"role=SCRIPT digest=" D2 " path=/usr/bin/ldd\n"
		"role=JIT digest=" D1 " path=/usr/bin/a\n"
		"# 5 objects\n";
	struct uie_lang_policy p;
	struct uie_lang_err err;
	struct uie_policy pol;
	uint8_t *t, d[32];
	size_t tl;

	(void)state;
	assert_true(uie_lang_is_manifest(man, sizeof(man) - 1));
	assert_false(uie_lang_is_manifest(good, sizeof(good) - 1));
	assert_int_equal(uie_lang_parse_manifest(man, sizeof(man) - 1, UIE_MODE_ENFORCE, UIE_DENY, &p, &err),
			 UIE_OK);
	/* D1: EXECVE MAIN/INTERP, MMAP_EXEC MAIN, MPROTECT_EXEC MAIN, and the JIT pair (MMAP_EXEC,
	 * MPROTECT_EXEC)/ANON; D2: (MMAP_EXEC, MPROTECT_EXEC)/DSO, EXECVE/SCRIPT. */
	assert_int_equal(p.nrules, 9);
	assert_int_equal(uie_lang_compile_alloc(&p, &t, &tl), UIE_OK);
	assert_int_equal(uie_policy_load(t, tl, &pol), UIE_OK);
	memset(d, 0x22, 32);
	assert_int_equal(decision(&pol, UIE_EV_MPROTECT_EXEC, UIE_ROLE_DSO, d), UIE_ALLOW);
	assert_int_equal(decision(&pol, UIE_EV_EXECVE, UIE_ROLE_SCRIPT, d), UIE_ALLOW);
	assert_int_equal(decision(&pol, UIE_EV_EXECVE, UIE_ROLE_MAIN, d), UIE_DENY);
	memset(d, 0x11, 32);
	for (uint8_t ev = UIE_EV_MMAP_EXEC; ev <= UIE_EV_MPROTECT_EXEC; ev++) {
		assert_int_equal(decision(&pol, ev, UIE_ROLE_MAIN, d), UIE_ALLOW);
		assert_int_equal(decision(&pol, ev, UIE_ROLE_ANON, d), UIE_ALLOW);
		assert_int_equal(decision(&pol, ev, UIE_ROLE_DSO, d), UIE_DENY);
	}
	assert_int_equal(decision(&pol, UIE_EV_EXECVE, UIE_ROLE_INTERP, d), UIE_ALLOW);
	free(t);
	uie_lang_policy_fini(&p);
	assert_int_equal(uie_lang_parse_manifest(man, 10, UIE_MODE_ENFORCE, UIE_DENY, &p, &err),
			 UIE_E_FORMAT);
	{
		static const char bad[] = UIE_MANIFEST_BANNER "\nrole=MAIN digest=" D1 "\n";

		assert_int_equal(
			uie_lang_parse_manifest(bad, sizeof(bad) - 1, UIE_MODE_ENFORCE, UIE_DENY, &p, &err),
			UIE_E_FORMAT);
		assert_int_equal(err.line, 2);
		assert_non_null(strstr(err.msg, "path="));
	}
}

TC_MAIN(NULL, NULL, cmocka_unit_test(test_round_trip), cmocka_unit_test(test_round_trip_variants),
	cmocka_unit_test(test_sources), cmocka_unit_test(test_hostile_inputs),
	cmocka_unit_test(test_long_line), cmocka_unit_test(test_manifest))
