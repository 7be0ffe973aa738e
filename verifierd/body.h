/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Request bodies of the fleet verifier's API (docs/VERIFIER.md 3): each
 * parsed by jansson into a struct that owns its decoded bytes.  A parse
 * that fails says why in a caller's buffer and owns nothing.
 */
#ifndef UIE_VERIFIERD_BODY_H
#define UIE_VERIFIERD_BODY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "machine_id.h"
#include "uie/platform.h"

#define VD_ID_MAX UIE_MACHINE_ID_MAX
#define VD_NONCE_LEN 32
#define VD_MAX_POLICIES 16
#define VD_REFERENCE_MAX (4u << 20)
#define VD_WHY_LEN 200

struct uie_verify_policy;

/*
 * A policy package as the verifier uses it: parsed, its table loaded
 * (pointing into buf, which must outlive out).  Checked so at enrolment and
 * again when an attestation loads it.  Return: UIE_OK or the parse's error.
 */
int vd_policy_parse(const struct uie_platform *pl, const uint8_t *buf, size_t len,
		    struct uie_verify_policy *out);

struct vd_policy_pkg {
	uint8_t *bytes; /* the package, owned */
	size_t len;
	uint64_t epoch;
};

struct vd_enrol {
	char id[VD_ID_MAX + 1];
	uint8_t *ak_der; /* DER SubjectPublicKeyInfo, owned */
	size_t ak_len;
	char *reference; /* manifest text, owned; NULL when absent */
	uint32_t interval;
	struct vd_policy_pkg pol[VD_MAX_POLICIES];
	size_t npol;
};

/*
 * {"id", "ak_pub", "interval", "reference"?, "policies"?}.  The reference
 * values are parsed as an attestation will read them, and packages with
 * vd_policy_parse for their epoch, one per epoch: what is enrolled can be
 * verified with.
 * Return: UIE_OK; UIE_E_FORMAT (not that JSON object: bad_json) or
 * UIE_E_RANGE (a value out of range: bad_field), why filled; UIE_E_NOMEM.
 */
int vd_enrol_parse_alloc(const struct uie_platform *pl, const char *body, size_t len, struct vd_enrol *out,
			 char why[VD_WHY_LEN]);
void vd_enrol_free(struct vd_enrol *e);

/* The body of a re-keying (PUT .../ak): {"ak_pub"}. */
struct vd_rekey {
	uint8_t *ak_der; /* DER SubjectPublicKeyInfo, owned */
	size_t ak_len;
};

/* {"ak_pub": PEM}; returns as vd_enrol_parse_alloc. */
int vd_rekey_parse_alloc(const char *body, size_t len, struct vd_rekey *out, char why[VD_WHY_LEN]);
void vd_rekey_free(struct vd_rekey *k);

struct vd_attest {
	uint8_t nonce[VD_NONCE_LEN];
	uint8_t *ae; /* owned */
	size_t ae_len;
};

/* {"nonce": hex, "evidence": base64}; returns as vd_enrol_parse_alloc. */
int vd_attest_parse_alloc(const char *body, size_t len, struct vd_attest *out, char why[VD_WHY_LEN]);
void vd_attest_free(struct vd_attest *a);

#endif
