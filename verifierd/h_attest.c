/* SPDX-License-Identifier: Apache-2.0 */
/* POST /v1/machines/ID/attestations: an AE answering a nonce; the verdict (docs/VERIFIER.md 3.3). */
#include "handlers.h"

#include "attest.h"
#include "body.h"
#include "uie/err.h"

void vd_h_attest(const struct vd_ctx *ctx, struct vd_conn *c, const struct vd_request *req,
		 struct vd_reply *rep)
{
	struct vd_attest a;

	if (!vd_request_body(&vd_attest_body, c, req, &a, rep))
		return;
	vd_attest_post(ctx, c, req->id, &a, rep);
	vd_attest_free(&a);
}
