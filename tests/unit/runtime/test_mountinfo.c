/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Reading mountinfo lines (guest/mountinfo.c) and an overlay mount's layer
 * directories from its super options (guest/layer.c), on lines as Linux
 * writes them: optional fields before "-", \ooo escapes, lowerdir lists
 * with escaped colons and data-only layers, the lowerdir+= form.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "layer.h"
#include "mountinfo.h"
#include "tcommon.h"
#include "uie/err.h"

static const char ovl_line[] = "47 27 0:40 /sub /tmp/a\\040b/m rw,relatime shared:12 master:3 - overlay ovl "
			       "rw,lowerdir=/l1:/l\\134\\134\\134:x::/data,upperdir=/u,workdir=/w,xino=off";

/* Field f of line, decoded, into out. */
static int field(const char *line, enum uie_mi_field f, char *out, size_t cap)
{
	const char *p;
	size_t n;
	int r = uie_guest_mountinfo_field(line, f, &p, &n);

	return r == UIE_OK ? uie_guest_mountinfo_unescape(p, n, out, cap) : r;
}

static void test_fields(void **state)
{
	char out[128];

	(void)state;
	assert_int_equal(field(ovl_line, UIE_MI_ID, out, sizeof(out)), UIE_OK);
	assert_string_equal(out, "47");
	assert_int_equal(field(ovl_line, UIE_MI_ROOT, out, sizeof(out)), UIE_OK);
	assert_string_equal(out, "/sub");
	assert_int_equal(field(ovl_line, UIE_MI_POINT, out, sizeof(out)), UIE_OK);
	assert_string_equal(out, "/tmp/a b/m");
	assert_int_equal(field(ovl_line, UIE_MI_OPTIONS, out, sizeof(out)), UIE_OK);
	assert_string_equal(out, "rw,relatime");
	assert_int_equal(field(ovl_line, UIE_MI_TYPE, out, sizeof(out)), UIE_OK); /* after "-" */
	assert_string_equal(out, "overlay");
	assert_int_equal(field(ovl_line, UIE_MI_SOURCE, out, sizeof(out)), UIE_OK);
	assert_string_equal(out, "ovl");
	/* No optional fields. */
	assert_int_equal(field("22 1 8:1 / / rw - ext4 /dev/sda1 rw", UIE_MI_SUPER, out, sizeof(out)),
			 UIE_OK);
	assert_string_equal(out, "rw");
	/* Lines without the field, or too long for out. */
	assert_int_equal(field("22 1 8:1 / / rw", UIE_MI_TYPE, out, sizeof(out)), UIE_E_FORMAT);
	assert_int_equal(field("22 1 8:1 / / rw ext4", UIE_MI_TYPE, out, sizeof(out)), UIE_E_FORMAT);
	assert_int_equal(field("", UIE_MI_ID, out, sizeof(out)), UIE_E_FORMAT);
	assert_int_equal(field(ovl_line, UIE_MI_POINT, out, 5), UIE_E_LIMIT);
	assert_string_equal(out, "");
}

static void test_unescape(void **state)
{
	char out[16];

	(void)state;
	assert_int_equal(uie_guest_mountinfo_unescape("a\\011b\\134", 10, out, sizeof(out)), UIE_OK);
	assert_string_equal(out, "a\tb\\");
	/* Not an escape: kept as written (a backslash, digits beyond \377, a cut one). */
	assert_int_equal(uie_guest_mountinfo_unescape("\\9\\400\\13", 9, out, sizeof(out)), UIE_OK);
	assert_string_equal(out, "\\9\\400\\13");
	assert_int_equal(uie_guest_mountinfo_unescape("abcd", 4, out, 4), UIE_E_LIMIT);
}

/* The layers of super options opts, checked against want[0..n). */
static void expect_layers(const char *opts, const char *const *want, unsigned n)
{
	const char *dir[8];
	char out[256];
	unsigned got = 99;

	assert_int_equal(uie_guest_overlay_layers(opts, strlen(opts), out, sizeof(out), dir, 8, &got),
			 UIE_OK);
	assert_int_equal(got, n);
	for (unsigned i = 0; i < n; i++) {
		assert_true(dir[i] >= out && dir[i] < out + sizeof(out));
		assert_string_equal(dir[i], want[i]);
	}
}

static void test_layers(void **state)
{
	static const char *const main_form[] = { "/u", "/l1", "/l\\:x" };
	static const char *const plus_form[] = { "/up per", "/a:b", "/c" };
	static const char *const lower_only[] = { "/a", "/b" };
	const char *p, *dir[2];
	char out[64];
	size_t n;
	unsigned got;

	(void)state;
	/* Upper first; in a lowerdir list a backslash escapes the next character (here a backslash
	 * and a colon of a path); data-only layers left out. */
	assert_int_equal(uie_guest_mountinfo_field(ovl_line, UIE_MI_SUPER, &p, &n), UIE_OK);
	{
		char opts[256];

		memcpy(opts, p, n);
		opts[n] = '\0';
		expect_layers(opts, main_form, 3);
	}
	/* lowerdir+= takes each path whole; an escaped comma does not split the options. */
	expect_layers("rw,lowerdir+=/a:b,lowerdir+=/c,datadir+=/d,upperdir=/up\\040per,workdir=/w", plus_form,
		      3);
	expect_layers("ro,lowerdir=/a:/b", lower_only, 2);
	expect_layers("ro,lowerdir=/a::/d,redirect_dir=on", lower_only, 1);
	/* None, too many, no room. */
	assert_int_equal(uie_guest_overlay_layers("rw,xino=off", 11, out, sizeof(out), dir, 2, &got),
			 UIE_E_FORMAT);
	assert_int_equal(got, 0);
	assert_int_equal(uie_guest_overlay_layers("lowerdir=/a:/b:/c", 17, out, sizeof(out), dir, 2, &got),
			 UIE_E_LIMIT);
	assert_int_equal(uie_guest_overlay_layers("lowerdir=/aaaaaaaa", 18, out, 5, dir, 2, &got),
			 UIE_E_LIMIT);
}

TC_MAIN(NULL, NULL, cmocka_unit_test(test_fields), cmocka_unit_test(test_unescape),
	cmocka_unit_test(test_layers))
