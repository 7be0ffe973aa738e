/* SPDX-License-Identifier: Apache-2.0 */
/*
 * PUT /v1/machines/ID/ak: a new attestation key; the machine starts over
 * as enrolled, its replay state and outstanding nonces gone, its history
 * kept (docs/VERIFIER.md 3.7).
 */
#include "handlers.h"

#include "body.h"
#include "status.h"
#include "uie/err.h"

/* Under the row lock of the UPDATE; *known whether the machine exists. */
static int rekey(struct vd_conn *c, const char *id, const struct vd_rekey *k, bool *known)
{
	struct vd_params p = { 0 }, q = { 0 };
	int r;

	vd_param_text(&p, id);
	vd_param_text(&q, id);
	vd_param_bytes(&p, k->ak_der, k->ak_len);
	if ((r = vd_db_row(c, "re-keying",
			   "UPDATE machines SET ak_der = $2, keyed_at = now(), valid = false, clock = 0, "
			   "reset_count = 0, restart_count = 0, next_seq = 0, pcr = DEFAULT, epoch = 0, "
			   "mode = 0, policy_id = DEFAULT, last_attested = NULL, status = 'enrolled', "
			   "first_bad = NULL WHERE id = $1 RETURNING id",
			   &p, known)) != UIE_OK)
		return r;
	return *known ? vd_db_exec(c, "re-keying", "DELETE FROM nonces WHERE machine_id = $1", &q) : UIE_OK;
}

void vd_h_rekey(const struct vd_ctx *ctx, struct vd_conn *c, const struct vd_request *req,
		struct vd_reply *rep)
{
	struct vd_rekey k;
	bool known = false;
	json_t *a = NULL;
	int n;

	if (!vd_request_body(&vd_rekey_body, c, req, &k, rep))
		return;
	if (vd_db_exec(c, "re-keying", "BEGIN", NULL) != UIE_OK || rekey(c, req->id, &k, &known) != UIE_OK ||
	    (known && vd_db_exec(c, "re-keying", "COMMIT", NULL) != UIE_OK))
		vd_reply_db(rep, "re-keying");
	else if (!known)
		vd_reply_unknown(rep, req->id);
	else if (!(a = vd_status_alloc(ctx, c, req->id, &n)) || n != 1)
		vd_reply_db(rep, "reading the re-keyed machine");
	else
		vd_reply_json(rep, 200, json_incref(json_array_get(a, 0)));
	json_decref(a);
	vd_rekey_free(&k);
}
