/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The tar reader of `uie ref scan --deb` (tools/policy/debtar.c): the
 * members dpkg-deb writes (ustar and GNU headers, GNU long names, pax
 * paths and sizes, base-256 sizes, hard links) read back with their data,
 * and corrupt or hostile archives refused with a reason and an offset:
 * bad checksums, truncation in a header, in the data and before the end
 * blocks, numbers that are not, names leaving the root, too long or
 * empty, unknown member types, malformed pax records, no tar at all.
 */
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cmocka.h>

#include "uie/err.h"

#include "debtar.h"
#include "tcommon.h"

#define BLOCK 512

struct stream {
	uint8_t b[1 << 16];
	size_t n;
};

static void fix_checksum(uint8_t *h)
{
	unsigned sum = 0;

	memset(h + 148, ' ', 8);
	for (size_t i = 0; i < BLOCK; i++)
		sum += h[i];
	snprintf((char *)h + 148, 8, "%06o", sum);
	h[155] = ' ';
}

/* A header (ustar, or GNU with gnu) for name, then size bytes of data from data (padded). */
static uint8_t *member(struct stream *s, const char *name, char type, uint64_t size, const void *data,
		       bool gnu)
{
	uint8_t *h = s->b + s->n;

	assert_true(s->n + BLOCK + size + BLOCK <= sizeof(s->b));
	memset(h, 0, BLOCK);
	snprintf((char *)h, 100, "%s", name);
	snprintf((char *)h + 100, 8, "%07o", 0755u);
	snprintf((char *)h + 108, 8, "%07o", 0u);
	snprintf((char *)h + 116, 8, "%07o", 0u);
	snprintf((char *)h + 124, 12, "%011llo", (unsigned long long)size);
	snprintf((char *)h + 136, 12, "%011o", 0u);
	h[156] = (uint8_t)type;
	memcpy(h + 257,
	       gnu ? "ustar  "
		   : "ustar\0"
		     "00",
	       8);
	fix_checksum(h);
	s->n += BLOCK;
	if (data)
		memcpy(s->b + s->n, data, (size_t)size);
	s->n += (size_t)(size + (BLOCK - size % BLOCK) % BLOCK);
	return h;
}

static void end(struct stream *s)
{
	memset(s->b + s->n, 0, 2 * BLOCK);
	s->n += 2 * BLOCK;
}

/* A reader over the first n bytes of s (a memfd, read as the pipe would be). */
static int reader(struct uie_tar *t, const struct stream *s, size_t n)
{
	int fd = tc_memfd("tar", s->b, n, 0);

	assert_int_equal(lseek(fd, 0, SEEK_SET), 0);
	uie_tar_init(t, fd);
	return fd;
}

static void data_is(struct uie_tar *t, const char *want)
{
	int fd = memfd_create("out", MFD_CLOEXEC);
	char got[256] = { 0 };

	assert_int_equal(uie_tar_copy(t, fd), UIE_OK);
	assert_int_equal(pread(fd, got, sizeof(got) - 1, 0), (ssize_t)strlen(want));
	assert_string_equal(got, want);
	close(fd);
}

static void test_members(void **state)
{
	static struct stream s;
	static const char paxrec[] = "path=usr/share/p\xc3\xa4x\n";
	char longname[300], pax[400];
	struct uie_tar_entry e;
	struct uie_tar t;
	uint8_t *h, head[2];
	int fd, n;

	(void)state;
	s.n = 0;
	member(&s, "./", '5', 0, NULL, true);
	member(&s, "./usr/bin/hello", '0', 6, "hello\n", true);
	member(&s, "./usr/bin/hi", '1', 0, NULL, true);
	member(&s, "./usr/bin/link", '2', 0, NULL, true);
	memset(longname, 'a', sizeof(longname));
	memcpy(longname, "./usr/lib/", 10);
	longname[sizeof(longname) - 1] = '\0';
	member(&s, "././@LongLink", 'L', strlen(longname) + 1, longname, true);
	member(&s, "./usr/lib/aaaa", '0', 4, "long", true);
	n = snprintf(pax, sizeof(pax), "%zu %s", strlen(paxrec) + 3, paxrec); /* 2 digits and a space */
	member(&s, "./PaxHeaders/x", 'x', (uint64_t)n, pax, false);
	member(&s, "usr/share/short", '0', 3, "pax", false);
	/* A base-256 size, as GNU tar writes sizes of 8 GiB and more. */
	h = member(&s, "big", '0', 2, "b2", true);
	memset(h + 124, 0, 12);
	h[124] = 0x80;
	h[135] = 2;
	fix_checksum(h);
	end(&s);

	fd = reader(&t, &s, s.n);
	assert_int_equal(uie_tar_next(&t, &e), 1);
	assert_int_equal(e.type, UIE_TAR_OTHER);
	assert_string_equal(e.path, "/");
	assert_int_equal(uie_tar_next(&t, &e), 1);
	assert_int_equal(e.type, UIE_TAR_FILE);
	assert_string_equal(e.path, "/usr/bin/hello");
	assert_int_equal(e.mode, 0755);
	assert_int_equal(e.size, 6);
	assert_int_equal(uie_tar_read(&t, head, 2), 2); /* a head read first, the rest copied */
	assert_memory_equal(head, "he", 2);
	data_is(&t, "llo\n");
	assert_int_equal(uie_tar_read(&t, head, 2), 0);
	assert_int_equal(uie_tar_next(&t, &e), 1);
	assert_int_equal(e.type, UIE_TAR_HARDLINK);
	assert_int_equal(uie_tar_next(&t, &e), 1);
	assert_int_equal(e.type, UIE_TAR_OTHER);
	assert_string_equal(e.path, "/usr/bin/link");
	assert_int_equal(uie_tar_next(&t, &e), 1); /* data not read: skipped by the next call */
	assert_string_equal(e.path, longname + 1);
	assert_int_equal(uie_tar_next(&t, &e), 1);
	assert_string_equal(e.path, "/usr/share/p\xc3\xa4x");
	data_is(&t, "pax");
	assert_int_equal(uie_tar_next(&t, &e), 1);
	assert_string_equal(e.path, "/big");
	assert_int_equal(e.size, 2);
	data_is(&t, "b2");
	assert_int_equal(uie_tar_next(&t, &e), 0);
	close(fd);
}

/* The first uie_tar_next (and the copy of its data) on the stream ends in err, why naming it. */
static void refused(const struct stream *s, size_t n, int err, const char *why)
{
	struct uie_tar_entry e;
	struct uie_tar t;
	int fd = reader(&t, s, n), out = open("/dev/null", O_WRONLY | O_CLOEXEC), r;

	assert_true(out >= 0);
	while ((r = uie_tar_next(&t, &e)) == 1 && (r = uie_tar_copy(&t, out)) == UIE_OK)
		;
	assert_int_equal(r, err);
	if (!strstr(t.why, why))
		fail_msg("why '%s' does not say '%s'", t.why, why);
	assert_non_null(strstr(t.why, "offset "));
	close(out);
	close(fd);
}

static void test_corrupt(void **state)
{
	static struct stream s;
	char name[UIE_TAR_NAME_MAX + 10];
	uint8_t *h;

	(void)state;
	s.n = 0;
	h = member(&s, "./usr/bin/x", '0', 5, "hello", true);
	end(&s);
	h[20] ^= 1; /* a name byte: the checksum no longer matches */
	refused(&s, s.n, UIE_E_FORMAT, "checksum");
	h[20] ^= 1;
	refused(&s, 300, UIE_E_TRUNCATED, "ends inside");       /* inside the header */
	refused(&s, BLOCK + 2, UIE_E_TRUNCATED, "ends inside"); /* inside the data */
	refused(&s, 2 * BLOCK, UIE_E_TRUNCATED, "ends inside"); /* no end blocks */
	memcpy(h + 124, "0000000009x", 11);                     /* size not octal */
	fix_checksum(h);
	refused(&s, s.n, UIE_E_FORMAT, "not a number");

	s.n = 0;
	member(&s, "./usr/../../etc/passwd", '0', 1, "x", true);
	end(&s);
	refused(&s, s.n, UIE_E_FORMAT, "leaves the root");

	s.n = 0;
	member(&s, "./", '0', 1, "x", true);
	end(&s);
	refused(&s, s.n, UIE_E_FORMAT, "without a name");

	s.n = 0;
	member(&s, "./dev/sparse", 'S', 0, NULL, true);
	end(&s);
	refused(&s, s.n, UIE_E_FORMAT, "unsupported type 'S'");

	s.n = 0;
	memset(name, 'a', sizeof(name));
	name[sizeof(name) - 1] = '\0';
	member(&s, "././@LongLink", 'L', sizeof(name), name, true);
	member(&s, "x", '0', 0, NULL, true);
	end(&s);
	refused(&s, s.n, UIE_E_LIMIT, "long name");

	s.n = 0;
	member(&s, "./PaxHeaders/x", 'x', 12, "99 path=abc\n", false); /* length beyond the header */
	member(&s, "x", '0', 0, NULL, false);
	end(&s);
	refused(&s, s.n, UIE_E_FORMAT, "pax");

	s.n = 0;
	member(&s, "./PaxHeaders/x", 'x', 14, "14 size=12a45\n", false);
	member(&s, "x", '0', 0, NULL, false);
	end(&s);
	refused(&s, s.n, UIE_E_FORMAT, "pax");

	s.n = 0;
	memset(s.b, 0x41, 4 * BLOCK); /* not a tar archive at all */
	s.n = 4 * BLOCK;
	refused(&s, s.n, UIE_E_FORMAT, "checksum");
}

TC_MAIN(NULL, NULL, cmocka_unit_test(test_members), cmocka_unit_test(test_corrupt))
