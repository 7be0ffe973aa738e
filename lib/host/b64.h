/* SPDX-License-Identifier: Apache-2.0 */
/* Base64 (RFC 4648, standard alphabet, with padding) of the fleet verifier's JSON. */
#ifndef UIE_HOST_B64_H
#define UIE_HOST_B64_H

#include <stddef.h>
#include <stdint.h>

/*
 * Strict decoding of s[0..n): a multiple of 4 characters of the alphabet,
 * '=' only as the last one or two.  *out is malloc'ed for the caller (also
 * for n = 0).  Return: UIE_OK, UIE_E_FORMAT, UIE_E_NOMEM.
 */
int uie_b64_decode_alloc(const char *s, size_t n, uint8_t **out, size_t *out_len);

/* p[0..n) as a NUL-terminated string, malloc'ed for the caller; NULL without memory. */
char *uie_b64_encode_alloc(const uint8_t *p, size_t n);

#endif
