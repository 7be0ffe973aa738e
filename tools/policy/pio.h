/* SPDX-License-Identifier: Apache-2.0 */
/* File and text helpers of the policy tools. */
#ifndef UIE_TOOLS_PIO_H
#define UIE_TOOLS_PIO_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* Reads a whole regular file of at most max bytes; *buf is malloc'ed (caller frees). */
int pio_read_alloc(const char *path, size_t max, uint8_t **buf, size_t *len);

/* Writes len bytes to path through a temporary file and rename (mode for a new file). */
int pio_write(const char *path, const void *buf, size_t len, mode_t mode);

/* Exactly 2*n hex digits into out; UIE_E_FORMAT otherwise. */
int pio_hex_decode(const char *hex, uint8_t *out, size_t n);

/* Decimal u64 without sign or junk; UIE_E_FORMAT or UIE_E_OVERFLOW otherwise. */
int pio_parse_u64(const char *s, uint64_t *v);

#endif
