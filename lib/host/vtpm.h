/* SPDX-License-Identifier: Apache-2.0 */
/*
 * vTPM backends of the monitor behind one interface: the built-in one (a
 * software PCR bank and an ECDSA P-256 attestation key producing TPM 2.0
 * quote structures) and a real TPM 2.0 through tpm2-tss ESYS (swtpm in
 * tests).  Only the monitor holds a backend; nothing the guest sends can
 * reach PCR 16 except through the core's log sink.
 */
#ifndef UIE_VTPM_H
#define UIE_VTPM_H

#include <stddef.h>
#include <stdint.h>

#include "uie/slog.h"

struct uie_vtpm;

/*
 * Opens a backend from a spec:
 *   "builtin:KEYFILE"   built-in; KEYFILE holds the attestation private key
 *                       (PEM), created with mode 0600 if missing
 *   "swtpm:HOST:PORT"   tpm2-tss with the swtpm TCTI over TCP
 *   "swtpm:/PATH"       the same over the unix socket PATH (control: PATH.ctrl)
 *   "device:PATH"       tpm2-tss with the device TCTI
 * Every backend starts with PCR 16 at zero (the TPM backends reset it at
 * open), matching a log that starts at record 0.
 * The caller owns *out and frees it with uie_vtpm_free.
 */
int uie_vtpm_open(const char *spec, struct uie_vtpm **out);
void uie_vtpm_free(struct uie_vtpm *t);

/* PCR 16 (SHA-256 bank) <- SHA-256(PCR 16 || lrh). */
int uie_vtpm_extend(struct uie_vtpm *t, const uint8_t lrh[UIE_PCR_LEN]);
int uie_vtpm_read_pcr16(struct uie_vtpm *t, uint8_t pcr[UIE_PCR_LEN]);

/*
 * Quote over PCR 16 (SHA-256) with nonce as qualifying data.  *attest gets
 * the marshalled TPMS_ATTEST (the contents of a TPM2B_ATTEST, without its
 * size field) and *sig the marshalled TPMT_SIGNATURE; both malloc'ed and
 * owned by the caller.
 */
int uie_vtpm_quote_alloc(struct uie_vtpm *t, const uint8_t *nonce, size_t nonce_len, uint8_t **attest,
			 size_t *attest_len, uint8_t **sig, size_t *sig_len);

/* Attestation public key as DER SubjectPublicKeyInfo, owned by the caller. */
int uie_vtpm_pubkey_alloc(struct uie_vtpm *t, uint8_t **der, size_t *len);

/*
 * The endorsement key's and the attestation key's public areas, each a
 * marshalled TPM2B_PUBLIC owned by the caller.  The EK is the TCG EK
 * Credential Profile's template L-1 (RSA 2048; lib/host/tpm_public.h):
 * the tpm2-tss backends create it with TPM2_CreatePrimary in the
 * endorsement hierarchy at open, the built-in one keeps its key in
 * KEYFILE.ek (PEM, created 0600 if missing).
 */
int uie_vtpm_ek_public_alloc(struct uie_vtpm *t, uint8_t **pub, size_t *len);
int uie_vtpm_ak_public_alloc(struct uie_vtpm *t, uint8_t **pub, size_t *len);

/*
 * TPM2_ActivateCredential with the AK as the object and the EK as the key
 * that opens the secret (lib/host/credential.h): blob is a marshalled
 * TPM2B_ID_OBJECT, secret a marshalled TPM2B_ENCRYPTED_SECRET.  On success
 * cred (UIE_CRED_MAX bytes) holds *cred_len bytes of the credential.
 * Refusals as in credential.h (UIE_E_KEY: another EK; UIE_E_SIGNATURE:
 * another AK; UIE_E_FORMAT ...: malformed); UIE_E_TPM for anything else
 * the TPM says.
 */
int uie_vtpm_activate_credential(struct uie_vtpm *t, const uint8_t *blob, size_t blob_len,
				 const uint8_t *secret, size_t secret_len, uint8_t *cred, size_t *cred_len);

#endif
