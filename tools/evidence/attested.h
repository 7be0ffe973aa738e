/* SPDX-License-Identifier: Apache-2.0 */
/*
 * `uie verify` without a hand-given AK (issue 26, docs/ATTESTATION.md):
 * the machine's SEV-SNP attestation (configfs-tsm's files, `--snp DIR`,
 * for the verifier's `--snp-nonce`) vouches for its vTPM's EK; the
 * credential challenge made to that EK (`--challenge`, from `uie
 * credential make --challenge`) and the machine's answer (`--activated`)
 * prove that the AK (`--ak`, its TPM2B_PUBLIC) lives in the same TPM; that
 * AK then verifies the evidence.  The same inputs as an enrolment by
 * attestation in uie-verifierd.
 */
#ifndef UIE_TOOLS_EVIDENCE_ATTESTED_H
#define UIE_TOOLS_EVIDENCE_ATTESTED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "snp/snp_check.h"

struct attested {
	struct snp_check c;
	const char *snp, *snp_nonce, *ak, *challenge, *activated;
	uint8_t nonce[UIE_SNP_NONCE_LEN];
	/* after attested_ak_alloc */
	bool simulated;
	uint8_t measurement[UIE_SNP_MEASUREMENT_LEN];
};

/* The options' rows for uie verify's table, into *a. */
#define ATTESTED_OPTS(a)                                                                            \
	SNP_CHECK_OPTS(&(a)->c), UIE_OPT_STRING("snp", 0, &(a)->snp),                               \
		UIE_OPT_STRING("snp-nonce", 0, &(a)->snp_nonce), UIE_OPT_STRING("ak", 0, &(a)->ak), \
		UIE_OPT_STRING("challenge", 0, &(a)->challenge),                                    \
		UIE_OPT_STRING("activated", 0, &(a)->activated)

void attested_init(struct attested *a, const char *prog);

/* Whether any of the attestation options was given. */
bool attested_given(const struct attested *a);

/* After parsing: all five given, the nonce decoded, the tenant's options checked; UIE_OPTS_GO or the exit status. */
int attested_finish(struct attested *a);

/*
 * The whole chain, each link said on stderr when it fails: the report
 * verified and appraised, bound to the nonce, its EK the challenge's, the
 * AK the challenge's and an AK, the answer the secret.  Then *der (from
 * OpenSSL: OPENSSL_free) is the AK as DER SubjectPublicKeyInfo.  UIE_OK,
 * or the first link's error.
 */
int attested_ak_alloc(struct attested *a, uint8_t **der, size_t *len);

#endif
