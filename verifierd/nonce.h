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
	const char *count;   /* drops the expired ones of $1 the machine's id and counts the others */
	const char *insert;  /* stores $1 the nonce, $2 the machine's id, $3 its lifetime in seconds */
	const char *storing; /* the statements' name in the log: "storing a nonce" */
	const char *stored;  /* the failure's in the reply: "storing the nonce" */
	const char *pending; /* what the 429 answer counts: "unanswered nonces" */
};

/* The nonces of attestations (docs/VERIFIER.md 3.2) and of enrolments (3.8). */
extern const struct vd_nonce_kind vd_nonce_attest, vd_nonce_enrol;

/*
 * In the open transaction, holding id's lock: counts id's outstanding
 * nonces of this kind (the expired ones dropped) and refuses one beyond
 * the configured number (429), else draws len random bytes into nonce,
 * stores them, commits and writes them into hex (2 * len + 1 bytes).
 * False when rep holds the answer.
 */
bool vd_nonce_issue(const struct vd_ctx *ctx, struct vd_conn *c, const struct vd_nonce_kind *k,
		    const char *id, uint8_t *nonce, size_t len, char *hex, struct vd_reply *rep);

/*
 * Runs sql whose $1 is a nonce (len bytes) and $2 the machine's id, one
 * that finds or uses up the nonce: *row whether it returned a row.  Return:
 * UIE_OK or UIE_E_IO.
 */
int vd_nonce_row(struct vd_conn *c, const char *what, const char *sql, const uint8_t *nonce, size_t len,
		 const char *id, bool *row);

#endif
