/* SPDX-License-Identifier: Apache-2.0 */
/*
 * `sysnr NR...`: issues system call NR (all arguments 0) for each and prints
 * "NR ok" or "NR ERRNONAME".  For the filter's default (docs/SYSCALLS.md):
 * a number the census does not list gets ENOSYS in the tree.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		long nr = strtol(argv[i], NULL, 10);

		errno = 0;
		if (syscall(nr, 0L, 0L, 0L, 0L, 0L, 0L) < 0)
			printf("%ld %s\n", nr, strerrorname_np(errno) ? strerrorname_np(errno) : "?");
		else
			printf("%ld ok\n", nr);
	}
	return 0;
}
