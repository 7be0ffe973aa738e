/* SPDX-License-Identifier: Apache-2.0 */
/* The agent's options and the pieces of a round that enrolment shares (docs/VERIFIER.md 6). */
#ifndef UIE_TOOLS_ATTEST_ATTEST_H
#define UIE_TOOLS_ATTEST_ATTEST_H

#include <stdbool.h>
#include <stdint.h>

#include <jansson.h>

#include "http.h"

#define ATTEST_MAX_POLICIES 16

struct attest_opts {
	const char *socket, *machine;
	struct uie_http_opts http;
	uint64_t interval;
	/* --enrol: enrolment by attestation first (docs/VERIFIER.md 3.8) */
	bool enrol;
	const char *fleet, *configfs, *reference;
	const char *policies[ATTEST_MAX_POLICIES];
	unsigned npolicies;
};

/*
 * What the verifier answered for what: UIE_OK when the status is want
 * and a JSON object came; else the code and reason on stderr, UIE_E_PEER
 * (or r, the request's own error).
 */
int attest_answer(const char *what, int r, long status, long want, json_t *reply);

/*
 * Enrolment by attestation with the monitor at fd: the verifier's nonce,
 * the vTPM's keys (TPM_KEYS), the SEV-SNP report for that nonce (from the
 * monitor's SNP_REPORT, or from configfs-tsm's directory o->configfs),
 * the evidence posted, the credential activated by the vTPM (ACTIVATE),
 * its secret posted.  UIE_OK when the machine is enrolled (now, or
 * already: said on stderr); else the error, said on stderr.
 */
int attest_enrol(struct uie_http *h, const struct attest_opts *o, int fd);

#endif
