/* SPDX-License-Identifier: Apache-2.0 */
/*
 * lib/host hex.c and fileio.c against real files, pipes and directories;
 * opts.c with every kind of row, bad values, operand counts, --help and --version.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "fileio.h"
#include "hex.h"
#include "opts.h"
#include "tcommon.h"
#include "uie/err.h"

static void test_hex_decode(void **state)
{
	uint8_t out[4];

	(void)state;
	assert_int_equal(uie_hex_decode("00aBcdFf", 8, out, 4), UIE_OK);
	assert_memory_equal(out, "\x00\xab\xcd\xff", 4);
	assert_int_equal(uie_hex_decode("00abcdff", 6, out, 3), UIE_OK); /* need not end there */
	assert_int_equal(uie_hex_decode("00abcd", 6, out, 4), UIE_E_FORMAT);
	assert_int_equal(uie_hex_decode("00abcdg0", 8, out, 4), UIE_E_FORMAT);
	assert_int_equal(uie_hex_decode(" 0abcdf0", 8, out, 4), UIE_E_FORMAT);
	assert_int_equal(uie_hex_decode(NULL, 0, out, 0), UIE_E_FORMAT);
	assert_int_equal(uie_hex_nibble('F'), 15);
	assert_int_equal(uie_hex_nibble('g'), -1);
}

static void test_hex_decode_upto(void **state)
{
	uint8_t out[3];
	size_t n = 99;

	(void)state;
	assert_int_equal(uie_hex_decode_upto("0102", out, 3, &n), UIE_OK);
	assert_int_equal(n, 2);
	assert_int_equal(uie_hex_decode_upto("010203", out, 3, &n), UIE_OK);
	assert_int_equal(n, 3);
	assert_int_equal(uie_hex_decode_upto("01020304", out, 3, &n), UIE_E_LIMIT);
	assert_int_equal(n, 0);
	assert_int_equal(uie_hex_decode_upto("", out, 3, &n), UIE_E_FORMAT);
	assert_int_equal(uie_hex_decode_upto("010", out, 3, &n), UIE_E_FORMAT);
	assert_int_equal(uie_hex_decode_upto("01x2", out, 3, &n), UIE_E_FORMAT);
	assert_int_equal(n, 0);
}

static void test_hex_encode(void **state)
{
	char s[9];

	(void)state;
	memset(s, 'x', sizeof(s));
	uie_hex_encode(s, (const uint8_t *)"\x00\xab\xcd\xff", 4);
	assert_string_equal(s, "00abcdff");
	uie_hex_encode(s, NULL, 0);
	assert_string_equal(s, "");
}

static void test_parse_u64(void **state)
{
	uint64_t v = 7;

	(void)state;
	assert_int_equal(uie_parse_u64("0", &v), UIE_OK);
	assert_true(v == 0);
	assert_int_equal(uie_parse_u64("18446744073709551615", &v), UIE_OK);
	assert_true(v == UINT64_MAX);
	assert_int_equal(uie_parse_u64("18446744073709551616", &v), UIE_E_OVERFLOW);
	assert_true(v == 0);
	static const char *bad[] = { "", "+1", "-1", " 1", "1 ", "0x10", "12a" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		v = 7;
		assert_int_equal(uie_parse_u64(bad[i], &v), UIE_E_FORMAT);
		assert_true(v == 0);
	}
}

static char dir[] = "/tmp/uie-host-io-XXXXXX";

static int setup(void **state)
{
	(void)state;
	tc_mkdtemp(dir);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	tc_rmtree(dir);
	return 0;
}

static void test_file_roundtrip(void **state)
{
	char path[128];
	uint8_t *buf = (uint8_t *)"junk";
	size_t len = 9;
	struct stat st;

	(void)state;
	snprintf(path, sizeof(path), "%s/f", dir);
	assert_int_equal(uie_file_write_atomic(path, "hello", 5, 0600), UIE_OK);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0600);
	assert_int_equal(uie_file_read_alloc(path, 5, &buf, &len), UIE_OK);
	assert_int_equal(len, 5);
	assert_memory_equal(buf, "hello", 5);
	free(buf);
	/* Replacing keeps the new mode and content only. */
	assert_int_equal(uie_file_write_atomic(path, "", 0, 0644), UIE_OK);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0644);
	assert_int_equal(uie_file_read_alloc(path, 5, &buf, &len), UIE_OK);
	assert_int_equal(len, 0);
	free(buf);
	assert_int_equal(uie_file_write_atomic(path, "hello!", 6, 0644), UIE_OK);
	assert_int_equal(uie_file_read_alloc(path, 5, &buf, &len), UIE_E_LIMIT);
	assert_null(buf);
	assert_int_equal(len, 0);
}

static void test_file_errors(void **state)
{
	char path[128];
	uint8_t *buf;
	size_t len;

	(void)state;
	/* Each error leaves errno naming the cause, which uie_file_err_str prints. */
	assert_int_equal(uie_file_read_alloc(dir, 1 << 20, &buf, &len), UIE_E_IO); /* a directory */
	assert_int_equal(errno, EISDIR);
	assert_string_equal(uie_file_err_str(UIE_E_IO), strerror(EISDIR));
	assert_null(buf);
	assert_int_equal(uie_file_read_alloc("/dev/null", 1 << 20, &buf, &len), UIE_E_IO);
	assert_int_equal(errno, EINVAL);
	snprintf(path, sizeof(path), "%s/missing", dir);
	assert_int_equal(uie_file_read_alloc(path, 1 << 20, &buf, &len), UIE_E_NOTFOUND);
	assert_int_equal(errno, ENOENT);
	snprintf(path, sizeof(path), "%s/no/such/dir", dir);
	assert_int_equal(uie_file_write_atomic(path, "x", 1, 0644), UIE_E_NOTFOUND);
	assert_int_equal(errno, ENOENT);
	/* A failed replacement leaves the directory as it was. */
	snprintf(path, sizeof(path), "%s/d", dir);
	assert_int_equal(mkdir(path, 0755), 0);
	assert_int_equal(uie_file_write_atomic(path, "x", 1, 0644), UIE_E_IO);
	assert_int_equal(errno, EISDIR);
	snprintf(path, sizeof(path), "ls -A '%s' | grep -q tmp", dir);
	assert_int_not_equal(system(path), 0);
}

static void test_fd_read(void **state)
{
	int p[2];
	uint8_t *buf;
	size_t len;

	(void)state;
	assert_int_equal(pipe(p), 0);
	assert_int_equal(uie_fd_write_all(p[1], "abcdef", 6), UIE_OK);
	close(p[1]);
	assert_int_equal(uie_fd_read_alloc(p[0], 6, &buf, &len), UIE_OK);
	assert_int_equal(len, 6);
	assert_memory_equal(buf, "abcdef", 6);
	free(buf);
	close(p[0]);

	assert_int_equal(pipe(p), 0);
	assert_int_equal(uie_fd_write_all(p[1], "abcdefg", 7), UIE_OK);
	close(p[1]);
	assert_int_equal(uie_fd_read_alloc(p[0], 6, &buf, &len), UIE_E_LIMIT);
	assert_null(buf);
	close(p[0]);
	assert_int_equal(uie_fd_read_alloc(-1, 6, &buf, &len), UIE_E_INVAL);
	assert_int_equal(uie_fd_write_all(-1, "x", 1), UIE_E_IO);
}

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

/*
 * Parses the words (a NULL-ended list after the program name) into *a by
 * spec, whose in_order and operand counts the caller sets.
 */
static int parse(struct args *a, struct uie_opts spec, ...)
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
		UIE_OPT_VERSION,
		UIE_OPT_END,
	};
	char *argv[32] = { "test" };
	int argc = 1;
	va_list ap;

	spec.prog = "test";
	spec.opt = t;
	spec.usage = usage;
	spec.version = "1.2.3";
	va_start(ap, spec);
	while (argc < 31 && (argv[argc] = va_arg(ap, char *)))
		argc++;
	va_end(ap);
	*a = (struct args){ .fd = -1, .off = true };
	usage_to = 0;
	return uie_opts_parse(&spec, argc, argv);
}

/* How many operands, or a program and its arguments. */
#define NONE ((struct uie_opts){ 0 })
#define ONE ((struct uie_opts){ .max_operands = 1 })
#define TWO ((struct uie_opts){ .max_operands = 2 })
#define PROGRAM ((struct uie_opts){ .in_order = true, .min_operands = 1, .max_operands = UIE_OPTS_ANY })

static void test_opts_rows(void **state)
{
	struct args a;

	(void)state;
	assert_int_equal(parse(&a, ONE, "-n", "x", "--item", "i1", "--item=i2", "--small", "65536", "--big",
			       "0", "--fd", "7", "--on", "-O", "-vv", "--verbose", "--call", "c", "operand",
			       NULL),
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
	assert_int_equal(parse(&a, NONE, "--sm", "9", NULL), UIE_OPTS_GO);
	assert_int_equal(a.small, 9);
}

static void test_opts_bad_values(void **state)
{
	struct args a;

	(void)state;
	assert_int_equal(parse(&a, NONE, "--small", "1", NULL), UIE_OPTS_EXIT_USAGE);
	assert_int_equal(parse(&a, NONE, "--small", "100001", NULL), UIE_OPTS_EXIT_USAGE);
	assert_int_equal(parse(&a, NONE, "--small", "12abc", NULL), UIE_OPTS_EXIT_USAGE);
	assert_int_equal(parse(&a, NONE, "--small", "-3", NULL), UIE_OPTS_EXIT_USAGE);
	assert_int_equal(parse(&a, NONE, "--big", "4095", NULL), UIE_OPTS_EXIT_USAGE);
	assert_int_equal(parse(&a, NONE, "--fd", "2", NULL), UIE_OPTS_EXIT_USAGE);
	assert_int_equal(a.fd, -1); /* a bad value is not stored */
	assert_int_equal(parse(&a, NONE, "--item", "1", "--item", "2", "--item", "3", NULL),
			 UIE_OPTS_EXIT_USAGE);
	assert_int_equal(a.nlist, 2);
	assert_int_equal(parse(&a, NONE, "--call", "bad", NULL), 1);
	/* A value's error says what is wrong; only a bad command line shows the usage. */
	assert_int_equal(usage_to, 0);
	assert_int_equal(parse(&a, NONE, "--unknown", NULL), UIE_OPTS_EXIT_USAGE);
	assert_int_equal(usage_to, 2);
	assert_int_equal(parse(&a, NONE, "--name", NULL), UIE_OPTS_EXIT_USAGE);
	assert_int_equal(usage_to, 2);
	assert_int_equal(parse(&a, NONE, "--on=1", NULL), UIE_OPTS_EXIT_USAGE);
}

static void test_opts_operands(void **state)
{
	struct args a;

	(void)state;
	assert_int_equal(parse(&a, NONE, "x", NULL), UIE_OPTS_EXIT_USAGE);
	assert_int_equal(usage_to, 2);
	assert_int_equal(parse(&a, TWO, "x", "y", NULL), UIE_OPTS_GO);
	assert_int_equal(parse(&a, TWO, "x", "y", "z", NULL), UIE_OPTS_EXIT_USAGE);
	/* Options after an operand are options, unless parsing stops at the first operand. */
	assert_int_equal(parse(&a, ONE, "prog", "--on", NULL), UIE_OPTS_GO);
	assert_true(a.on);
	assert_int_equal(parse(&a, PROGRAM, "prog", "--on", NULL), UIE_OPTS_GO);
	assert_false(a.on);
	assert_int_equal(optind, 1);
	assert_int_equal(parse(&a, ONE, "--", "--on", NULL), UIE_OPTS_GO);
	assert_false(a.on);
}

static void test_opts_help_version(void **state)
{
	struct args a;

	(void)state;
	/* Both end parsing at once, whatever follows; --help is no row of the table. */
	assert_int_equal(parse(&a, NONE, "--help", "--unknown", NULL), UIE_OPTS_EXIT_OK);
	assert_int_equal(usage_to, 1);
	assert_int_equal(parse(&a, NONE, "-h", NULL), UIE_OPTS_EXIT_OK);
	assert_int_equal(usage_to, 1);
	assert_int_equal(parse(&a, NONE, "--version", "x", NULL), UIE_OPTS_EXIT_OK);
	assert_int_equal(usage_to, 0);
}

/* A command with a synopsis instead of a usage function: --help prints "usage: PROG " and it. */
static void test_opts_synopsis(void **state)
{
	const struct uie_opt t[] = { UIE_OPT_END };
	const struct uie_opts spec = { .prog = "test", .opt = t, .synopsis = "FILE\n  reads FILE\n" };
	char *argv[] = { "test", "--help", NULL };
	char got[64] = { 0 };
	FILE *out = tmpfile();
	int saved = dup(STDOUT_FILENO);

	(void)state;
	assert_non_null(out);
	assert_true(saved >= 0);
	fflush(stdout);
	assert_true(dup2(fileno(out), STDOUT_FILENO) >= 0);
	assert_int_equal(uie_opts_parse(&spec, 2, argv), UIE_OPTS_EXIT_OK);
	fflush(stdout);
	assert_true(dup2(saved, STDOUT_FILENO) >= 0);
	close(saved);
	rewind(out);
	assert_true(fread(got, 1, sizeof(got) - 1, out) > 0);
	fclose(out);
	assert_string_equal(got, "usage: test FILE\n  reads FILE\n");
}

TC_MAIN(setup, teardown, cmocka_unit_test(test_hex_decode), cmocka_unit_test(test_hex_decode_upto),
	cmocka_unit_test(test_hex_encode), cmocka_unit_test(test_parse_u64),
	cmocka_unit_test(test_file_roundtrip), cmocka_unit_test(test_file_errors),
	cmocka_unit_test(test_fd_read), cmocka_unit_test(test_opts_rows),
	cmocka_unit_test(test_opts_bad_values), cmocka_unit_test(test_opts_operands),
	cmocka_unit_test(test_opts_help_version), cmocka_unit_test(test_opts_synopsis))
