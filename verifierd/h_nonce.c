/* SPDX-License-Identifier: Apache-2.0 */
/* POST /v1/machines/ID/nonce: a fresh challenge, stored for every verifier (docs/VERIFIER.md 3.2). */
#include "handlers.h"

#include "body.h"
#include "nonce.h"
#include "uie/err.h"

void vd_h_nonce(const struct vd_ctx *ctx, struct vd_conn *c, const struct vd_request *req,
		struct vd_reply *rep)
{
	uint8_t nonce[VD_NONCE_LEN];
	char hex[2 * VD_NONCE_LEN + 1];
	PGresult *res = NULL;
	uint64_t since;
	bool known;

	/* Under the machine's row lock, which also orders the nonces of one machine. */
	if (vd_db_exec(c, "issuing a nonce", "BEGIN", NULL) != UIE_OK ||
	    !(res = vd_db_query_key(c, "issuing a nonce",
				    "SELECT next_seq FROM machines WHERE id = $1 FOR UPDATE", req->id))) {
		vd_reply_db(rep, "issuing a nonce");
		return;
	}
	known = PQntuples(res) == 1;
	since = known ? vd_db_u64(res, 0, 0) : 0;
	PQclear(res);
	if (!known) {
		vd_reply_unknown(rep, req->id);
		return;
	}
	if (!vd_nonce_issue(ctx, c, &vd_nonce_attest, req->id, nonce, sizeof(nonce), hex, rep))
		return;
	vd_reply_json(rep, 201,
		      json_pack("{s:s, s:I, s:I}", "nonce", hex, "since", (json_int_t)since, "expires_in",
				(json_int_t)ctx->cfg->nonce_ttl));
}
