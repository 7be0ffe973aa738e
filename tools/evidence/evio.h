/* SPDX-License-Identifier: Apache-2.0 */
/* File helpers of the evidence subcommands: "-" for stdin/stdout, public key files. */
#ifndef UIE_TOOLS_EVIO_H
#define UIE_TOOLS_EVIO_H

#include <stddef.h>
#include <stdint.h>

#include "uie/types.h"

#define EVIO_MAX_FILE (1ull << 34) /* 16 GiB: a log of ~90 million records */

/* Whole regular file (or stdin for "-"), malloc'ed; UIE_E_IO / UIE_E_LIMIT / UIE_E_NOMEM. */
int evio_read_alloc(const char *path, uint8_t **buf, size_t *len);

/* The nonce of --nonce or --nonce-file: 1 to UIE_NONCE_MAX bytes, given once. */
struct evio_nonce {
	const char *cmd; /* for messages: "uie verify" */
	uint8_t bytes[UIE_NONCE_MAX];
	size_t len; /* 0: none given yet */
};

/*
 * The --nonce HEX and --nonce-file FILE ("-": stdin) options (opts.h
 * calls) into the struct evio_nonce nonce: UIE_OPTS_GO, or after saying
 * why on stderr UIE_OPTS_EXIT_USAGE.
 */
int evio_nonce_hex(void *nonce, const char *arg);
int evio_nonce_file(void *nonce, const char *arg);
/* A public key file (PEM or DER) as DER SubjectPublicKeyInfo, malloc'ed. */
int evio_pubkey_der_alloc(const char *path, uint8_t **der, size_t *len);
/* DER SubjectPublicKeyInfo written as PEM. */
int evio_write_pubkey_pem(const char *path, const uint8_t *der, size_t len);

#endif
