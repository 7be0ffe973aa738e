/* SPDX-License-Identifier: Apache-2.0 */
/*
 * remap_file_pages: rearranges the pages of an existing shared file
 * mapping, which could put unmeasured file pages under an executable
 * range.  Tried on an executable shared mapping of argv[1].
 */
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include "attempt.h"

int main(int argc, char **argv)
{
	int fd = argc > 1 ? open(argv[1], O_RDONLY) : -1;
	void *p;

	if (fd < 0)
		return setup_failed("open");
	p = mmap(NULL, 8192, PROT_READ, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED)
		return setup_failed("mmap");
	if (remap_file_pages(p, 4096, 0, 1, 0) != 0)
		return refused("remap_file_pages", errno);
	return gained("remap_file_pages succeeded");
}
