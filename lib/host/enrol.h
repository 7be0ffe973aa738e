/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Enrolment by attestation (docs/ATTESTATION.md, docs/VERIFIER.md 3.8):
 * what a verifier checks before it trusts an attestation key it was not
 * given by hand.  The machine sends the SVSM's answer to the verifier's
 * 64-byte nonce (an SEV-SNP report, the GHCB certificate table, the
 * services manifest) and its vTPM's EK and AK public areas;
 * uie_enrol_check_evidence judges them in order, stopping at the first
 * step that fails and naming it:
 *
 *   report:   the report verifies under the trusted roots (AMD's built-in
 *             ones, or a root given explicitly, simulated or not) and
 *             passes the appraisal (uie_snp_verify)
 *   binding:  REPORT_DATA = SHA-512(nonce || manifest) for this nonce
 *   manifest: the manifest names a vTPM EK, and it is the EK posted
 *   AK:       the AK is one a TPM keeps (uie_tpm_ak_check), a P-256 key
 *             quotes can be verified with
 *
 * Then uie_enrol_challenge seals a fresh secret to that EK under the
 * AK's name (TPM2_MakeCredential); the machine proves the AK lives in the
 * TPM of the EK by returning it (TPM2_ActivateCredential).
 */
#ifndef UIE_HOST_ENROL_H
#define UIE_HOST_ENROL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <openssl/x509.h>

#include "credential.h"
#include "snp_manifest.h"
#include "snp_verify.h"

#define UIE_ENROL_SECRET_LEN 32

/* What the machine sends: the SVSM's answer and its vTPM's two keys. */
struct uie_enrol_evidence {
	const uint8_t *report, *aux, *manifest; /* outblob, auxblob, manifestblob */
	size_t report_len, aux_len, manifest_len;
	bool single;           /* the manifest is the vTPM's data alone (service_guid set) */
	const uint8_t *ek_pub; /* marshalled TPM2B_PUBLIC, as TPM_KEYS gives it */
	size_t ek_len;
	const uint8_t *ak_pub; /* the same for the AK */
	size_t ak_len;
};

/* What the verifier trusts: the roots and the tenant's appraisal. */
struct uie_enrol_trust {
	X509 *ask, *ark; /* both NULL: AMD's built-in roots for the VCEK's issuer */
	bool simulated;  /* ark is a simulated root given explicitly (only with ark) */
	const struct uie_snp_policy *pol;
};

/* The verdict: v->err and v->why.msg ("report: ...", "binding: ...", "manifest: ...", "AK: ..."). */
struct uie_enrol_verdict {
	int err;
	struct uie_snp_verdict snp; /* the report's (decoded when snp.decoded) */
	char why[320];
	uint8_t *ak_der; /* on success: the AK as DER SubjectPublicKeyInfo, owned (from OpenSSL) */
	size_t ak_len;
};

/*
 * Judges ev against the nonce the verifier handed out and t, into *v
 * (freed with uie_enrol_verdict_free), and returns v->err: UIE_OK, or the
 * failing step's error (those of uie_snp_verify for "report:"; UIE_E_NONCE
 * for "binding:"; UIE_E_KEY for "manifest: EK differs ..."; UIE_E_FORMAT,
 * UIE_E_TRUNCATED, UIE_E_KEY, UIE_E_ALG for a key that does not parse or
 * is no AK); UIE_E_NOMEM, UIE_E_CRYPTO.
 */
int uie_enrol_check_evidence(const struct uie_enrol_evidence *ev, const uint8_t nonce[UIE_SNP_NONCE_LEN],
			     const struct uie_enrol_trust *t, struct uie_enrol_verdict *v);
void uie_enrol_verdict_free(struct uie_enrol_verdict *v);

/*
 * The challenge: a fresh secret (UIE_ENROL_SECRET_LEN bytes into secret)
 * made into a credential for the AK's name sealed to the EK, as the
 * credential file of tpm2-tools (uie_credential_file_put) in *cred,
 * malloc'ed.  Return: UIE_OK, the error of uie_credential_make (*why
 * naming it), UIE_E_CRYPTO (no randomness), UIE_E_NOMEM.
 */
int uie_enrol_challenge_alloc(const uint8_t *ek_pub, size_t ek_len, const uint8_t *ak_pub, size_t ak_len,
			      uint8_t secret[UIE_ENROL_SECRET_LEN], uint8_t **cred, size_t *cred_len,
			      const char **why);

#endif
