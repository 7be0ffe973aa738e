/* SPDX-License-Identifier: Apache-2.0 */
/*
 * TPM 2.0 public areas (TPMT_PUBLIC, TPM 2.0 Library spec part 2, 12.2) of
 * the two keys an EK -> AK proof is about: the endorsement key, made from
 * the TCG EK Credential Profile's default template L-1 (RSA 2048), and
 * the attestation key that signs quotes.  Strict parsing of a marshalled
 * TPM2B_PUBLIC, the object's name, and the checks a verifier makes before
 * it makes a credential for a pair of keys.  Marshalling is tpm2-tss's;
 * docs/FORMATS.md 5.8 has the layouts and vectors.
 */
#ifndef UIE_TPM_PUBLIC_H
#define UIE_TPM_PUBLIC_H

#include <stddef.h>
#include <stdint.h>

#include <openssl/evp.h>
#include <tss2/tss2_tpm2_types.h>

#include "tpm_marshal.h"

#define UIE_TPM_EK_RSA_BYTES 256 /* template L-1: RSA 2048 */

/*
 * The EK template L-1: RSA 2048, nameAlg SHA-256, fixedTPM | fixedParent |
 * sensitiveDataOrigin | adminWithPolicy | restricted | decrypt, authPolicy
 * PolicySecret(TPM_RH_ENDORSEMENT), AES-128-CFB, no scheme, exponent 0
 * (65537); unique is the modulus n (256 bytes), or 256 zero bytes (what
 * TPM2_CreatePrimary is given) when n is NULL.
 */
void uie_tpm_ek_template(TPMT_PUBLIC *pub, const uint8_t *n);

/*
 * The attestation key of both backends: a restricted ECDSA/SHA-256 P-256
 * signing key (fixedTPM | fixedParent | sensitiveDataOrigin | userWithAuth |
 * restricted | sign), with point (x, y), or an empty unique when x and y
 * are NULL.
 */
void uie_tpm_ak_template(TPMT_PUBLIC *pub, const uint8_t *x, const uint8_t *y);

/*
 * A whole buffer holding one marshalled TPM2B_PUBLIC whose size field is
 * the length of the TPMT_PUBLIC it holds.  UIE_E_TRUNCATED, UIE_E_FORMAT
 * (size field, an empty area, trailing bytes, a value tpm2-tss refuses).
 */
int uie_tpm_public_parse(const uint8_t *p, size_t len, TPMT_PUBLIC *out);

/*
 * A whole buffer holding one marshalled TPMT_PUBLIC, without the TPM2B
 * size field (as an SVSM manifest carries the vTPM's EK).  UIE_E_FORMAT
 * for anything tpm2-tss does not read whole.
 */
int uie_tpm_tpmt_parse(const uint8_t *p, size_t len, TPMT_PUBLIC *out);
/* pub as a marshalled TPM2B_PUBLIC; *out malloc'ed, owned by the caller. */
int uie_tpm_public_alloc(const TPMT_PUBLIC *pub, uint8_t **out, size_t *len);

/*
 * The object's name: nameAlg (2 bytes, big-endian) || H_nameAlg(marshalled
 * TPMT_PUBLIC).  UIE_E_ALG for a nameAlg other than SHA-256/384/512.
 */
int uie_tpm_public_name(const TPMT_PUBLIC *pub, uint8_t name[UIE_TPM_NAME_MAX], size_t *len);

/* The OpenSSL name of a TPM hash algorithm ("SHA256" ...), NULL for one we do not take. */
const char *uie_tpm_md_name(TPM2_ALG_ID alg);

/*
 * A key a credential can be made to, the way a TPM protects it: an RSA
 * restricted decryption key (2048..4096 bits) with AES CFB as its
 * symmetric algorithm and a nameAlg uie_tpm_md_name takes.  UIE_E_ALG or
 * UIE_E_KEY, *why naming the field.
 */
int uie_tpm_ek_check(const TPMT_PUBLIC *pub, const char **why);

/*
 * A key that can only sign what its TPM made and never leaves that TPM:
 * fixedTPM, fixedParent, sensitiveDataOrigin, restricted and sign set,
 * decrypt clear (as Keylime checks an AK).  UIE_E_KEY, *why naming it.
 */
int uie_tpm_ak_check(const TPMT_PUBLIC *pub, const char **why);

/*
 * Whether the ECC P-256 public area pub holds the key pk (an attestation
 * key given as PEM to the verifier): UIE_OK, UIE_E_KEY when it is another
 * key, UIE_E_ALG when either is not P-256.
 */
int uie_tpm_public_is_key(const TPMT_PUBLIC *pub, EVP_PKEY *pk);

/* The RSA public key of an RSA public area; the caller frees *out. */
int uie_tpm_rsa_pkey(const TPMT_PUBLIC *pub, EVP_PKEY **out);

/*
 * An AK's key (ECC P-256, as uie_tpm_ak_template) as DER
 * SubjectPublicKeyInfo, the form quotes are verified with; *der from
 * OpenSSL (OPENSSL_free).  UIE_E_ALG for another kind of key, UIE_E_KEY
 * for a point off the curve.
 */
int uie_tpm_ak_spki_alloc(const TPMT_PUBLIC *pub, uint8_t **der, size_t *len);

#endif
