/* SPDX-License-Identifier: Apache-2.0 */
/*
 * For the write-violation test: `mapwait LIB READY GO` maps LIB's code
 * executable (a grant the interceptor asks the monitor about), creates the file
 * READY, and keeps the mapping until the file GO exists (at most 60 s).
 * Exit 0 when the mapping was granted, 1 when refused, 2 on setup errors.
 */
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "attempt.h"
#include "elfseg.h"

int main(int argc, char **argv)
{
	struct stat st;
	size_t len;
	off_t off;
	void *p;
	int fd;

	if (argc != 4)
		return ATTEMPT_SETUP;
	fd = open(argv[1], O_RDONLY | O_CLOEXEC);
	if (fd < 0 || exec_segment(fd, &off, &len) != 0)
		return ATTEMPT_SETUP;
	p = mmap(NULL, len, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, off);
	if (p == MAP_FAILED) {
		refused("mmap", errno);
		return 1;
	}
	close(fd);
	fd = open(argv[2], O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0)
		return ATTEMPT_SETUP;
	close(fd);
	for (int i = 0; i < 6000 && stat(argv[3], &st) != 0; i++)
		usleep(10000);
	munmap(p, len);
	return 0;
}
