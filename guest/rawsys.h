/* SPDX-License-Identifier: Apache-2.0 */
/*
 * System calls for code that runs in a child sharing the supervisor's
 * memory (CLONE_VM: spawn.c's child, fan.c's releaser).  Such a child also
 * shares the supervisor's thread-local storage, errno included, while the
 * supervisor runs on: a libc wrapper that failed would overwrite an errno
 * the supervisor is about to read (an EAGAIN read as a failure).  These
 * return the kernel's result, -errno on failure, and touch no memory of
 * their own.  x86-64 only, as the filter (filter.c).
 */
#ifndef UIE_GUEST_RAWSYS_H
#define UIE_GUEST_RAWSYS_H

#if !defined(__x86_64__)
#error "guest/rawsys.h: x86-64 only"
#endif

static inline long uie_raw6(long nr, long a1, long a2, long a3, long a4, long a5, long a6)
{
	register long r10 __asm__("r10") = a4;
	register long r8 __asm__("r8") = a5;
	register long r9 __asm__("r9") = a6;
	long ret;

	__asm__ volatile("syscall"
			 : "=a"(ret)
			 : "a"(nr), "D"(a1), "S"(a2), "d"(a3), "r"(r10), "r"(r8), "r"(r9)
			 : "rcx", "r11", "memory");
	return ret;
}

#define uie_raw(nr, ...) uie_raw_n(nr, __VA_ARGS__, 0, 0, 0, 0, 0, 0)
#define uie_raw_n(nr, a1, a2, a3, a4, a5, a6, ...) \
	uie_raw6((long)(nr), (long)(a1), (long)(a2), (long)(a3), (long)(a4), (long)(a5), (long)(a6))
#define uie_raw0(nr) uie_raw6((long)(nr), 0, 0, 0, 0, 0, 0)

#endif
