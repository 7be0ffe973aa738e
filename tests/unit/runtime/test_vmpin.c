/* SPDX-License-Identifier: Apache-2.0 */
/*
 * guest/vmpin.c on the host: a file's page-cache pages pinned and named by
 * frame (root only: pagemap hides frame numbers from others; the test
 * skips otherwise), and the objects that cannot be named; a process's
 * frames of a range (MPROTECT_EXEC): the file's page where it reads the
 * file, its own copy after a write, ABSENT where nothing is present.
 */
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cmocka.h>

#include "uie/bridge.h"
#include "uie/err.h"
#include "vmpin.h"
#include "tcommon.h"

static int pagemap = -1;

static void test_pin_file(void **state)
{
	int fd = open("/bin/ls", O_RDONLY | O_CLOEXEC);
	struct uie_vmpin p;
	off_t size = lseek(fd, 0, SEEK_END);

	(void)state;
	if (geteuid() != 0)
		skip();
	assert_int_equal(uie_vmpin_object(pagemap, fd, &p), UIE_OK);
	assert_false(p.fileless);
	assert_int_equal(p.size, (uint64_t)size);
	assert_int_equal(p.nframes, ((uint64_t)size + UIE_VM_FRAME - 1) / UIE_VM_FRAME);
	for (size_t i = 0; i < p.nframes; i++) {
		assert_int_not_equal(p.frames[i], 0);
		assert_int_equal(p.frames[i] % UIE_VM_FRAME, 0);
		for (size_t j = 0; j < i; j++)
			assert_int_not_equal(p.frames[j], p.frames[i]); /* distinct pages */
	}
	uie_vmpin_release(&p);
	assert_null(p.frames);
	uie_vmpin_release(&p); /* twice is harmless */
	close(fd);
}

static void test_unnameable(void **state)
{
	struct uie_vmpin p;
	int fd, mfd;

	(void)state;
	/* a file with no name: no frames, the monitor decides FILELESS */
	mfd = tc_memfd("anon", "\177ELF", 4, 0);
	assert_int_equal(uie_vmpin_object(pagemap, mfd, &p), UIE_OK);
	assert_true(p.fileless);
	assert_int_equal(p.nframes, 0);
	close(mfd);
	/* not a regular file */
	fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	assert_int_equal(uie_vmpin_object(pagemap, fd, &p), UIE_E_FORMAT);
	close(fd);
	/* opened for writing only: cannot be mapped for reading */
	{
		char path[] = "/tmp/uie-vmpin-XXXXXX";
		int w = mkstemp(path);

		assert_true(w >= 0);
		assert_int_equal(write(w, "x", 1), 1);
		close(w);
		w = open(path, O_WRONLY | O_CLOEXEC);
		assert_int_equal(uie_vmpin_object(pagemap, w, &p), UIE_E_IO);
		/* an empty file: nothing to name */
		assert_int_equal(ftruncate(w, 0), 0);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		assert_int_equal(uie_vmpin_object(pagemap, fd, &p), UIE_E_RANGE);
		close(fd);
		close(w);
		unlink(path);
	}
}

static void test_range(void **state)
{
	int fd = open("/bin/ls", O_RDONLY | O_CLOEXEC);
	uint64_t f[3];
	struct uie_vmpin p;
	volatile uint8_t *m;

	(void)state;
	if (geteuid() != 0)
		skip();
	assert_int_equal(uie_vmpin_object(pagemap, fd, &p), UIE_OK);
	m = mmap(NULL, 3 * UIE_VM_FRAME, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
	assert_true(m != MAP_FAILED);
	(void)m[0];               /* read: the page-cache page */
	m[2 * UIE_VM_FRAME] ^= 1; /* written: a private copy */
	/* page 1: not present (a read fault maps the pages around it too) */
	assert_int_equal(madvise((void *)(m + UIE_VM_FRAME), UIE_VM_FRAME, MADV_DONTNEED), 0);
	assert_int_equal(uie_vmpin_range((uint32_t)getpid(), (uint64_t)(uintptr_t)m, f, 3), UIE_OK);
	assert_int_equal(f[0], p.frames[0]);
	assert_int_equal(f[1], UIE_VM_PAGE_ABSENT);
	assert_int_not_equal(f[2], p.frames[2]);
	assert_int_equal(f[2] % UIE_VM_FRAME, 0);
	/* refused: an address not page aligned, a process that does not exist */
	assert_int_equal(uie_vmpin_range((uint32_t)getpid(), (uint64_t)(uintptr_t)m + 8, f, 1), UIE_E_INVAL);
	assert_int_equal(uie_vmpin_range(0x7ffffffe, (uint64_t)(uintptr_t)m, f, 1), UIE_E_SYS);
	munmap((void *)m, 3 * UIE_VM_FRAME);
	uie_vmpin_release(&p);
	close(fd);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pin_file),
		cmocka_unit_test(test_unnameable),
		cmocka_unit_test(test_range),
	};

	pagemap = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
	if (pagemap < 0)
		return 77;
	return cmocka_run_group_tests(tests, NULL, NULL);
}
