/* SPDX-License-Identifier: Apache-2.0 */
/* File helpers of the evidence subcommands: "-" for stdin/stdout, public key files. */
#ifndef UIE_TOOLS_EVIO_H
#define UIE_TOOLS_EVIO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "uie/types.h"

#define EVIO_MAX_FILE (1ull << 34) /* 16 GiB: a log of ~90 million records */

/* Whole regular file (or stdin for "-"), malloc'ed; UIE_E_IO / UIE_E_LIMIT / UIE_E_NOMEM. */
int evio_read_alloc(const char *path, uint8_t **buf, size_t *len);
/* Writes atomically (temporary file + rename), or to stdout for "-". */
int evio_write(const char *path, const void *p, size_t n);

/*
 * The --nonce HEX (from_file false) or --nonce-file FILE ("-": stdin) option
 * of cmd: 1 to UIE_NONCE_MAX bytes into nonce, given once (*len is 0 on
 * entry).  On error, says why on stderr and returns UIE_E_FORMAT.
 */
int evio_nonce_option(const char *cmd, bool from_file, const char *arg, uint8_t *nonce, size_t *len);
/* A public key file (PEM or DER) as DER SubjectPublicKeyInfo, malloc'ed. */
int evio_pubkey_der_alloc(const char *path, uint8_t **der, size_t *len);
/* DER SubjectPublicKeyInfo written as PEM. */
int evio_write_pubkey_pem(const char *path, const uint8_t *der, size_t len);

#endif
