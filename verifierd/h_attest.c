/* SPDX-License-Identifier: Apache-2.0 */
/* POST /v1/machines/ID/attestations: an AE answering a nonce; the verdict (docs/VERIFIER.md 3.3). */
#include "handlers.h"

#include "attest.h"
#include "body.h"
#include "uie/err.h"

void vd_h_attest(const struct vd_ctx *ctx, struct vd_conn *c, const struct vd_request *req,
		 struct vd_reply *rep)
{
	char why[VD_WHY_LEN];
	struct vd_attest a;
	int r;

	if ((r = vd_attest_parse_alloc(req->body, req->body_len, &a, why)) != UIE_OK) {
		vd_reply_body_error(rep, r, why);
		return;
	}
	vd_attest_post(ctx, c, req->id, &a, rep);
	vd_attest_free(&a);
}
