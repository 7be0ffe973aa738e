/* SPDX-License-Identifier: Apache-2.0 */
/*
 * POST /v1/machines/ID/enrolment/evidence: the SVSM's answer to the
 * enrolment nonce and the vTPM's EK and AK, judged against the fleet's
 * trust (uie_enrol_check_evidence); when it holds, a credential for the
 * AK sealed to the EK, and the enrolment pending its answer
 * (docs/VERIFIER.md 3.8).
 */
#include "handlers.h"

#include <string.h>

#include <openssl/crypto.h>
#include <openssl/sha.h>

#include "b64.h"
#include "body.h"
#include "fleet.h"
#include "nonce.h"
#include "uie/err.h"

_Static_assert(VD_ENROL_NONCE_LEN == UIE_SNP_NONCE_LEN, "the enrolment nonce is the SVSM's");
_Static_assert(VD_SECRET_LEN == UIE_ENROL_SECRET_LEN, "the secret posted back is the one sealed");

/* The enrolment pending the credential's answer, with its policies. */
static int pend(const struct vd_ctx *ctx, struct vd_conn *c, const struct vd_enrol_ev *v,
		const struct uie_enrol_verdict *ver, const uint8_t secret[VD_SECRET_LEN])
{
	uint8_t hash[SHA256_DIGEST_LENGTH];
	struct vd_params p = { 0 };
	int r;

	SHA256(secret, VD_SECRET_LEN, hash);
	vd_param_bytes(&p, v->nonce, sizeof(v->nonce));
	vd_param_bytes(&p, hash, sizeof(hash));
	vd_param_text(&p, v->fleet);
	vd_param_bytes(&p, ver->ak_der, ver->ak_len);
	vd_param_text(&p, v->e.reference);
	vd_param_u64(&p, v->e.interval);
	vd_param_bytes(&p, ver->snp.report.measurement, sizeof(ver->snp.report.measurement));
	vd_param_u64(&p, ver->snp.simulated);
	vd_param_u64(&p, ctx->cfg->nonce_ttl);
	if ((r = vd_db_exec(
		     c, "storing a pending enrolment",
		     "UPDATE enrolments SET secret_hash = $2, fleet = $3, ak_der = $4, reference = $5, "
		     "interval_s = $6, measurement = $7, simulated = $8::int::boolean, expires_at = now() + "
		     "make_interval(secs => $9) WHERE nonce = $1",
		     &p)) != UIE_OK)
		return r;
	for (size_t i = 0; i < v->e.npol && r == UIE_OK; i++) {
		struct vd_params q = { 0 };

		vd_param_bytes(&q, v->nonce, sizeof(v->nonce));
		vd_param_u64(&q, v->e.pol[i].epoch);
		vd_param_bytes(&q, v->e.pol[i].bytes, v->e.pol[i].len);
		r = vd_db_exec(c, "storing a pending enrolment's policy",
			       "INSERT INTO enrolment_policies (nonce, epoch, package) VALUES ($1, $2, $3)",
			       &q);
	}
	return r;
}

/* The evidence against the fleet's trust; false with the answer in rep when it does not hold. */
static bool judge(struct vd_conn *c, const struct vd_enrol_ev *v, struct uie_enrol_verdict *ver,
		  struct vd_reply *rep)
{
	const struct uie_enrol_evidence ev = {
		.report = v->report,
		.report_len = v->report_len,
		.aux = v->certs,
		.aux_len = v->certs_len,
		.manifest = v->manifest,
		.manifest_len = v->manifest_len,
		.single = v->single,
		.ek_pub = v->ek,
		.ek_len = v->ek_len,
		.ak_pub = v->ak,
		.ak_len = v->ak_len,
	};
	struct vd_fleet_trust f;
	int r;

	memset(ver, 0, sizeof(*ver));
	if ((r = vd_fleet_load_alloc(c, v->fleet, &f)) == UIE_E_NOTFOUND)
		vd_reply_error(rep, 404, "unknown_fleet", "no fleet \"%s\"", v->fleet);
	else if (r != UIE_OK)
		vd_reply_db(rep, "loading the fleet");
	else if (f.accepts_none)
		vd_reply_error(rep, 403, "attestation", "report: fleet \"%s\" accepts no launch measurement",
			       v->fleet);
	else if (uie_enrol_check_evidence(&ev, v->nonce, &f.t, ver) != UIE_OK)
		vd_reply_error(rep, ver->err == UIE_E_NOMEM ? 500 : 403,
			       ver->err == UIE_E_NOMEM ? "internal" : "attestation", "%s", ver->why);
	vd_fleet_trust_free(&f);
	return r == UIE_OK && !rep->json;
}

static void answer(const struct vd_ctx *ctx, struct vd_conn *c, const struct vd_enrol_ev *v,
		   const struct uie_enrol_verdict *ver, struct vd_reply *rep)
{
	uint8_t secret[VD_SECRET_LEN], *cred = NULL;
	const char *why = "";
	size_t cred_len = 0;
	char *b64 = NULL;
	int r;

	if ((r = uie_enrol_challenge_alloc(v->ek, v->ek_len, v->ak, v->ak_len, secret, &cred, &cred_len,
					   &why)) != UIE_OK) {
		vd_reply_error(rep, r == UIE_E_NOMEM || r == UIE_E_CRYPTO ? 500 : 403,
			       r == UIE_E_NOMEM || r == UIE_E_CRYPTO ? "internal" : "attestation",
			       "credential: %s", why);
		return;
	}
	if (pend(ctx, c, v, ver, secret) != UIE_OK ||
	    vd_db_exec(c, "storing a pending enrolment", "COMMIT", NULL) != UIE_OK)
		vd_reply_db(rep, "storing the pending enrolment");
	else if (!(b64 = uie_b64_encode_alloc(cred, cred_len)))
		vd_reply_error(rep, 500, "internal", "out of memory");
	else
		vd_reply_json(rep, 201,
			      json_pack("{s:s, s:I, s:b, s:s}", "credential", b64, "expires_in",
					(json_int_t)ctx->cfg->nonce_ttl, "simulated", ver->snp.simulated,
					"report", ver->why));
	OPENSSL_cleanse(secret, sizeof(secret));
	free(cred);
	free(b64);
}

void vd_h_enrol_evidence(const struct vd_ctx *ctx, struct vd_conn *c, const struct vd_request *req,
			 struct vd_reply *rep)
{
	struct uie_enrol_verdict ver = { 0 };
	struct vd_enrol_ev v;
	bool ok = false;

	if (!vd_request_body(&vd_enrol_ev_body, c, req, &v, rep))
		return;
	if (vd_db_exec(c, "enrolling by attestation", "BEGIN", NULL) != UIE_OK ||
	    /* the enrolment nonce is this machine's, issued and unanswered: its row locked */
	    vd_nonce_row(
		    c, "reading an enrolment nonce",
		    "SELECT 1 FROM enrolments WHERE nonce = $1 AND machine_id = $2 AND secret_hash IS NULL "
		    "AND expires_at > now() FOR UPDATE",
		    v.nonce, sizeof(v.nonce), req->id, &ok) != UIE_OK)
		vd_reply_db(rep, "reading the enrolment nonce");
	else if (!ok)
		vd_reply_error(rep, 409, "bad_nonce",
			       "binding: nonce was not issued for enrolling \"%s\", was answered, or expired",
			       req->id);
	else if (judge(c, &v, &ver, rep))
		answer(ctx, c, &v, &ver, rep);
	uie_enrol_verdict_free(&ver);
	vd_enrol_ev_free(&v);
}
