/* SPDX-License-Identifier: Apache-2.0 */
/*
 * One attestation post as one transaction (docs/VERIFIER.md 2.3, 3.3):
 * lock the machine, use the nonce, verify from the stored state, store
 * the verdict and the new state.
 */
#ifndef UIE_VERIFIERD_ATTEST_H
#define UIE_VERIFIERD_ATTEST_H

#include "body.h"
#include "db.h"
#include "reply.h"
#include "vd.h"

/* Answers rep; nothing is stored unless the answer is a verdict (200). */
void vd_attest_post(const struct vd_ctx *ctx, struct vd_conn *c, const char *id, const struct vd_attest *a,
		    struct vd_reply *rep);

#endif
