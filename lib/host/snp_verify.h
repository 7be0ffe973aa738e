/* SPDX-License-Identifier: Apache-2.0 */
/*
 * An SEV-SNP attestation report judged whole: decoded, its VCEK chained
 * to a pinned AMD root (or to a simulated root the caller gave
 * explicitly), its signature verified, the VCEK's extensions matched to
 * it, then appraised against the tenant's policy.  The first failing step
 * decides, with a typed error and a sentence naming the field or the
 * certificate (docs/ATTESTATION.md).
 */
#ifndef UIE_HOST_SNP_VERIFY_H
#define UIE_HOST_SNP_VERIFY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <openssl/x509.h>

#include "snp_cert.h"
#include "snp_report.h"

/* The tenant's appraisal (snp_appraise.c). */
struct uie_snp_policy {
	bool allow_debug;           /* else POLICY.DEBUG must be clear */
	bool allow_migration_agent; /* else POLICY.MIGRATE_MA must be clear */
	bool check_vmpl;            /* VMPL must equal vmpl */
	uint32_t vmpl;
	uint8_t min_abi_major, min_abi_minor; /* firmware CURRENT_MAJOR.CURRENT_MINOR at least */
	bool check_min_tcb;                   /* every component of REPORTED_TCB at least min_tcb's */
	uint64_t min_tcb;                     /* in the report's own TCB_VERSION layout */
	const uint8_t (*measurements)[UIE_SNP_MEASUREMENT_LEN]; /* the allow list; none: any */
	size_t nmeasurements;
	const uint8_t *report_data; /* REPORT_DATA must equal these 64 bytes, or NULL */
};

/*
 * The report's appraisal.  UIE_E_DENIED naming the field (POLICY.DEBUG,
 * POLICY.MIGRATE_MA, VMPL, CURRENT_MAJOR/MINOR, REPORTED_TCB.SNP, ...,
 * MEASUREMENT), UIE_E_NONCE for REPORT_DATA.
 */
int uie_snp_appraise(const struct uie_snp_report *r, const struct uie_snp_policy *pol,
		     struct uie_snp_why *why);

/* The evidence: the report and its certificates. */
struct uie_snp_evidence {
	const uint8_t *report;
	size_t report_len;
	X509 *vcek;
	X509 *ask, *ark;     /* both NULL: the built-in roots whose ASK issued vcek */
	bool simulated_root; /* ark is a simulated root the caller gave explicitly: accept it unpinned */
	X509_CRL *crl;       /* or NULL */
};

struct uie_snp_verdict {
	int err; /* UIE_OK: the report holds and passes the appraisal */
	struct uie_snp_why why;
	bool simulated; /* the chain ends in a simulated root, not AMD's */
	bool decoded;   /* report holds the decoded fields */
	struct uie_snp_report report;
	struct uie_snp_cert_ext ext;
};

/*
 * Judges ev under pol into *v and returns v->err.  Steps, in order: the
 * report's format, the roots (the ARK pinned unless ev->simulated_root),
 * the chain, the signature, the VCEK's extensions against the report,
 * the appraisal.
 */
int uie_snp_verify(const struct uie_snp_evidence *ev, const struct uie_snp_policy *pol,
		   struct uie_snp_verdict *v);

#endif
