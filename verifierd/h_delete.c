/* SPDX-License-Identifier: Apache-2.0 */
/* DELETE /v1/machines/ID: a machine, its policies, nonces and verdicts (docs/VERIFIER.md 3.6). */
#include "handlers.h"

#include "uie/err.h"

void vd_h_delete(const struct vd_ctx *ctx, struct vd_conn *c, const struct vd_request *req,
		 struct vd_reply *rep)
{
	struct vd_params p = { 0 };
	bool found;

	(void)ctx;
	vd_param_text(&p, req->id);
	/* One statement: the cascade takes the rest; a post holding the row lock finishes first. */
	if (vd_db_row(c, "deleting a machine", "DELETE FROM machines WHERE id = $1 RETURNING id", &p,
		      &found) != UIE_OK)
		vd_reply_db(rep, "deleting the machine");
	else if (found)
		rep->status = 204;
	else
		vd_reply_unknown(rep, req->id);
}
