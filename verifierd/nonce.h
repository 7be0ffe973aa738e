/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Issuing a nonce, the part an attestation's (docs/VERIFIER.md 3.2) and an
 * enrolment's (3.8) share: the limit, the random bytes, the stored row.
 */
#ifndef UIE_VERIFIERD_NONCE_H
#define UIE_VERIFIERD_NONCE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "db.h"
#include "reply.h"
#include "vd.h"

struct vd_nonce_kind {
	const char *insert;  /* stores $1 the nonce, $2 the machine's id, $3 its lifetime in seconds */
	const char *storing; /* the statements' name in the log: "storing a nonce" */
	const char *stored;  /* the failure's in the reply: "storing the nonce" */
	const char *pending; /* what the 429 answer counts: "unanswered nonces" */
};

/*
 * In the open transaction, with n nonces of this kind outstanding for id:
 * refuses a nonce beyond the configured number (429), else draws len random
 * bytes into nonce, stores them, commits and writes them into hex (2 * len
 * + 1 bytes).  False when rep holds the answer.
 */
bool vd_nonce_issue(const struct vd_ctx *ctx, struct vd_conn *c, const struct vd_nonce_kind *k,
		    const char *id, uint64_t n, uint8_t *nonce, size_t len, char *hex, struct vd_reply *rep);

#endif
