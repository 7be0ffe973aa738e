/* SPDX-License-Identifier: Apache-2.0 */
/*
 * POST /v1/machines/ID/enrolment/nonce: the 64-byte nonce an enrolment by
 * attestation starts with, stored for every verifier (docs/VERIFIER.md 3.8).
 */
#include "handlers.h"

#include "body.h"
#include "nonce.h"
#include "uie/err.h"

static const struct vd_nonce_kind kind = {
	.insert = "INSERT INTO enrolments (nonce, machine_id, expires_at) VALUES "
		  "($1, $2, now() + make_interval(secs => $3))",
	.storing = "storing an enrolment nonce",
	.stored = "storing the enrolment nonce",
	.pending = "enrolments under way",
};

/* Whether id is enrolled, and how many of its enrolments are under way (the expired ones dropped). */
static int outstanding(struct vd_conn *c, const char *id, bool *enrolled, uint64_t *n)
{
	PGresult *res;

	if (!(res = vd_db_query_key(
		      c, "issuing an enrolment nonce",
		      "WITH expired AS (DELETE FROM enrolments WHERE machine_id = $1 AND expires_at <= "
		      "now()) SELECT (SELECT count(*) FROM machines WHERE id = $1), (SELECT count(*) "
		      "FROM enrolments WHERE machine_id = $1 AND expires_at > now())",
		      id)))
		return UIE_E_IO;
	*enrolled = vd_db_u64(res, 0, 0) != 0;
	*n = vd_db_u64(res, 0, 1);
	PQclear(res);
	return UIE_OK;
}

void vd_h_enrol_nonce(const struct vd_ctx *ctx, struct vd_conn *c, const struct vd_request *req,
		      struct vd_reply *rep)
{
	struct vd_params p = { 0 };
	uint8_t nonce[VD_ENROL_NONCE_LEN];
	char hex[2 * VD_ENROL_NONCE_LEN + 1];
	bool enrolled = false;
	uint64_t n = 0;

	/* One at a time per id: the advisory lock of the id's hash, held to the transaction's end. */
	vd_param_text(&p, req->id);
	if (vd_db_exec(c, "issuing an enrolment nonce", "BEGIN", NULL) != UIE_OK ||
	    vd_db_exec(c, "issuing an enrolment nonce", "SELECT pg_advisory_xact_lock(hashtext($1))", &p) !=
		    UIE_OK ||
	    outstanding(c, req->id, &enrolled, &n) != UIE_OK) {
		vd_reply_db(rep, "issuing an enrolment nonce");
		return;
	}
	if (enrolled) {
		vd_reply_error(rep, 409, "exists", "machine \"%s\" is enrolled already", req->id);
		return;
	}
	if (!vd_nonce_issue(ctx, c, &kind, req->id, n, nonce, sizeof(nonce), hex, rep))
		return;
	vd_reply_json(rep, 201,
		      json_pack("{s:s, s:I}", "nonce", hex, "expires_in", (json_int_t)ctx->cfg->nonce_ttl));
}
