/* SPDX-License-Identifier: Apache-2.0 */
/* Policy-signing keys (ECDSA P-256) for the TTP tools. */
#ifndef UIE_TOOLS_KEYS_H
#define UIE_TOOLS_KEYS_H

#include <stddef.h>
#include <stdint.h>

#include <openssl/evp.h>

/* Loads a PEM private key and checks that it is ECDSA P-256; *pk owned by the caller. */
int keys_load_private(const char *path, EVP_PKEY **pk);

/* DER ECDSA signature over a 32-byte digest into sig (cap >= 72). */
int keys_sign_digest(EVP_PKEY *pk, const uint8_t digest[32], uint8_t *sig, size_t cap, size_t *siglen);

#endif
