/* SPDX-License-Identifier: Apache-2.0 */
#include "nonce.h"

#include <openssl/rand.h>

#include "hex.h"
#include "uie/err.h"

/* The two kinds' statements differ only in the table their nonces are kept in. */
#define COUNT(table)                                                                                    \
	"WITH expired AS (DELETE FROM " table " WHERE machine_id = $1 AND expires_at <= now()) SELECT " \
	"count(*) FROM " table " WHERE machine_id = $1 AND expires_at > now()"
#define INSERT(table)        \
	"INSERT INTO " table \
	" (nonce, machine_id, expires_at) VALUES ($1, $2, now() + make_interval(secs => $3))"

const struct vd_nonce_kind vd_nonce_attest = { COUNT("nonces"), INSERT("nonces"), "storing a nonce",
					       "storing the nonce", "unanswered nonces" };
const struct vd_nonce_kind vd_nonce_enrol = { COUNT("enrolments"), INSERT("enrolments"),
					      "storing an enrolment nonce", "storing the enrolment nonce",
					      "enrolments under way" };

bool vd_nonce_issue(const struct vd_ctx *ctx, struct vd_conn *c, const struct vd_nonce_kind *k,
		    const char *id, uint8_t *nonce, size_t len, char *hex, struct vd_reply *rep)
{
	struct vd_params p = { 0 };
	PGresult *res;
	uint64_t n;

	if (!(res = vd_db_query_key(c, k->storing, k->count, id))) {
		vd_reply_db(rep, k->stored);
		return false;
	}
	n = vd_db_u64(res, 0, 0);
	PQclear(res);
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

int vd_nonce_row(struct vd_conn *c, const char *what, const char *sql, const uint8_t *nonce, size_t len,
		 const char *id, bool *row)
{
	struct vd_params p = { 0 };

	vd_param_bytes(&p, nonce, len);
	vd_param_text(&p, id);
	return vd_db_row(c, what, sql, &p, row);
}
