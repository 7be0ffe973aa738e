/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Memory primitives for the freestanding core.  The compiler builtins lower
 * to inline code or to the functions every C runtime (and every
 * freestanding environment gcc/clang target) must provide.
 */
#ifndef UIE_CORE_MEM_H
#define UIE_CORE_MEM_H

#include <stddef.h>

#define uie_memcpy(d, s, n) __builtin_memcpy((d), (s), (n))
#define uie_memset(d, c, n) __builtin_memset((d), (c), (n))
#define uie_memcmp(a, b, n) __builtin_memcmp((a), (b), (n))
#define uie_memmove(d, s, n) __builtin_memmove((d), (s), (n))

/* Comparison whose time does not depend on where the inputs differ. */
static inline int uie_ct_memeq(const void *a, const void *b, size_t n)
{
	const unsigned char *x = a, *y = b;
	unsigned char acc = 0;

	for (size_t i = 0; i < n; i++)
		acc |= (unsigned char)(x[i] ^ y[i]);
	return acc == 0;
}

#endif
