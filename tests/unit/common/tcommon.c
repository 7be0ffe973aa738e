/* SPDX-License-Identifier: Apache-2.0 */
#include "tcommon.h"

#include <ctype.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdarg.h>
#include <stdio.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cmocka.h>

#include "hex.h"

size_t tc_hex(const char *hex, uint8_t *out, size_t cap)
{
	size_t n = 0;
	int hi = -1;

	for (; *hex; hex++) {
		int v;

		if (isspace((unsigned char)*hex))
			continue;
		v = uie_hex_nibble(*hex);
		assert_true(v >= 0);
		if (hi < 0) {
			hi = v;
			continue;
		}
		assert_true(n < cap);
		out[n++] = (uint8_t)(hi << 4 | v);
		hi = -1;
	}
	assert_int_equal(hi, -1);
	return n;
}

uint8_t *tc_hex_alloc(const char *hex, size_t *n)
{
	size_t cap = strlen(hex) / 2;
	uint8_t *out = malloc(cap + 1); /* + 1: never malloc(0) */

	assert_non_null(out);
	*n = tc_hex(hex, out, cap);
	return out;
}

void tc_doc_vectors(const char *path, const char *heading, int to_end, const char *const *const *want,
		    size_t nwant)
{
	static char doc[262144], block[2048];
	FILE *f = fopen(path, "r");
	size_t n, nblocks = 0;
	char *p, *next;

	assert_non_null(f);
	n = fread(doc, 1, sizeof(doc) - 1, f);
	fclose(f);
	doc[n] = '\0';
	p = strstr(doc, heading);
	assert_non_null(p);
	if (!to_end && (next = strstr(p + 1, "\n## ")) != NULL)
		next[1] = '\0'; /* later sections have their own vectors */
	while ((p = strstr(p, "```\n")) != NULL) {
		char *end = strstr(p + 4, "```");
		size_t bl = 0;

		assert_non_null(end);
		for (char *c = p + 4; c < end; c++)
			if (*c != '\n') {
				assert_true(bl < sizeof(block) - 1);
				block[bl++] = *c;
			}
		block[bl] = '\0';
		assert_true(nblocks < nwant);
		assert_string_equal(block, *want[nblocks]);
		nblocks++;
		p = end + 3;
	}
	assert_int_equal(nblocks, nwant);
}

void tc_mkdtemp(char *tmpl)
{
	assert_non_null(mkdtemp(tmpl));
}

static int remove_one(const char *p, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(p);
}

void tc_rmtree(const char *dir)
{
	assert_int_equal(nftw(dir, remove_one, 16, FTW_DEPTH | FTW_PHYS), 0);
}

int tc_memfd(const char *name, const void *p, size_t n, unsigned seals)
{
	int fd = memfd_create(name, MFD_CLOEXEC | MFD_ALLOW_SEALING);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, p, n), (ssize_t)n);
	if (seals)
		assert_int_equal(fcntl(fd, F_ADD_SEALS, seals), 0);
	return fd;
}

int tc_run_each(const char *names, const tc_test_fn *fns, size_t n, tc_fixture_fn setup,
		tc_fixture_fn teardown)
{
	struct CMUnitTest *tests = calloc(n, sizeof(*tests));
	char *list = strdup(names), *save = NULL, *name = list;
	int r;

	if (!tests || !list) {
		fprintf(stderr, "tc_run_each: out of memory\n");
		exit(1);
	}
	for (size_t i = 0; i < n; i++, name = NULL) {
		name = strtok_r(name, ", \t\n", &save);
		tests[i] = (struct CMUnitTest){ name, fns[i], setup, teardown, NULL };
	}
	r = _cmocka_run_group_tests("tests", tests, n, NULL, NULL);
	free(tests);
	free(list);
	return r;
}

bool tc_args(int argc, char **argv, const char *usage, const char **const *dest, size_t n)
{
	if (argc < 1 || (size_t)argc - 1 != n) {
		fprintf(stderr, "usage: %s %s\n", argc > 0 ? argv[0] : "test", usage);
		return false;
	}
	for (size_t i = 0; i < n; i++)
		*dest[i] = argv[i + 1];
	return true;
}
