/* SPDX-License-Identifier: Apache-2.0 */
/* Fixtures shared by the unit tests of every area (a small static library). */
#ifndef UIE_TEST_TCOMMON_H
#define UIE_TEST_TCOMMON_H

#include <stddef.h>
#include <stdint.h>

/*
 * Decodes a test vector's hex (whitespace ignored, either case) into
 * out[cap]; fails the running test on a non-digit, an odd digit count or
 * more than cap bytes.  Returns the byte count.
 */
size_t tc_hex(const char *hex, uint8_t *out, size_t cap);

/* Same into a malloc'ed buffer of exactly *n bytes (caller frees). */
uint8_t *tc_hex_alloc(const char *hex, size_t *n);

#endif
