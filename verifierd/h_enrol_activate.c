/* SPDX-License-Identifier: Apache-2.0 */
/*
 * POST /v1/machines/ID/enrolment/activate: the secret the machine's TPM
 * recovered from the credential.  Equal to the one sealed (compared in
 * constant time), the machine is enrolled with the AK its evidence named
 * (docs/VERIFIER.md 3.8).
 */
#include "handlers.h"

#include <openssl/crypto.h>
#include <openssl/sha.h>

#include "body.h"
#include "status.h"
#include "uie/err.h"

/* The pending enrolment of this nonce and machine, locked; *found false when there is none. */
static int pending(struct vd_conn *c, const char *id, const struct vd_activate *a, bool *found,
		   uint8_t hash[SHA256_DIGEST_LENGTH])
{
	struct vd_params p = { 0 };
	PGresult *res;
	int r = UIE_OK;

	vd_param_bytes(&p, a->nonce, sizeof(a->nonce));
	vd_param_text(&p, id);
	if (!(res = vd_db_query(c, "reading a pending enrolment",
				"SELECT secret_hash FROM enrolments WHERE nonce = $1 AND machine_id = $2 AND "
				"secret_hash IS NOT NULL AND expires_at > now() FOR UPDATE",
				&p)))
		return UIE_E_IO;
	*found = PQntuples(res) == 1;
	if (*found)
		r = vd_db_bytea(res, 0, 0, hash, SHA256_DIGEST_LENGTH);
	PQclear(res);
	return r;
}

/* The machine from the pending enrolment; *exists when the id was enrolled meanwhile. */
static int enrol(struct vd_conn *c, const char *id, const struct vd_activate *a, bool *exists)
{
	struct vd_params p = { 0 };
	bool added;
	int r;

	vd_param_bytes(&p, a->nonce, sizeof(a->nonce));
	vd_param_text(&p, id);
	if ((r = vd_db_row(c, "enrolling by attestation",
			   "INSERT INTO machines (id, ak_der, reference, interval_s, fleet, "
			   "attested_measurement, attested_simulated) SELECT machine_id, ak_der, reference, "
			   "interval_s, fleet, measurement, simulated FROM enrolments WHERE nonce = $1 AND "
			   "machine_id = $2 ON CONFLICT (id) DO NOTHING RETURNING id",
			   &p, &added)) != UIE_OK)
		return r;
	*exists = !added;
	if (*exists)
		return UIE_OK;
	if ((r = vd_db_exec(
		     c, "enrolling the policies",
		     "INSERT INTO policies (machine_id, epoch, package) SELECT $2, epoch, package FROM "
		     "enrolment_policies WHERE nonce = $1",
		     &p)) != UIE_OK)
		return r;
	return vd_db_exec(c, "ending the enrolment",
			  "DELETE FROM enrolments WHERE machine_id = $2 OR nonce = $1", &p);
}

void vd_h_enrol_activate(const struct vd_ctx *ctx, struct vd_conn *c, const struct vd_request *req,
			 struct vd_reply *rep)
{
	uint8_t want[SHA256_DIGEST_LENGTH], got[SHA256_DIGEST_LENGTH];
	struct vd_activate a;
	bool found = false, exists = false;
	json_t *m = NULL;
	int n;

	if (!vd_request_body(&vd_activate_body, c, req, &a, rep))
		return;
	SHA256(a.secret, sizeof(a.secret), got);
	OPENSSL_cleanse(a.secret, sizeof(a.secret));
	if (vd_db_exec(c, "enrolling by attestation", "BEGIN", NULL) != UIE_OK ||
	    pending(c, req->id, &a, &found, want) != UIE_OK)
		vd_reply_db(rep, "reading the pending enrolment");
	else if (!found)
		vd_reply_error(
			rep, 409, "bad_nonce",
			"credential: no enrolment of \"%s\" pending for this nonce (none made, answered, "
			"or expired)",
			req->id);
	else if (CRYPTO_memcmp(want, got, sizeof(want)) != 0)
		vd_reply_error(
			rep, 403, "attestation",
			"credential: the secret returned is not the one sealed to the EK: the AK is not "
			"in that TPM");
	else if (enrol(c, req->id, &a, &exists) != UIE_OK)
		vd_reply_db(rep, "enrolling by attestation");
	else if (exists)
		vd_reply_error(rep, 409, "exists", "machine \"%s\" is enrolled already", req->id);
	else if (vd_db_exec(c, "enrolling by attestation", "COMMIT", NULL) != UIE_OK)
		vd_reply_db(rep, "enrolling by attestation");
	else if (!(m = vd_status_alloc(ctx, c, req->id, &n)) || n != 1)
		vd_reply_db(rep, "reading the enrolled machine");
	else
		vd_reply_json(rep, 201, json_incref(json_array_get(m, 0)));
	json_decref(m);
}
