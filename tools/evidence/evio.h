/* SPDX-License-Identifier: Apache-2.0 */
/* File and encoding helpers of the evidence subcommands. */
#ifndef UIE_TOOLS_EVIO_H
#define UIE_TOOLS_EVIO_H

#include <stddef.h>
#include <stdint.h>

#define EVIO_MAX_FILE (1ull << 34) /* 16 GiB: a log of ~90 million records */

/* Whole file (or stdin for "-"), malloc'ed; UIE_E_IO / UIE_E_LIMIT / UIE_E_NOMEM. */
int evio_read_alloc(const char *path, uint8_t **buf, size_t *len);
/* Writes atomically (temporary file + rename), or to stdout for "-". */
int evio_write(const char *path, const void *p, size_t n);
/* Hex string of 2n digits into out[n]; UIE_E_FORMAT or UIE_E_LIMIT. */
int evio_unhex(const char *s, uint8_t *out, size_t cap, size_t *n);
void evio_hex(char *out, const uint8_t *p, size_t n);
/* A public key file (PEM or DER) as DER SubjectPublicKeyInfo, malloc'ed. */
int evio_pubkey_der_alloc(const char *path, uint8_t **der, size_t *len);
/* DER SubjectPublicKeyInfo written as PEM. */
int evio_write_pubkey_pem(const char *path, const uint8_t *der, size_t len);
/* A decimal uint64 argument; UIE_E_FORMAT when it is not one. */
int evio_u64(const char *s, uint64_t *v);

#endif
