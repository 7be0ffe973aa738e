/* SPDX-License-Identifier: Apache-2.0 */
/* PUT /v1/fleets/NAME: create or replace a fleet's trust (docs/VERIFIER.md 3.8). */
#include "handlers.h"

#include "body.h"
#include "uie/buf.h"
#include "uie/err.h"

/* Stores fleet name's trust f, created or replaced, and replies which, or the database's failure. */
static void store(struct vd_conn *c, const char *name, const struct vd_fleet *f, struct vd_reply *rep)
{
	uint8_t tcb[8];
	struct vd_params p = { 0 };
	PGresult *res;
	bool created;

	uie_put_le64(tcb, f->min_tcb);
	vd_param_text(&p, name);
	vd_param_text(&p, f->ark_pem);
	vd_param_text(&p, f->ask_pem);
	vd_param_u64(&p, f->simulated);
	vd_param_bytes(&p, f->has_min_tcb ? tcb : NULL, sizeof(tcb));
	vd_param_u64(&p, f->min_abi_major);
	vd_param_u64(&p, f->min_abi_minor);
	vd_param_u64(&p, f->vmpl);
	vd_param_u64(&p, f->any_measurement);
	vd_param_bytes(&p, (const uint8_t *)f->measurements, f->nmeasurements * VD_MEASUREMENT_LEN);
	if (!(res = vd_db_query(
		      c, "storing a fleet",
		      "INSERT INTO fleets (name, ark_pem, ask_pem, simulated, min_tcb, min_abi_major, "
		      "min_abi_minor, vmpl, any_measurement, measurements) VALUES ($1, $2, $3, "
		      "$4::int::boolean, "
		      "$5, $6, $7, $8, $9::int::boolean, coalesce($10, '\\x'::bytea)) ON CONFLICT (name) DO "
		      "UPDATE SET "
		      "ark_pem = EXCLUDED.ark_pem, ask_pem = EXCLUDED.ask_pem, simulated = "
		      "EXCLUDED.simulated, "
		      "min_tcb = EXCLUDED.min_tcb, min_abi_major = EXCLUDED.min_abi_major, "
		      "min_abi_minor = EXCLUDED.min_abi_minor, vmpl = EXCLUDED.vmpl, "
		      "any_measurement = EXCLUDED.any_measurement, measurements = EXCLUDED.measurements, "
		      "updated_at = now() RETURNING xmax = 0",
		      &p))) {
		vd_reply_db(rep, "storing the fleet");
		return;
	}
	created = PQntuples(res) == 1 && PQgetvalue(res, 0, 0)[0] == 't';
	PQclear(res);
	vd_reply_json(rep, created ? 201 : 200,
		      json_pack("{s:s, s:s, s:b, s:i, s:o}", "fleet", name, "roots",
				f->ark_pem ? "given" : "AMD built-in", "simulated", f->simulated, "vmpl",
				(int)f->vmpl, "measurements",
				f->any_measurement ? json_string("any")
						   : json_integer((json_int_t)f->nmeasurements)));
}

void vd_h_fleet(const struct vd_ctx *ctx, struct vd_conn *c, const struct vd_request *req,
		struct vd_reply *rep)
{
	struct vd_fleet f;

	(void)ctx;
	if (vd_request_body(&vd_fleet_body, c, req, &f, rep)) {
		store(c, req->id, &f, rep);
		vd_fleet_free(&f);
	}
}
