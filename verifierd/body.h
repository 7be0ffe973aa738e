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
 * How each body below is read (its members and reader, body_json.h): the
 * handlers read theirs with vd_request_body (handlers.h), the parse
 * functions below one from bytes.
 */
struct vd_body_kind;
extern const struct vd_body_kind vd_enrol_body, vd_rekey_body, vd_attest_body, vd_fleet_body,
	vd_enrol_ev_body, vd_activate_body;

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

/* Enrolment by attestation (docs/VERIFIER.md 3.8). */
#define VD_FLEET_MAX 64
#define VD_ENROL_NONCE_LEN 64 /* the SVSM's nonce (UIE_SNP_NONCE_LEN) */
#define VD_SECRET_LEN 32      /* the credential's secret (UIE_ENROL_SECRET_LEN) */
#define VD_MAX_MEASUREMENTS 256
#define VD_MEASUREMENT_LEN 48
#define VD_PEM_MAX (64u << 10)
#define VD_SNP_BLOB_MAX (64u << 10) /* report, certificate table, manifest, each */

/* Whether s is a fleet's name: 1-64 of [A-Za-z0-9._-], as a machine id. */
bool vd_fleet_name_ok(const char *s);

/* A fleet's trust (PUT /v1/fleets/NAME). */
struct vd_fleet {
	char *ark_pem, *ask_pem; /* owned; both NULL: AMD's built-in roots */
	bool simulated;          /* ark_pem is a simulated root */
	bool has_min_tcb;
	uint64_t min_tcb; /* a TCB_VERSION as the report holds it */
	uint8_t min_abi_major, min_abi_minor;
	uint32_t vmpl;
	bool any_measurement;                        /* "measurements": "any" */
	uint8_t (*measurements)[VD_MEASUREMENT_LEN]; /* owned */
	size_t nmeasurements;
};

/*
 * {"ark"?: PEM, "ask"?: PEM, "simulated"?: bool, "min_tcb"?: hex16,
 * "min_abi"?: "MAJOR.MINOR", "vmpl": 0..3, "measurements": [hex96...] or
 * "any"}: the ARK and ASK together, certificates; an ARK that is not one
 * of AMD's pinned roots only when "simulated", which needs the ARK.
 * Returns as vd_enrol_parse_alloc.
 */
int vd_fleet_parse_alloc(const char *body, size_t len, struct vd_fleet *out, char why[VD_WHY_LEN]);
void vd_fleet_free(struct vd_fleet *f);

/* The evidence of an enrolment by attestation (POST .../enrolment/evidence). */
struct vd_enrol_ev {
	uint8_t nonce[VD_ENROL_NONCE_LEN];
	char fleet[VD_FLEET_MAX + 1];
	uint8_t *report, *certs, *manifest, *ek, *ak; /* owned */
	size_t report_len, certs_len, manifest_len, ek_len, ak_len;
	bool single;
	struct vd_enrol e; /* interval, reference, policies (no id, no ak_der) */
};

/*
 * {"nonce": hex128, "fleet", "report", "certs", "manifest": base64,
 * "single"?: bool, "ek", "ak": base64 TPM2B_PUBLIC, "interval",
 * "reference"?, "policies"?}; returns as vd_enrol_parse_alloc.
 */
int vd_enrol_ev_parse_alloc(const struct uie_platform *pl, const char *body, size_t len,
			    struct vd_enrol_ev *out, char why[VD_WHY_LEN]);
void vd_enrol_ev_free(struct vd_enrol_ev *v);

/* The answer to a credential (POST .../enrolment/activate). */
struct vd_activate {
	uint8_t nonce[VD_ENROL_NONCE_LEN];
	uint8_t secret[VD_SECRET_LEN];
};

/* {"nonce": hex128, "secret": hex64}; returns as vd_enrol_parse_alloc. */
int vd_activate_parse(const char *body, size_t len, struct vd_activate *out, char why[VD_WHY_LEN]);

#endif
