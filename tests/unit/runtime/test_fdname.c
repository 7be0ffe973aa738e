/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A descriptor's file through /proc/self/fd (lib/sys/fdname.c): the name
 * of a file, of a deleted one, of no descriptor, of a name that does not
 * fit; a read-only reopen of an O_PATH descriptor, which is an open
 * description of its own, and one of a FIFO without a writer, which does
 * not block.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "uie/sys.h"

static char dir[] = "/tmp/uie-fdname.XXXXXX";

static void test_name(void **state)
{
	char path[PATH_MAX], buf[PATH_MAX], small[8];
	int fd;

	(void)state;
	snprintf(path, sizeof(path), "%s/file", dir);
	fd = open(path, O_CREAT | O_RDWR | O_CLOEXEC, 0600);
	assert_true(fd >= 0);
	assert_int_equal(uie_sys_fd_name(fd, buf, sizeof(buf)), (ssize_t)strlen(path));
	assert_string_equal(buf, path);
	/* Cut to fit, still terminated. */
	assert_int_equal(uie_sys_fd_name(fd, small, sizeof(small)), (ssize_t)sizeof(small) - 1);
	assert_int_equal(strncmp(small, path, sizeof(small) - 1), 0);
	assert_int_equal(small[sizeof(small) - 1], '\0');
	assert_int_equal(unlink(path), 0);
	assert_true(uie_sys_fd_name(fd, buf, sizeof(buf)) > 0);
	assert_non_null(strstr(buf, " (deleted)"));
	close(fd);
	/* No descriptor, no room: "" and -1, errno saying which. */
	strcpy(buf, "stale");
	errno = 0;
	assert_int_equal(uie_sys_fd_name(-1, buf, sizeof(buf)), -1);
	assert_int_equal(errno, EBADF);
	assert_string_equal(buf, "");
	errno = 0;
	assert_int_equal(uie_sys_fd_name(0, buf, 0), -1);
	assert_int_equal(errno, EINVAL);
	assert_int_equal(uie_sys_fd_name(fd, buf, sizeof(buf)), -1); /* closed */
	assert_int_equal(errno, ENOENT);
	assert_string_equal(buf, "");
}

static void test_reopen(void **state)
{
	char path[PATH_MAX], fifo[PATH_MAX], c = 0;
	int w, p, r;

	(void)state;
	snprintf(path, sizeof(path), "%s/data", dir);
	w = open(path, O_CREAT | O_WRONLY | O_CLOEXEC, 0600);
	assert_true(w >= 0);
	assert_int_equal(write(w, "ab", 2), 2);
	p = open(path, O_PATH | O_CLOEXEC);
	assert_true(p >= 0);
	assert_int_equal(read(p, &c, 1), -1); /* an O_PATH descriptor reads nothing */
	r = uie_sys_reopen_read(p);
	assert_true(r >= 0);
	assert_int_equal(read(r, &c, 1), 1);
	assert_int_equal(c, 'a');
	assert_int_equal(lseek(p, 0, SEEK_CUR), -1); /* its own offset, not p's */
	assert_int_equal(write(r, "x", 1), -1);      /* read only */
	assert_int_equal(fcntl(r, F_GETFD) & FD_CLOEXEC, FD_CLOEXEC);
	close(r);
	close(p);
	close(w);
	unlink(path);
	snprintf(fifo, sizeof(fifo), "%s/fifo", dir);
	assert_int_equal(mkfifo(fifo, 0600), 0);
	p = open(fifo, O_PATH | O_CLOEXEC);
	assert_true(p >= 0);
	r = uie_sys_reopen_read(p); /* no writer: a blocking open would wait here for ever */
	assert_true(r >= 0);
	close(r);
	close(p);
	unlink(fifo);
	assert_int_equal(uie_sys_reopen_read(-1), -1);
}

static int setup(void **state)
{
	(void)state;
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	return rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_name),
		cmocka_unit_test(test_reopen),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
