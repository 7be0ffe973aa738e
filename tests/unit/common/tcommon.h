/* SPDX-License-Identifier: Apache-2.0 */
/* Fixtures shared by the unit tests of every area (a small static library). */
#ifndef UIE_TEST_TCOMMON_H
#define UIE_TEST_TCOMMON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * Decodes a test vector's hex (whitespace ignored, either case) into
 * out[cap]; fails the running test on a non-digit, an odd digit count or
 * more than cap bytes.  Returns the byte count.
 */
size_t tc_hex(const char *hex, uint8_t *out, size_t cap);

/* Same into a malloc'ed buffer of exactly *n bytes (caller frees). */
uint8_t *tc_hex_alloc(const char *hex, size_t *n);

/*
 * Checks that the code blocks of the document at path, from the first line
 * that starts with heading to the next section heading ("## ", or the end
 * when to_end), are exactly want[0..nwant) in order, newlines removed: the
 * vectors a specification prints are the ones the test checks.  Fails the
 * running test otherwise.
 */
void tc_doc_vectors(const char *path, const char *heading, int to_end, const char *const *const *want,
		    size_t nwant);

/*
 * A fresh directory made from tmpl (a path ending in XXXXXX, filled in in
 * place); tc_rmtree removes a directory and everything below it.  Both fail
 * the running test on error.
 */
void tc_mkdtemp(char *tmpl);
void tc_rmtree(const char *dir);

/*
 * A memfd named name that allows sealing, holding p[0..n), with seals added
 * (0: none).  Fails the running test on error; the caller closes it.
 */
int tc_memfd(const char *name, const void *p, size_t n, unsigned seals);

/*
 * A test program's main: runs the CMUnitTest entries given (cmocka_unit_test
 * and the like) as one group with group_setup and group_teardown (either may
 * be NULL).  Use at file scope, without a semicolon.
 */
#define TC_MAIN(group_setup, group_teardown, ...)                                  \
	int main(void)                                                             \
	{                                                                          \
		const struct CMUnitTest tests[] = { __VA_ARGS__ };                 \
		return cmocka_run_group_tests(tests, group_setup, group_teardown); \
	}

/*
 * A test program's main whose tests (the functions given) each run between
 * setup and teardown, a fresh fixture each, in the order given; the tests
 * are named as written.  Use at file scope, without a semicolon.
 */
#define TC_MAIN_EACH(setup, teardown, ...)                                                            \
	int main(void)                                                                                \
	{                                                                                             \
		const tc_test_fn fns[] = { __VA_ARGS__ };                                             \
		return tc_run_each(#__VA_ARGS__, fns, sizeof(fns) / sizeof(fns[0]), setup, teardown); \
	}

/*
 * TC_MAIN for a test program that takes arguments: usage names them
 * ("URL-A URL-B TOKEN"), to lists in parentheses where each goes (the
 * addresses of const char * variables, in order).  A wrong count prints the
 * usage line and exits 2.
 */
#define TC_MAIN_ARGS(usage, to, group_setup, group_teardown, ...)                      \
	int main(int argc, char **argv)                                                \
	{                                                                              \
		const char **const dest[] = { TC_UNPAREN to };                         \
		const struct CMUnitTest tests[] = { __VA_ARGS__ };                     \
                                                                                       \
		if (!tc_args(argc, argv, usage, dest, sizeof(dest) / sizeof(dest[0]))) \
			return 2;                                                      \
		return cmocka_run_group_tests(tests, group_setup, group_teardown);     \
	}
#define TC_UNPAREN(...) __VA_ARGS__

/* TC_MAIN_ARGS's check: argv's n arguments into *dest[0..n-1]; false after the usage line. */
bool tc_args(int argc, char **argv, const char *usage, const char **const *dest, size_t n);

typedef void (*tc_test_fn)(void **state);
typedef int (*tc_fixture_fn)(void **state);

/* TC_MAIN_EACH's runner: names is the comma-separated list of the n tests in fns. */
int tc_run_each(const char *names, const tc_test_fn *fns, size_t n, tc_fixture_fn setup,
		tc_fixture_fn teardown);

#endif
