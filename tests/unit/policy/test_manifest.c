/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Manifests as data (tools/policy/manifest.c): the text and JSON forms
 * read to the same entries, paths decode, the text form compiles, and
 * hostile manifests are refused with a reason and leave nothing behind.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "uie/err.h"

#include "lang.h"
#include "manifest.h"
#include "tcommon.h"

#define H1 "1111111111111111111111111111111111111111111111111111111111111111"
#define H2 "2222222222222222222222222222222222222222222222222222222222222222"

static const char text[] = UIE_MANIFEST_BANNER "\n"
					       "role=MAIN digest=sha256:" H1 " path=/usr/bin/a%20b\n"
					       "role=SCRIPT digest=sha256:" H2 " path=/usr/bin/ldd\n"
					       "role=JIT digest=sha256:" H1 " path=/usr/bin/a%20b\n"
					       "# 3 objects\n";
static const char json[] =
	"{\"manifest\": \"uie reference manifest v1\", \"entries\": [\n"
	"{\"role\": \"MAIN\", \"digest\": \"sha256:" H1 "\", \"path\": \"/usr/bin/a%20b\"},\n"
	"{\"role\": \"SCRIPT\", \"digest\": \"sha256:" H2 "\", \"path\": \"/usr/bin/ldd\"},\n"
	"{\"role\": \"JIT\", \"digest\": \"sha256:" H1 "\", \"path\": \"/usr/bin/a%20b\"}]}\n";

static void check_entries(const struct uie_manifest *m)
{
	assert_int_equal(m->n, 3);
	assert_string_equal(m->e[0].role, "MAIN");
	assert_string_equal(m->e[0].path, "/usr/bin/a b");
	assert_string_equal(m->e[0].path_enc, "/usr/bin/a%20b");
	assert_int_equal(m->e[0].digest.alg, UIE_HASH_SHA256);
	assert_int_equal(m->e[0].digest.len, 32);
	assert_int_equal(m->e[1].digest.bytes[0], 0x22);
	assert_string_equal(m->e[2].role, "JIT");
}

static void test_both_forms(void **state)
{
	struct uie_manifest t = { 0 }, j = { 0 };
	struct uie_lang_policy p;
	struct uie_lang_err err;
	char why[128], *out;
	size_t len, count;

	(void)state;
	assert_int_equal(uie_manifest_read(text, sizeof(text) - 1, &t, why, sizeof(why)), UIE_OK);
	check_entries(&t);
	assert_true(uie_manifest_is_json(json, sizeof(json) - 1));
	assert_false(uie_manifest_is_json(text, sizeof(text) - 1));
	assert_int_equal(uie_manifest_read(json, sizeof(json) - 1, &j, why, sizeof(why)), UIE_OK);
	check_entries(&j);
	/* The JSON form as text compiles like the text form: 4 + 1 + 2 rules. */
	assert_int_equal(uie_manifest_text_alloc(&j, &out, &len), UIE_OK);
	assert_int_equal(uie_lang_parse_manifest(out, len, UIE_MODE_ENFORCE, UIE_DENY, &p, &err), UIE_OK);
	assert_int_equal(p.nrules, 7);
	uie_lang_policy_fini(&p);
	free(out);
	/* Appending a second manifest, then finding by digest after sorting. */
	assert_int_equal(uie_manifest_read(text, sizeof(text) - 1, &j, why, sizeof(why)), UIE_OK);
	assert_int_equal(j.n, 6);
	uie_manifest_sort(&j);
	assert_int_equal(uie_manifest_find(&j, &t.e[0].digest, &count), 0);
	assert_int_equal(count, 4);
	assert_int_equal(uie_manifest_find(&j, &t.e[1].digest, &count), 4);
	assert_int_equal(count, 2);
	t.e[1].digest.bytes[5] ^= 1;
	assert_int_equal(uie_manifest_find(&j, &t.e[1].digest, &count), -1);
	assert_int_equal(count, 0);
	uie_manifest_fini(&t);
	uie_manifest_fini(&j);
	uie_manifest_fini(NULL);
}

/* The compiler's reading: each field once, and only the manifest's three; the error names the token. */
static void test_fields(void **state)
{
	static const struct {
		const char *text, *msg;
	} bad[] = {
		{ UIE_MANIFEST_BANNER "\nrole=MAIN digest=sha256:" H1 " path=/x role=DSO\n",
		  "'role=' given twice" },
		{ UIE_MANIFEST_BANNER "\nrole=MAIN colour=red digest=sha256:" H1 " path=/x\n",
		  "unknown manifest field 'colour'" },
		{ UIE_MANIFEST_BANNER "\nrole=MAIN digest=sha256:" H1 " path=/x MAIN\n",
		  "unknown manifest field 'MAIN'" },
	};
	struct uie_lang_policy p;
	struct uie_lang_err err;

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(uie_lang_parse_manifest(bad[i].text, strlen(bad[i].text), UIE_MODE_ENFORCE,
							 UIE_DENY, &p, &err),
				 UIE_E_FORMAT);
		if (!strstr(err.msg, bad[i].msg))
			fail_msg("case %zu: '%s' does not say '%s'", i, err.msg, bad[i].msg);
		assert_int_equal(err.line, 2);
	}
}

static void test_hostile(void **state)
{
	static const char *const bad[] = {
		"role=MAIN digest=sha256:" H1 " path=/x\n", /* no banner */
		UIE_MANIFEST_BANNER "\nrole=KING digest=sha256:" H1 " path=/x\n",
		UIE_MANIFEST_BANNER "\nrole=MAIN digest=sha256:" H1 "\n",
		UIE_MANIFEST_BANNER "\nrole=MAIN digest=md5:00 path=/x\n",
		UIE_MANIFEST_BANNER "\nrole=MAIN digest=sha256:abcd path=/x\n",
		UIE_MANIFEST_BANNER "\nrole=MAIN digest=sha256:" H1 " path=/x%2\n",
		UIE_MANIFEST_BANNER "\nrole=MAIN digest=sha256:" H1 " path=/x%00y\n",
		UIE_MANIFEST_BANNER "\nrole=MAIN digest=sha256:" H1 " path=/x%zz\n",
		UIE_MANIFEST_BANNER "\nrole=MAIN digest=sha256:" H1 " path=/x\r\n",
		/* what the compiler refuses (lang_manifest.c) is refused here too */
		UIE_MANIFEST_BANNER "\nrole=MAIN digest=sha256:" H1 " path=/x role=DSO\n",
		UIE_MANIFEST_BANNER "\nrole=MAIN digest=sha256:" H1 " path=/x size=3\n",
		"{\"manifest\": \"something else\", \"entries\": []}",
		"{\"manifest\": \"uie reference manifest v1\", \"entries\": {}}",
		"{\"manifest\": \"uie reference manifest v1\", \"entries\": [{\"role\": \"MAIN\"}]}",
		"{\"manifest\": \"uie reference manifest v1\", \"entries\": [{\"role\": \"MAIN\", "
		"\"digest\": \"sha256:" H1 "\", \"path\": \"/a b\"}]}",
		"{\"manifest\": \"uie reference manifest v1\", \"entries\": [",
	};
	struct uie_manifest m = { 0 };
	char why[128];

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(uie_manifest_read(bad[i], strlen(bad[i]), &m, why, sizeof(why)),
				 UIE_E_FORMAT);
		assert_true(why[0] != '\0');
		assert_int_equal(m.n, 0);
		assert_null(m.e);
	}
	assert_int_equal(uie_manifest_read(UIE_MANIFEST_BANNER "\n\0", sizeof(UIE_MANIFEST_BANNER) + 1, &m,
					   why, sizeof(why)),
			 UIE_E_FORMAT);
	{ /* an entry too long for a manifest line */
		size_t n = UIE_LANG_MAX_LINE + 100;
		char *t = malloc(n + 200);

		assert_non_null(t);
		snprintf(t, 200, "%s\nrole=MAIN digest=sha256:%s path=/", UIE_MANIFEST_BANNER, H1);
		size_t pre = strlen(t);

		memset(t + pre, 'a', n);
		t[pre + n] = '\0';
		assert_int_equal(uie_manifest_read(t, strlen(t), &m, why, sizeof(why)), UIE_E_FORMAT);
		assert_non_null(strstr(why, "longer than"));
		free(t);
	}
}

TC_MAIN(NULL, NULL, cmocka_unit_test(test_both_forms), cmocka_unit_test(test_hostile),
	cmocka_unit_test(test_fields))
