/* SPDX-License-Identifier: Apache-2.0 */
/* GET /v1/machines: every machine with its status and silence (docs/VERIFIER.md 3.5). */
#include "handlers.h"
#include "status.h"

void vd_h_list(const struct vd_ctx *ctx, struct vd_conn *c, const struct vd_request *req,
	       struct vd_reply *rep)
{
	json_t *a;
	int n;

	(void)req;
	if (!(a = vd_status_alloc(ctx, c, NULL, &n)))
		vd_reply_db(rep, "listing the machines");
	else
		vd_reply_json(rep, 200, json_pack("{s:o}", "machines", a));
}
