/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Code supplied after the grant by a userfaultfd: `uffd_fill HOW OBJECT`.
 *
 * OBJECT (a shared object the policy allows) is copied into a memfd sealed
 * against writes, so its content is fixed and the grant of a private
 * PROT_READ|PROT_EXEC mapping of its code is decided by its digest.  Nothing of
 * the mapping has been touched yet, so none of its pages is present: a
 * userfaultfd registered over its first page may fill that page with any
 * bytes (UFFDIO_COPY puts a private, anonymous page there, mapped with the
 * mapping's protection), and the payload then runs from a range whose
 * grant named OBJECT.  HOW says where the userfaultfd comes from:
 *   syscall  the userfaultfd system call;
 *   dev      an ioctl of /dev/userfaultfd (Linux 6.1; root by its mode).
 * Exit 10 when the payload ran, 0 when a step was refused, 2 when the run
 * cannot apply (no /dev/userfaultfd, OBJECT not granted).
 */
#include <fcntl.h>
#include <linux/userfaultfd.h>
#include <stdint.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <sys/syscall.h>

#include "attempt.h"
#include "elfseg.h"
#include "payload_code.h"

#define PAGE 4096

static int sealed_copy(const char *path)
{
	struct stat st;
	int in = open(path, O_RDONLY | O_CLOEXEC), mfd = memfd_create("object", MFD_ALLOW_SEALING);

	if (in < 0 || mfd < 0 || fstat(in, &st) != 0 || st.st_size < PAGE ||
	    sendfile(mfd, in, NULL, (size_t)st.st_size) != st.st_size ||
	    fcntl(mfd, F_ADD_SEALS, F_SEAL_WRITE | F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL) != 0)
		return -1;
	close(in);
	return mfd;
}

/* A userfaultfd the way HOW says; -1 with errno when that is refused, -2 when it cannot apply. */
static int new_uffd(const char *how)
{
	int dev, fd;

	if (!strcmp(how, "syscall"))
		return (int)syscall(SYS_userfaultfd, O_CLOEXEC);
	if ((dev = open("/dev/userfaultfd", O_RDWR | O_CLOEXEC)) < 0)
		return errno == ENOENT ? -2 : -1;
	fd = ioctl(dev, USERFAULTFD_IOC_NEW, O_CLOEXEC);
	close(dev);
	return fd;
}

int main(int argc, char **argv)
{
	static unsigned char page[PAGE] __attribute__((aligned(PAGE)));
	struct uffdio_api api = { .api = UFFD_API };
	struct uffdio_register reg = { .mode = UFFDIO_REGISTER_MODE_MISSING };
	struct uffdio_copy copy = { .len = PAGE };
	void *code;
	off_t off;
	size_t len;
	int mfd, uffd;

	if (argc != 3 || (strcmp(argv[1], "syscall") && strcmp(argv[1], "dev")))
		return ATTEMPT_SETUP;
	if ((mfd = sealed_copy(argv[2])) < 0 || exec_segment(mfd, &off, &len) != 0)
		return setup_failed(argv[2]);
	code = mmap(NULL, len, PROT_READ | PROT_EXEC, MAP_PRIVATE, mfd, off);
	if (code == MAP_FAILED)
		return setup_failed("mmap(PROT_EXEC) of the allowed object");
	if ((uffd = new_uffd(argv[1])) == -2) {
		fprintf(stderr, "cannot apply: this kernel has no /dev/userfaultfd\n");
		return ATTEMPT_SETUP;
	}
	if (uffd < 0)
		return refused("a userfaultfd", errno);
	if (ioctl(uffd, UFFDIO_API, &api) != 0)
		return refused("UFFDIO_API", errno);
	reg.range = (struct uffdio_range){ (uintptr_t)code, PAGE };
	if (ioctl(uffd, UFFDIO_REGISTER, &reg) != 0)
		return refused("a userfaultfd over the granted mapping", errno);
	memcpy(page, payload_code, sizeof(payload_code));
	copy.dst = (uintptr_t)code;
	copy.src = (uintptr_t)page;
	if (ioctl(uffd, UFFDIO_COPY, &copy) != 0)
		return refused("UFFDIO_COPY into the granted mapping", errno);
	return payload_ran(code) ? gained("code filled in by a userfaultfd ran from a granted mapping")
				 : refused("the filled page's code", 0);
}
