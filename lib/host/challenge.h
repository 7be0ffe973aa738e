/* SPDX-License-Identifier: Apache-2.0 */
/*
 * What a verifier keeps of a credential challenge it made (docs/FORMATS.md
 * 5.8, "challenge file"): the names of the EK it was sealed to and of the
 * AK it was made for, and the SHA-256 of the secret, so that an answer
 * can later be judged against the EK an attestation report vouches for
 * and the AK whose quotes are then trusted, without keeping the secret.
 */
#ifndef UIE_HOST_CHALLENGE_H
#define UIE_HOST_CHALLENGE_H

#include <stddef.h>
#include <stdint.h>

#include <tss2/tss2_tpm2_types.h>

#include "tpm_public.h"

struct uie_challenge {
	uint8_t ek_name[UIE_TPM_NAME_MAX], ak_name[UIE_TPM_NAME_MAX];
	size_t ek_name_len, ak_name_len;
	uint8_t secret_sha256[32];
};

/* The challenge of a credential made to ek for ak with secret[0..n). */
int uie_challenge_of(const TPMT_PUBLIC *ek, const TPMT_PUBLIC *ak, const uint8_t *secret, size_t n,
		     struct uie_challenge *out);

/* c as its JSON text (malloc'ed, ends in a newline). */
int uie_challenge_json_alloc(const struct uie_challenge *c, char **text, size_t *len);

/* The JSON text p[0..n) into *out; UIE_E_FORMAT naming the field in *why. */
int uie_challenge_parse(const uint8_t *p, size_t n, struct uie_challenge *out, const char **why);

/*
 * The machine's answer against c, for the EK a report vouches for and the
 * AK to be trusted: UIE_E_KEY when c was made to another EK, UIE_E_SIGNATURE
 * for another AK, UIE_E_DENIED when answer is not the secret (its TPM does
 * not hold both keys); the sentence in *why.
 */
int uie_challenge_check(const struct uie_challenge *c, const TPMT_PUBLIC *ek, const TPMT_PUBLIC *ak,
			const uint8_t *answer, size_t n, const char **why);

#endif
