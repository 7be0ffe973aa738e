/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Credential protection (TPM 2.0 Library spec part 1, 24 "Credential
 * Protection"; part 3 TPM2_MakeCredential / TPM2_ActivateCredential), the
 * way a verifier proves that an attestation key lives in the same TPM as
 * an endorsement key: it makes a credential for the AK's name sealed to
 * the EK, and only the TPM holding both keys can return it.
 *
 *   seed        random, nameAlg-digest bytes; secret = RSA-OAEP(EK, nameAlg,
 *               label "IDENTITY\0", seed) as a TPM2B_ENCRYPTED_SECRET
 *   symKey      KDFa(nameAlg, seed, "STORAGE", AK name, "", EK symmetric bits)
 *   hmacKey     KDFa(nameAlg, seed, "INTEGRITY", "", "", nameAlg digest bits)
 *   encIdentity AES-CFB(symKey, IV 0, TPM2B_DIGEST(credential))
 *   blob        TPM2B_ID_OBJECT{TPM2B_DIGEST(HMAC(hmacKey, encIdentity ||
 *               AK name)) || encIdentity}
 *
 * The verifier side (make) and the TPM side in software (activate, for the
 * built-in vTPM) are here; crypto is OpenSSL's (KBKDF, RSA-OAEP, AES-CFB,
 * HMAC), marshalling tpm2-tss's.  docs/FORMATS.md 5.8 has vectors.
 *
 * Activation refuses with:
 *   UIE_E_KEY        the secret does not open with this EK (made to another
 *                    EK, or altered)
 *   UIE_E_SIGNATURE  the blob's integrity HMAC does not hold for this AK's
 *                    name (made for another AK, or altered)
 *   UIE_E_FORMAT, UIE_E_TRUNCATED, UIE_E_LIMIT  a malformed blob or secret
 */
#ifndef UIE_CREDENTIAL_H
#define UIE_CREDENTIAL_H

#include <stddef.h>
#include <stdint.h>

#include <openssl/evp.h>
#include <tss2/tss2_tpm2_types.h>

#include "uie/buf.h"

#define UIE_CRED_MAX 64 /* a TPM2B_DIGEST: sizeof(TPMU_HA) */

/*
 * KDFa (part 1, 11.4.10.2): SP 800-108 counter mode with HMAC-md over
 * [i]32 || label || 0x00 || ctx_u || ctx_v || [8 * out_len]32.
 */
int uie_kdfa(const char *md, const uint8_t *key, size_t key_len, const char *label, const uint8_t *ctx_u,
	     size_t u_len, const uint8_t *ctx_v, size_t v_len, uint8_t *out, size_t out_len);

/*
 * TPM2_MakeCredential in software.  ek_pub and ak_pub are marshalled
 * TPM2B_PUBLIC; cred has 1 .. digest size of the EK's nameAlg bytes.  The
 * AK must pass uie_tpm_ak_check and the EK uie_tpm_ek_check (*why names
 * what failed).  *blob gets the marshalled TPM2B_ID_OBJECT and *secret the
 * marshalled TPM2B_ENCRYPTED_SECRET, both malloc'ed and owned by the caller.
 */
int uie_credential_make(const uint8_t *ek_pub, size_t ek_len, const uint8_t *ak_pub, size_t ak_len,
			const uint8_t *cred, size_t cred_len, uint8_t **blob, size_t *blob_len,
			uint8_t **secret, size_t *secret_len, const char **why);

/*
 * The blob for a given seed (what make does after drawing the seed): the
 * marshalled TPM2B_ID_OBJECT into out (cap bytes).  For the vectors.
 */
int uie_credential_wrap(const TPMT_PUBLIC *ek, const uint8_t *name, size_t name_len, const uint8_t *seed,
			size_t seed_len, const uint8_t *cred, size_t cred_len, uint8_t *out, size_t cap,
			size_t *out_len);

/* The TPM's side of wrap: checks the HMAC and decrypts; errors as above. */
int uie_credential_unwrap(const TPMT_PUBLIC *ek, const uint8_t *name, size_t name_len, const uint8_t *seed,
			  size_t seed_len, const uint8_t *blob, size_t blob_len, uint8_t cred[UIE_CRED_MAX],
			  size_t *cred_len);

/*
 * TPM2_ActivateCredential in software: ek is the private EK whose public
 * area is ek_pub, name the AK's name.  Errors as above.
 */
int uie_credential_activate(EVP_PKEY *ek, const TPMT_PUBLIC *ek_pub, const uint8_t *name, size_t name_len,
			    const uint8_t *blob, size_t blob_len, const uint8_t *secret, size_t secret_len,
			    uint8_t cred[UIE_CRED_MAX], size_t *cred_len);

/*
 * The credential file of tpm2-tools (tpm2_makecredential -o,
 * tpm2_activatecredential -i): u32 0xBADCC0DE, u32 version 1, the blob
 * (TPM2B_ID_OBJECT), the secret (TPM2B_ENCRYPTED_SECRET), big-endian.
 * Encoding appends to w; parsing takes a whole buffer and points into it
 * (UIE_E_FORMAT: magic, version or trailing bytes; UIE_E_TRUNCATED).
 */
#define UIE_CRED_FILE_MAX (8 + sizeof(TPM2B_ID_OBJECT) + sizeof(TPM2B_ENCRYPTED_SECRET))
void uie_credential_file_put(struct uie_wbuf *w, const uint8_t *blob, size_t blob_len, const uint8_t *secret,
			     size_t secret_len);
int uie_credential_file_parse(const uint8_t *p, size_t len, const uint8_t **blob, size_t *blob_len,
			      const uint8_t **secret, size_t *secret_len);

/* What an activation error means, in words; never NULL. */
const char *uie_credential_reason(int err);

#endif
