/* SPDX-License-Identifier: Apache-2.0 */
#include "status.h"

#include <string.h>

#include "hex.h"
#include "uie/names.h"
#include "verify.h"

#define ISO8601(col) "to_char(" col " AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS\"Z\"')"

/* Column order of the query below. */
enum {
	C_ID,
	C_STATUS,
	C_SILENT,
	C_INTERVAL,
	C_LAST,
	C_NEXT,
	C_PCR,
	C_RESET,
	C_RESTART,
	C_EPOCH,
	C_MODE,
	C_BAD_ID,
	C_BAD_RESULT,
	C_BAD_REASON,
	C_BAD_RECORD,
	C_BAD_AT,
	C_FLEET,
	C_MEASUREMENT,
	C_SIMULATED
};

static const char query[] =
	"SELECT m.id, m.status, coalesce(m.last_attested, m.keyed_at) < now() - "
	"make_interval(secs => m.interval_s * $2::bigint), m.interval_s, " ISO8601(
		"m.last_attested") ", "
				   "m.next_seq, m.pcr, m.reset_count, m.restart_count, m.epoch, m.mode, "
				   "v.id, v.result, v.reason, "
				   "v.bad_record, " ISO8601(
					   "v.at") ", m.fleet, m.attested_measurement, m.attested_simulated "
						   "FROM machines m LEFT JOIN verdicts v ON v.id = "
						   "m.first_bad "
						   "WHERE $1::text IS NULL OR m.id = $1 ORDER BY m.id";

static json_t *int_or_null(const PGresult *res, int row, int col)
{
	return PQgetisnull(res, row, col) ? json_null() : json_integer((json_int_t)vd_db_u64(res, row, col));
}

static json_t *text_or_null(const PGresult *res, int row, int col)
{
	return PQgetisnull(res, row, col) ? json_null() : json_string(PQgetvalue(res, row, col));
}

static json_t *first_bad(const PGresult *res, int i)
{
	if (PQgetisnull(res, i, C_BAD_ID))
		return json_null();
	return json_pack("{s:o, s:o, s:o, s:o, s:o}", "verdict", int_or_null(res, i, C_BAD_ID), "at",
			 text_or_null(res, i, C_BAD_AT), "result", text_or_null(res, i, C_BAD_RESULT),
			 "reason", text_or_null(res, i, C_BAD_REASON), "bad_record",
			 int_or_null(res, i, C_BAD_RECORD));
}

/* How the machine's AK was enrolled: null (given by hand), or its attestation (3.8). */
static json_t *attestation(const PGresult *res, int i)
{
	uint8_t m[48];
	char hex[2 * sizeof(m) + 1] = "";

	if (PQgetisnull(res, i, C_SIMULATED))
		return json_null();
	if (vd_db_bytea(res, i, C_MEASUREMENT, m, sizeof(m)) == 0)
		uie_hex_encode(hex, m, sizeof(m));
	return json_pack("{s:o, s:s, s:b}", "fleet", text_or_null(res, i, C_FLEET), "measurement", hex,
			 "simulated", PQgetvalue(res, i, C_SIMULATED)[0] == 't');
}

static json_t *row_json(const PGresult *res, int i)
{
	uint8_t pcr[UIE_PCR_LEN];
	char hex[2 * UIE_PCR_LEN + 1] = "";
	json_t *j;

	if (vd_db_bytea(res, i, C_PCR, pcr, sizeof(pcr)) == 0)
		uie_hex_encode(hex, pcr, sizeof(pcr));
	j = json_pack("{s:s, s:s, s:b, s:o, s:o, s:o, s:s, s:o, s:o, s:o, s:s?, s:o*}", "id",
		      PQgetvalue(res, i, C_ID), "status", PQgetvalue(res, i, C_STATUS), "silent",
		      PQgetvalue(res, i, C_SILENT)[0] == 't', "interval", int_or_null(res, i, C_INTERVAL),
		      "last_attested", text_or_null(res, i, C_LAST), "next_seq", int_or_null(res, i, C_NEXT),
		      "vpcr16", hex, "reset_count", int_or_null(res, i, C_RESET), "restart_count",
		      int_or_null(res, i, C_RESTART), "epoch", int_or_null(res, i, C_EPOCH), "mode",
		      uie_mode_name((unsigned)vd_db_u64(res, i, C_MODE)), "first_bad", first_bad(res, i));
	if (j && json_object_set_new(j, "attestation", attestation(res, i)) != 0) {
		json_decref(j);
		j = NULL;
	}
	return j;
}

json_t *vd_status_alloc(const struct vd_ctx *ctx, struct vd_conn *c, const char *id, int *n)
{
	struct vd_params p = { 0 };
	PGresult *res;
	json_t *a;

	*n = 0;
	vd_param_text(&p, id);
	vd_param_u64(&p, ctx->cfg->silent_after);
	if (!(res = vd_db_query(c, "listing machines", query, &p)))
		return NULL;
	a = json_array();
	for (int i = 0; a && i < PQntuples(res); i++)
		if (json_array_append_new(a, row_json(res, i)) != 0) {
			json_decref(a);
			a = NULL;
		}
	if (a)
		*n = PQntuples(res);
	PQclear(res);
	return a;
}
