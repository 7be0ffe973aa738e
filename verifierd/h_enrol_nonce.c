/* SPDX-License-Identifier: Apache-2.0 */
/*
 * POST /v1/machines/ID/enrolment/nonce: the 64-byte nonce an enrolment by
 * attestation starts with, stored for every verifier (docs/VERIFIER.md 3.8).
 */
#include "handlers.h"

#include "body.h"
#include "nonce.h"
#include "uie/err.h"

void vd_h_enrol_nonce(const struct vd_ctx *ctx, struct vd_conn *c, const struct vd_request *req,
		      struct vd_reply *rep)
{
	struct vd_params p = { 0 };
	uint8_t nonce[VD_ENROL_NONCE_LEN];
	char hex[2 * VD_ENROL_NONCE_LEN + 1];
	PGresult *res = NULL;
	bool enrolled;

	/* One at a time per id: the advisory lock of the id's hash, held to the transaction's end. */
	vd_param_text(&p, req->id);
	if (vd_db_exec(c, "issuing an enrolment nonce", "BEGIN", NULL) != UIE_OK ||
	    vd_db_exec(c, "issuing an enrolment nonce", "SELECT pg_advisory_xact_lock(hashtext($1))", &p) !=
		    UIE_OK ||
	    !(res = vd_db_query_key(c, "issuing an enrolment nonce",
				    "SELECT count(*) FROM machines WHERE id = $1", req->id))) {
		vd_reply_db(rep, "issuing an enrolment nonce");
		return;
	}
	enrolled = vd_db_u64(res, 0, 0) != 0;
	PQclear(res);
	if (enrolled) {
		vd_reply_error(rep, 409, "exists", "machine \"%s\" is enrolled already", req->id);
		return;
	}
	if (!vd_nonce_issue(ctx, c, &vd_nonce_enrol, req->id, nonce, sizeof(nonce), hex, rep))
		return;
	vd_reply_json(rep, 201,
		      json_pack("{s:s, s:I}", "nonce", hex, "expires_in", (json_int_t)ctx->cfg->nonce_ttl));
}
