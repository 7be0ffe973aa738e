/* SPDX-License-Identifier: Apache-2.0 */
/* lib/host hex.c and fileio.c against real files, pipes and directories. */
#include <errno.h>
#include <stdarg.h>
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hex_decode),     cmocka_unit_test(test_hex_decode_upto),
		cmocka_unit_test(test_hex_encode),     cmocka_unit_test(test_parse_u64),
		cmocka_unit_test(test_file_roundtrip), cmocka_unit_test(test_file_errors),
		cmocka_unit_test(test_fd_read),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
