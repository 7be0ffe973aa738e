/* SPDX-License-Identifier: Apache-2.0 */
/* lib/host opts.c: every kind of row, bad values, operand counts, --help and --version. */
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "opts.h"

/* Where the usage was printed last: 1 stdout, 2 stderr, 0 not at all. */
static int usage_to;

static void usage(FILE *f)
{
	usage_to = f == stdout ? 1 : 2;
}

struct args {
	const char *name, *list[2];
	unsigned nlist;
	uint32_t small;
	uint64_t big;
	int fd, verbose;
	bool on, off;
	const char *called;
};

static int call(void *ctx, const char *arg)
{
	struct args *a = ctx;

	if (!strcmp(arg, "bad"))
		return 1; /* a callback's own exit status */
	a->called = arg;
	return UIE_OPTS_GO;
}

/* Parses the words (a NULL-ended list after the program name) into *a. */
static int parse(struct args *a, bool in_order, int max_operands, ...)
{
	const struct uie_opt t[] = {
		UIE_OPT_STRING("name", 'n', &a->name),
		UIE_OPT_LIST("item", 0, a->list, &a->nlist, 2),
		UIE_OPT_NUMBER("small", 0, a->small, 2, 100000, NULL),
		UIE_OPT_LIMIT("big", a->big, 4096, UINT64_MAX),
		UIE_OPT_NUMBER("fd", 0, a->fd, 3, 1024, "needs a descriptor"),
		UIE_OPT_FLAG("on", 0, UIE_OPTK_SET, &a->on),
		UIE_OPT_FLAG("no-off", 'O', UIE_OPTK_CLEAR, &a->off),
		UIE_OPT_COUNT("verbose", 'v', &a->verbose),
		UIE_OPT_CALL("call", 0, call, a),
		UIE_OPT_HELP,
		UIE_OPT_VERSION,
		UIE_OPT_END,
	};
	const struct uie_opts spec = { .prog = "test",
				       .opt = t,
				       .usage = usage,
				       .in_order = in_order,
				       .max_operands = max_operands,
				       .version = "1.2.3" };
	char *argv[32] = { "test" };
	int argc = 1;
	va_list ap;

	va_start(ap, max_operands);
	while (argc < 31 && (argv[argc] = va_arg(ap, char *)))
		argc++;
	va_end(ap);
	*a = (struct args){ .fd = -1, .off = true };
	usage_to = 0;
	return uie_opts_parse(&spec, argc, argv);
}

static void test_rows(void **state)
{
	struct args a;

	(void)state;
	assert_int_equal(parse(&a, false, 1, "-n", "x", "--item", "i1", "--item=i2", "--small", "65536",
			       "--big", "0", "--fd", "7", "--on", "-O", "-vv", "--verbose", "--call", "c",
			       "operand", NULL),
			 UIE_OPTS_GO);
	assert_string_equal(a.name, "x");
	assert_int_equal(a.nlist, 2);
	assert_string_equal(a.list[1], "i2");
	assert_int_equal(a.small, 65536);
	assert_int_equal(a.big, 0); /* a limit's "none" */
	assert_int_equal(a.fd, 7);
	assert_true(a.on);
	assert_false(a.off);
	assert_int_equal(a.verbose, 3);
	assert_string_equal(a.called, "c");
	assert_int_equal(optind, 18); /* the operand, moved behind the options */
	assert_int_equal(usage_to, 0);
	/* Unique abbreviations, as getopt_long takes them. */
	assert_int_equal(parse(&a, false, 0, "--sm", "9", NULL), UIE_OPTS_GO);
	assert_int_equal(a.small, 9);
}

static void test_bad_values(void **state)
{
	struct args a;

	(void)state;
	assert_int_equal(parse(&a, false, 0, "--small", "1", NULL), UIE_OPTS_EXIT_USAGE);
	assert_int_equal(parse(&a, false, 0, "--small", "100001", NULL), UIE_OPTS_EXIT_USAGE);
	assert_int_equal(parse(&a, false, 0, "--small", "12abc", NULL), UIE_OPTS_EXIT_USAGE);
	assert_int_equal(parse(&a, false, 0, "--small", "-3", NULL), UIE_OPTS_EXIT_USAGE);
	assert_int_equal(parse(&a, false, 0, "--big", "4095", NULL), UIE_OPTS_EXIT_USAGE);
	assert_int_equal(parse(&a, false, 0, "--fd", "2", NULL), UIE_OPTS_EXIT_USAGE);
	assert_int_equal(a.fd, -1); /* a bad value is not stored */
	assert_int_equal(parse(&a, false, 0, "--item", "1", "--item", "2", "--item", "3", NULL),
			 UIE_OPTS_EXIT_USAGE);
	assert_int_equal(a.nlist, 2);
	assert_int_equal(parse(&a, false, 0, "--call", "bad", NULL), 1);
	/* A value's error says what is wrong; only a bad command line shows the usage. */
	assert_int_equal(usage_to, 0);
	assert_int_equal(parse(&a, false, 0, "--unknown", NULL), UIE_OPTS_EXIT_USAGE);
	assert_int_equal(usage_to, 2);
	assert_int_equal(parse(&a, false, 0, "--name", NULL), UIE_OPTS_EXIT_USAGE);
	assert_int_equal(usage_to, 2);
	assert_int_equal(parse(&a, false, 0, "--on=1", NULL), UIE_OPTS_EXIT_USAGE);
}

static void test_operands(void **state)
{
	struct args a;

	(void)state;
	assert_int_equal(parse(&a, false, 0, "x", NULL), UIE_OPTS_EXIT_USAGE);
	assert_int_equal(usage_to, 2);
	assert_int_equal(parse(&a, false, 2, "x", "y", NULL), UIE_OPTS_GO);
	assert_int_equal(parse(&a, false, 2, "x", "y", "z", NULL), UIE_OPTS_EXIT_USAGE);
	/* Options after an operand are options, unless parsing stops at the first operand. */
	assert_int_equal(parse(&a, false, 1, "prog", "--on", NULL), UIE_OPTS_GO);
	assert_true(a.on);
	assert_int_equal(parse(&a, true, UIE_OPTS_ANY, "prog", "--on", NULL), UIE_OPTS_GO);
	assert_false(a.on);
	assert_int_equal(optind, 1);
	assert_int_equal(parse(&a, false, 1, "--", "--on", NULL), UIE_OPTS_GO);
	assert_false(a.on);
}

static void test_help_version(void **state)
{
	struct args a;

	(void)state;
	/* Both end parsing at once, whatever follows. */
	assert_int_equal(parse(&a, false, 0, "--help", "--unknown", NULL), UIE_OPTS_EXIT_OK);
	assert_int_equal(usage_to, 1);
	assert_int_equal(parse(&a, false, 0, "-h", NULL), UIE_OPTS_EXIT_OK);
	assert_int_equal(usage_to, 1);
	assert_int_equal(parse(&a, false, 0, "--version", "x", NULL), UIE_OPTS_EXIT_OK);
	assert_int_equal(usage_to, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rows),
		cmocka_unit_test(test_bad_values),
		cmocka_unit_test(test_operands),
		cmocka_unit_test(test_help_version),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
