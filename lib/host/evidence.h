/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Attestation evidence AE = {Nonce || IE || Quote}, IE = {SL || PM || vPCR16}
 * (paper equations 1-3); byte format in docs/FORMATS.md section 5.
 */
#ifndef UIE_EVIDENCE_H
#define UIE_EVIDENCE_H

#include <stddef.h>
#include <stdint.h>

#include "uie/slog.h"

/* Policy metadata PM. */
struct uie_policy_meta {
	uint8_t mode;
	uint64_t epoch;
	uint8_t policy_id[32];  /* package hash of the active policy, zero in bootstrap */
	uint64_t total_records; /* records in the monitor's log at export time */
};

/* Parsed view of an AE; pointers reference the buffer given to parse. */
struct uie_ae {
	const uint8_t *nonce;
	size_t nonce_len;
	uint64_t first_seq;             /* number of the first record included */
	uint64_t nrecords;              /* records included */
	const uint8_t *records;         /* nrecords * UIE_LOG_RECORD_LEN bytes */
	uint8_t start_pcr[UIE_PCR_LEN]; /* vPCR16 before first_seq (zero when 0) */
	struct uie_policy_meta pm;
	uint8_t vpcr[UIE_PCR_LEN];
	const uint8_t *attest; /* TPMS_ATTEST */
	size_t attest_len;
	const uint8_t *sig; /* TPMT_SIGNATURE */
	size_t sig_len;
};

/* Builds an AE; *out is malloc'ed and owned by the caller. */
int uie_ae_build_alloc(const struct uie_ae *ae, uint8_t **out, size_t *out_len);

/*
 * The AE of ae without its records: *head (the bytes before SL, which
 * announce ae->nrecords) and *tail (PM, vPCR16 and the quote), both
 * malloc'ed and owned by the caller; head || records || tail is what
 * uie_ae_build_alloc builds.  ae->records is not read.  Lets the monitor
 * write a long log out in pieces.  Return: as uie_ae_build_alloc.
 */
int uie_ae_frame_alloc(const struct uie_ae *ae, uint8_t **head, size_t *head_len, uint8_t **tail,
		       size_t *tail_len);

/* Parses and bounds-checks an AE in place; clears *out first. */
int uie_ae_parse(const uint8_t *buf, size_t len, struct uie_ae *out);

#endif
