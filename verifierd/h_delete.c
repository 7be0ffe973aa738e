/* SPDX-License-Identifier: Apache-2.0 */
/* DELETE /v1/machines/ID: a machine, its policies, nonces and verdicts (docs/VERIFIER.md 3.6). */
#include "handlers.h"

void vd_h_delete(const struct vd_ctx *ctx, struct vd_conn *c, const struct vd_request *req,
		 struct vd_reply *rep)
{
	struct vd_params p = { 0 };
	PGresult *res;

	(void)ctx;
	vd_param_text(&p, req->id);
	/* One statement: the cascade takes the rest; a post holding the row lock finishes first. */
	if (!(res = vd_db_query(c, "deleting a machine", "DELETE FROM machines WHERE id = $1 RETURNING id",
				&p))) {
		vd_reply_db(rep, "deleting the machine");
		return;
	}
	if (PQntuples(res) == 1)
		rep->status = 204;
	else
		vd_reply_unknown(rep, req->id);
	PQclear(res);
}
