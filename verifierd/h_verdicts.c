/* SPDX-License-Identifier: Apache-2.0 */
/* GET /v1/machines/ID/verdicts?limit=N: verdict history, newest first (docs/VERIFIER.md 3.4). */
#include "handlers.h"

#include "hex.h"
#include "uie/err.h"

#define LIMIT_DEFAULT 100
#define LIMIT_MAX 1000

enum {
	C_ID,
	C_AT,
	C_VERIFIER,
	C_ACCEPTED,
	C_RESULT,
	C_REASON,
	C_BAD,
	C_FIRST,
	C_N,
	C_NEW,
	C_NEXT
};

static json_t *num(const PGresult *res, int i, int col)
{
	return PQgetisnull(res, i, col) ? json_null() : json_integer((json_int_t)vd_db_u64(res, i, col));
}

static json_t *verdicts_json(const PGresult *res)
{
	json_t *a = json_array();

	for (int i = 0; a && i < PQntuples(res); i++)
		if (json_array_append_new(
			    a, json_pack("{s:o, s:s, s:s, s:b, s:s, s:s, s:o, s:o, s:o, s:o, s:o}", "verdict",
					 num(res, i, C_ID), "at", PQgetvalue(res, i, C_AT), "verifier",
					 PQgetvalue(res, i, C_VERIFIER), "accepted",
					 PQgetvalue(res, i, C_ACCEPTED)[0] == 't', "result",
					 PQgetvalue(res, i, C_RESULT), "reason", PQgetvalue(res, i, C_REASON),
					 "bad_record", num(res, i, C_BAD), "first_seq", num(res, i, C_FIRST),
					 "nrecords", num(res, i, C_N), "new_records", num(res, i, C_NEW),
					 "next_seq", num(res, i, C_NEXT))) != 0) {
			json_decref(a);
			return NULL;
		}
	return a;
}

void vd_h_verdicts(const struct vd_ctx *ctx, struct vd_conn *c, const struct vd_request *req,
		   struct vd_reply *rep)
{
	struct vd_params p = { 0 };
	uint64_t limit = LIMIT_DEFAULT;
	PGresult *res;

	(void)ctx;
	if (req->limit && (uie_parse_u64(req->limit, &limit) != UIE_OK || !limit || limit > LIMIT_MAX)) {
		vd_reply_error(rep, 400, "bad_field", "limit must be 1..%d", LIMIT_MAX);
		return;
	}
	vd_param_text(&p, req->id);
	vd_param_u64(&p, limit);
	if (!(res = vd_db_query(
		      c, "reading verdicts",
		      "SELECT v.id, to_char(v.at AT TIME ZONE 'UTC', "
		      "'YYYY-MM-DD\"T\"HH24:MI:SS.MS\"Z\"'), v.verifier, v.accepted, v.result, v.reason, "
		      "v.bad_record, v.first_seq, v.nrecords, v.new_records, v.next_seq, m.id FROM machines "
		      "m "
		      "LEFT JOIN verdicts v ON v.machine_id = m.id WHERE m.id = $1 ORDER BY v.id DESC "
		      "LIMIT $2",
		      &p))) {
		vd_reply_db(rep, "reading the verdicts");
		return;
	}
	if (PQntuples(res) == 0)
		vd_reply_unknown(rep, req->id);
	else if (PQgetisnull(res, 0, C_ID))
		vd_reply_json(rep, 200, json_pack("{s:[]}", "verdicts"));
	else
		vd_reply_json(rep, 200, json_pack("{s:o}", "verdicts", verdicts_json(res)));
	PQclear(res);
}
