/* SPDX-License-Identifier: Apache-2.0 */
#include "nonce.h"

#include <openssl/rand.h>

#include "hex.h"
#include "uie/err.h"

bool vd_nonce_issue(const struct vd_ctx *ctx, struct vd_conn *c, const struct vd_nonce_kind *k,
		    const char *id, uint64_t n, uint8_t *nonce, size_t len, char *hex, struct vd_reply *rep)
{
	struct vd_params p = { 0 };

	if (n >= ctx->cfg->max_nonces) {
		vd_reply_error(rep, 429, "too_many_nonces", "machine \"%s\" has %llu %s", id,
			       (unsigned long long)n, k->pending);
		return false;
	}
	if (RAND_bytes(nonce, (int)len) != 1) {
		vd_reply_error(rep, 500, "internal", "no randomness for a nonce");
		return false;
	}
	vd_param_bytes(&p, nonce, len);
	vd_param_text(&p, id);
	vd_param_u64(&p, ctx->cfg->nonce_ttl);
	if (vd_db_exec(c, k->storing, k->insert, &p) != UIE_OK ||
	    vd_db_exec(c, k->storing, "COMMIT", NULL) != UIE_OK) {
		vd_reply_db(rep, k->stored);
		return false;
	}
	uie_hex_encode(hex, nonce, len);
	return true;
}
