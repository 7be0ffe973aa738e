/* SPDX-License-Identifier: Apache-2.0 */
/* GET /v1/machines/ID: one machine, its state and first bad verdict (docs/VERIFIER.md 3.5). */
#include "handlers.h"
#include "status.h"

void vd_h_machine(const struct vd_ctx *ctx, struct vd_conn *c, const struct vd_request *req,
		  struct vd_reply *rep)
{
	json_t *a;
	int n;

	if (!(a = vd_status_alloc(ctx, c, req->id, &n))) {
		vd_reply_db(rep, "reading the machine");
		return;
	}
	if (n == 1)
		vd_reply_json(rep, 200, json_incref(json_array_get(a, 0)));
	else
		vd_reply_unknown(rep, req->id);
	json_decref(a);
}
