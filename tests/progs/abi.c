/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Foreign system-call ABIs: `abi x32` calls mprotect with the x32 bit;
 * `abi i386` calls mprotect through int 0x80 (the i386 ABI), which the
 * filter answers by killing the process (SIGSYS).
 */
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "attempt.h"

#define X32_BIT 0x40000000L
#define I386_MPROTECT 125

int main(int argc, char **argv)
{
	void *p = mmap((void *)0x10000000, 4096, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
	long r;

	if (p == MAP_FAILED || argc < 2)
		return setup_failed("mmap below 4 GiB");
	if (!strcmp(argv[1], "x32")) {
		r = syscall(X32_BIT | SYS_mprotect, p, 4096, PROT_READ | PROT_EXEC);
		return r != 0 ? refused("x32 mprotect", errno) : gained("x32 mprotect");
	}
	__asm__ volatile("int $0x80"
			 : "=a"(r)
			 : "a"(I386_MPROTECT), "b"((long)p), "c"(4096L), "d"((long)(PROT_READ | PROT_EXEC))
			 : "memory");
	return r == 0 ? gained("i386 mprotect") : refused("i386 mprotect", (int)-r);
}
