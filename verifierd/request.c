/* SPDX-License-Identifier: Apache-2.0 */
/* A handler's request body, read by its kind; a body that does not parse answered (handlers.h). */
#include "body_json.h"
#include "handlers.h"
#include "uie/err.h"

bool vd_request_body(const struct vd_body_kind *k, struct vd_conn *c, const struct vd_request *req, void *out,
		     struct vd_reply *rep)
{
	char why[VD_WHY_LEN];
	int r = vd_body_read(k, &c->hp.pl, req->body, req->body_len, out, why);

	if (r == UIE_E_NOMEM)
		vd_reply_error(rep, 500, "internal", "out of memory");
	else if (r != UIE_OK)
		vd_reply_error(rep, 400, r == UIE_E_FORMAT ? "bad_json" : "bad_field", "%s", why);
	return r == UIE_OK;
}
