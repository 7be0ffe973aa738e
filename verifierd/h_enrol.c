/* SPDX-License-Identifier: Apache-2.0 */
/* POST /v1/machines: enrol a machine (docs/VERIFIER.md 3.1). */
#include "handlers.h"

#include "uie/err.h"
#include "body.h"

static int insert(struct vd_conn *c, const struct vd_enrol *e, bool *exists)
{
	struct vd_params p = { 0 };
	bool added;
	int r;

	vd_param_text(&p, e->id);
	vd_param_bytes(&p, e->ak_der, e->ak_len);
	vd_param_text(&p, e->reference);
	vd_param_u64(&p, e->interval);
	if ((r = vd_db_row(c, "enrolling",
			   "INSERT INTO machines (id, ak_der, reference, interval_s) "
			   "VALUES ($1, $2, $3, $4) ON CONFLICT (id) DO NOTHING RETURNING id",
			   &p, &added)) != UIE_OK)
		return r;
	*exists = !added;
	for (size_t i = 0; i < e->npol && !*exists && r == UIE_OK; i++) {
		struct vd_params q = { 0 };

		vd_param_text(&q, e->id);
		vd_param_u64(&q, e->pol[i].epoch);
		vd_param_bytes(&q, e->pol[i].bytes, e->pol[i].len);
		r = vd_db_exec(c, "enrolling a policy",
			       "INSERT INTO policies (machine_id, epoch, package) "
			       "VALUES ($1, $2, $3)",
			       &q);
	}
	return r;
}

void vd_h_enrol(const struct vd_ctx *ctx, struct vd_conn *c, const struct vd_request *req,
		struct vd_reply *rep)
{
	struct vd_enrol e;
	bool exists = false;

	(void)ctx;
	if (!vd_request_body(&vd_enrol_body, c, req, &e, rep))
		return;
	if (vd_db_exec(c, "enrolling", "BEGIN", NULL) != UIE_OK || insert(c, &e, &exists) != UIE_OK ||
	    (!exists && vd_db_exec(c, "enrolling", "COMMIT", NULL) != UIE_OK))
		vd_reply_db(rep, "enrolling");
	else if (exists)
		vd_reply_error(rep, 409, "exists", "machine \"%s\" is enrolled already", e.id);
	else
		vd_reply_json(rep, 201, json_pack("{s:s}", "id", e.id));
	vd_enrol_free(&e);
}
