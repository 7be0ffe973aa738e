/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Public keys as every part reads them: the policy-signing keys the monitor
 * trusts and the TTP tools sign with, and the attestation key the verifier
 * is given.  One reading (PEM, or else DER SubjectPublicKeyInfo) and one key
 * id, so that the monitor and the tools cannot disagree on either.
 */
#ifndef UIE_HOST_PUBKEY_H
#define UIE_HOST_PUBKEY_H

#include <stddef.h>
#include <stdint.h>

#include <openssl/evp.h>

/*
 * The public key in p[0..n): a PEM "PUBLIC KEY" block, or else a DER
 * SubjectPublicKeyInfo.  *pk is allocated for the caller (EVP_PKEY_free);
 * UIE_E_KEY, with *pk NULL, when p is neither.
 */
int uie_pubkey_parse_alloc(const uint8_t *p, size_t n, EVP_PKEY **pk);

/*
 * The same from the file at path (any file that reads to its end, a pipe
 * too; at most UIE_PUBKEY_FILE_MAX bytes): also the error of the failing
 * call when it cannot be opened or read (UIE_E_NOTFOUND, UIE_E_ACCESS,
 * UIE_E_IO; errno set), UIE_E_LIMIT, UIE_E_NOMEM.
 */
#define UIE_PUBKEY_FILE_MAX (1u << 20)
int uie_pubkey_read_alloc(const char *path, EVP_PKEY **pk);

/*
 * A key's id: SHA-256 of its DER SubjectPublicKeyInfo, the id a package
 * names its signer by (docs/FORMATS.md).  UIE_E_CRYPTO on failure.
 */
int uie_pubkey_id(EVP_PKEY *pk, uint8_t id[32]);

#endif
