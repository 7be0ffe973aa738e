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

#endif
