/* SPDX-License-Identifier: Apache-2.0 */
/* POST /v1/machines/ID/nonce: a fresh challenge, stored for every verifier (docs/VERIFIER.md 3.2). */
#include "handlers.h"

#include "body.h"
#include "nonce.h"
#include "uie/err.h"

static const struct vd_nonce_kind kind = {
	.insert = "INSERT INTO nonces (nonce, machine_id, expires_at) VALUES "
		  "($1, $2, now() + make_interval(secs => $3))",
	.storing = "storing a nonce",
	.stored = "storing the nonce",
	.pending = "unanswered nonces",
};

/* Under the machine's row lock: drops its expired nonces, counts the others. */
static int outstanding(struct vd_conn *c, const char *id, bool *known, uint64_t *since, uint64_t *n)
{
	PGresult *res;

	if (!(res = vd_db_query_key(c, "issuing a nonce",
				    "SELECT next_seq FROM machines WHERE id = $1 FOR UPDATE", id)))
		return UIE_E_IO;
	*known = PQntuples(res) == 1;
	*since = *known ? vd_db_u64(res, 0, 0) : 0;
	PQclear(res);
	if (!*known)
		return UIE_OK;
	if (!(res = vd_db_query_key(
		      c, "counting nonces",
		      "WITH expired AS (DELETE FROM nonces WHERE machine_id = $1 "
		      "AND expires_at <= now()) SELECT count(*) FROM nonces WHERE machine_id = $1 AND "
		      "expires_at > now()",
		      id)))
		return UIE_E_IO;
	*n = vd_db_u64(res, 0, 0);
	PQclear(res);
	return UIE_OK;
}

void vd_h_nonce(const struct vd_ctx *ctx, struct vd_conn *c, const struct vd_request *req,
		struct vd_reply *rep)
{
	uint8_t nonce[VD_NONCE_LEN];
	char hex[2 * VD_NONCE_LEN + 1];
	uint64_t since = 0, n = 0;
	bool known = false;

	if (vd_db_exec(c, "issuing a nonce", "BEGIN", NULL) != UIE_OK ||
	    outstanding(c, req->id, &known, &since, &n) != UIE_OK) {
		vd_reply_db(rep, "issuing a nonce");
		return;
	}
	if (!known) {
		vd_reply_unknown(rep, req->id);
		return;
	}
	if (!vd_nonce_issue(ctx, c, &kind, req->id, n, nonce, sizeof(nonce), hex, rep))
		return;
	vd_reply_json(rep, 201,
		      json_pack("{s:s, s:I, s:I}", "nonce", hex, "since", (json_int_t)since, "expires_in",
				(json_int_t)ctx->cfg->nonce_ttl));
}
