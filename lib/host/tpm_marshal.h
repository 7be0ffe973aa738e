/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The few TPM 2.0 structures evidence needs (TPM 2.0 Library spec part 2),
 * marshalled big-endian exactly as a TPM does: TPMS_ATTEST of type
 * TPM_ST_ATTEST_QUOTE, TPMT_SIGNATURE with an ECDSA signature, and the
 * TPMT_PUBLIC / name of an ECC P-256 restricted signing key.  The
 * marshalling is tpm2-tss's (Tss2_MU_*); these functions add what it
 * leaves to the caller: our maxima, the quote type, the ECDSA arm, and no
 * trailing bytes (decoding is strict).  Encoders append to a wbuf.
 */
#ifndef UIE_TPM_MARSHAL_H
#define UIE_TPM_MARSHAL_H

#include <stddef.h>
#include <stdint.h>

#include "uie/buf.h"

#define UIE_TPM_GENERATED_VALUE 0xff544347u
#define UIE_TPM_ST_ATTEST_QUOTE 0x8018
#define UIE_TPM_ALG_ECC 0x0023
#define UIE_TPM_ALG_ECDSA 0x0018
#define UIE_TPM_ALG_SHA256 0x000B
#define UIE_TPM_ALG_NULL 0x0010
#define UIE_TPM_ECC_NIST_P256 0x0003

#define UIE_TPM_NAME_MAX 68   /* sizeof(TPMU_NAME): alg + largest digest */
#define UIE_TPM_DATA_MAX 64   /* extraData we accept (nonces) */
#define UIE_TPM_DIGEST_MAX 64 /* sizeof(TPMU_HA) */
#define UIE_TPM_PCR_SELECT_MAX 4
#define UIE_TPM_MAX_BANKS 16 /* HASH_COUNT in the reference implementation */
#define UIE_TPM_ECC_MAX 66   /* P-521 coordinate, the largest TPM2B_ECC_PARAMETER */
#define UIE_TPM_ATTEST_MAX 1024
#define UIE_TPM_SIG_MAX 256

struct uie_tpm_pcr_sel {
	uint16_t hash;
	uint8_t size_of_select;
	uint8_t select[UIE_TPM_PCR_SELECT_MAX];
};

/* TPMS_ATTEST restricted to what a quote carries. */
struct uie_tpm_quote {
	uint32_t magic;
	uint16_t type;
	uint16_t signer_len;
	uint8_t signer[UIE_TPM_NAME_MAX]; /* qualifiedSigner (TPM2B_NAME contents) */
	uint16_t extra_len;
	uint8_t extra[UIE_TPM_DATA_MAX]; /* extraData: the nonce */
	uint64_t clock;
	uint32_t reset_count;
	uint32_t restart_count;
	uint8_t safe;
	uint64_t firmware_version;
	uint32_t nsel;
	struct uie_tpm_pcr_sel sel[UIE_TPM_MAX_BANKS];
	uint16_t pcr_digest_len;
	uint8_t pcr_digest[UIE_TPM_DIGEST_MAX];
};

/* TPMT_SIGNATURE holding TPMS_SIGNATURE_ECDSA. */
struct uie_tpm_ecdsa_sig {
	uint16_t sig_alg; /* UIE_TPM_ALG_ECDSA */
	uint16_t hash_alg;
	uint16_t r_len, s_len;
	uint8_t r[UIE_TPM_ECC_MAX], s[UIE_TPM_ECC_MAX];
};

/* Encoders append to w (errors latch in w->err). */
void uie_tpm_quote_put(struct uie_wbuf *w, const struct uie_tpm_quote *q);
void uie_tpm_sig_put(struct uie_wbuf *w, const struct uie_tpm_ecdsa_sig *s);

/*
 * Decoders of a whole buffer; *out cleared first.  UIE_E_TRUNCATED,
 * UIE_E_LIMIT (a size above our maxima), UIE_E_ALG (not ECDSA) or
 * UIE_E_FORMAT (trailing bytes, bad attestation type or magic).
 */
int uie_tpm_quote_parse(const uint8_t *p, size_t len, struct uie_tpm_quote *out);
int uie_tpm_sig_parse(const uint8_t *p, size_t len, struct uie_tpm_ecdsa_sig *out);

/*
 * Marshalled TPMT_PUBLIC of the restricted ECDSA/SHA-256 P-256 signing
 * key with point (x, y), and its TPM name (nameAlg || SHA-256 of it).
 */
void uie_tpm_ecc_public_put(struct uie_wbuf *w, const uint8_t x[32], const uint8_t y[32]);
int uie_tpm_ecc_name(const uint8_t x[32], const uint8_t y[32], uint8_t name[34]);

/* Big-endian field access for other TPM structures. */
int uie_tpm_get16(struct uie_rbuf *b, uint16_t *v);
int uie_tpm_get32(struct uie_rbuf *b, uint32_t *v);
int uie_tpm_get64(struct uie_rbuf *b, uint64_t *v);
void uie_tpm_put16(struct uie_wbuf *w, uint16_t v);
void uie_tpm_put32(struct uie_wbuf *w, uint32_t v);
void uie_tpm_put64(struct uie_wbuf *w, uint64_t v);

#endif
