/* SPDX-License-Identifier: Apache-2.0 */
/* Hex and decimal text of the host tools and the verifier. */
#ifndef UIE_HOST_HEX_H
#define UIE_HOST_HEX_H

#include <stddef.h>
#include <stdint.h>

/* The value of one hex digit (either case), or -1. */
int uie_hex_nibble(char c);

/*
 * Exactly 2*n hex digits (hexlen of them; hex need not be NUL-terminated)
 * into out[n]; UIE_E_FORMAT for a NULL string, a wrong length or a non-digit.
 */
int uie_hex_decode(const char *hex, size_t hexlen, uint8_t *out, size_t n);

/*
 * A NUL-terminated string of 2 to 2*cap hex digits (even count) into out;
 * *n is the byte count.  UIE_E_FORMAT, or UIE_E_LIMIT when longer than cap.
 */
int uie_hex_decode_upto(const char *hex, uint8_t *out, size_t cap, size_t *n);

/* n bytes as 2*n lowercase digits and a NUL: out holds 2*n + 1 chars. */
void uie_hex_encode(char *out, const uint8_t *p, size_t n);

/* A decimal uint64 without sign, space or junk; UIE_E_FORMAT or UIE_E_OVERFLOW. */
int uie_parse_u64(const char *s, uint64_t *v);

#endif
