/* SPDX-License-Identifier: Apache-2.0 */
/* Backend side of lib/host/vtpm.h: each backend embeds struct uie_vtpm first. */
#ifndef UIE_VTPM_IMPL_H
#define UIE_VTPM_IMPL_H

#include <stddef.h>
#include <stdint.h>

#include <tss2/tss2_tpm2_types.h>

#include "credential.h"
#include "vtpm.h"

struct uie_vtpm_ops {
	int (*extend)(struct uie_vtpm *t, const uint8_t lrh[UIE_PCR_LEN]);
	int (*read_pcr16)(struct uie_vtpm *t, uint8_t pcr[UIE_PCR_LEN]);
	int (*quote_alloc)(struct uie_vtpm *t, const uint8_t *nonce, size_t nonce_len, uint8_t **attest,
			   size_t *attest_len, uint8_t **sig, size_t *sig_len);
	/* TPM2_ActivateCredential (blob and secret are whole marshalled TPM2Bs). */
	int (*activate)(struct uie_vtpm *t, const uint8_t *blob, size_t blob_len, const uint8_t *secret,
			size_t secret_len, uint8_t cred[UIE_CRED_MAX], size_t *cred_len);
	void (*free)(struct uie_vtpm *t);
};

struct uie_vtpm {
	const struct uie_vtpm_ops *ops;
	/* Filled in by the backend at open, kept to free: the public areas of
	 * the EK and of the AK, and the AK's point (P-256). */
	TPMT_PUBLIC ak_pub, ek_pub;
	uint8_t x[32], y[32];
};

/* "KEYFILE" of a builtin: spec. */
int uie_vtpm_builtin_open(const char *keyfile, struct uie_vtpm **out);
/* A tpm2-tss TCTI configuration string ("swtpm:host=H,port=P", "device:/dev/tpmrm0"). */
int uie_vtpm_tss_open(const char *tcti_conf, struct uie_vtpm **out);

/* DER SubjectPublicKeyInfo of the P-256 point (x, y); *der owned by the caller. */
int uie_vtpm_ecc_spki_alloc(const uint8_t x[32], const uint8_t y[32], uint8_t **der, size_t *len);

/* Nonce sizes a quote accepts (TPM2B_DATA of our quotes). */
#define UIE_VTPM_NONCE_MIN 1

#endif
