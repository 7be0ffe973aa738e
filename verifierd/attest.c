/* SPDX-License-Identifier: Apache-2.0 */
#include "attest.h"

#include <string.h>

#include "hex.h"
#include "machine.h"
#include "nonce.h"
#include "uie/err.h"

/*
 * The answers that are not verdicts: evidence that does not prove the
 * machine answered our nonce or is not what its quote signs (records that
 * do not replay to the signed vPCR16, PM that disagrees with them), a
 * restart that needs the whole new log, and evidence older than what was
 * verified.  Returns whether one was set.
 */
static bool refusal(const struct vd_machine *m, const struct uie_verify_report *v, bool same_boot,
		    struct vd_reply *rep)
{
	switch (v->cls) {
	case UIE_V_OK: return false;
	case UIE_V_PARSE:
	case UIE_V_QUOTE:
	case UIE_V_PCR_SELECT:
	case UIE_V_PCR_DIGEST:
		vd_reply_error(rep, 400, "bad_evidence", "%s: %s", uie_verify_class_name(v->cls), v->reason);
		return true;
	case UIE_V_REPLAY:
	case UIE_V_METADATA:
		/* Not what the machine's quote signs: changed on the way, proving nothing about it. */
		vd_reply_error(rep, 400, "bad_evidence",
			       "%s: %s: not the evidence the machine's quote signs (changed in transit or "
			       "on the machine); nothing stored",
			       uie_verify_class_name(v->cls), v->reason);
		return true;
	case UIE_V_SIGNATURE:
		vd_reply_error(rep, 403, "wrong_ak", "%s (another machine's evidence, or forged)", v->reason);
		return true;
	case UIE_V_NONCE: vd_reply_error(rep, 409, "bad_nonce", "%s", v->reason); return true;
	case UIE_V_INTERNAL: vd_reply_error(rep, 500, "internal", "%s", v->reason); return true;
	default: break;
	}
	if (v->cls == UIE_V_CONTINUITY && m->st.valid && !same_boot && v->first_seq > 0) {
		vd_reply_error(rep, 409, "full_log_needed",
			       "the machine restarted (resetCount %u, restartCount %u; we verified %u, %u): "
			       "send its log from record 0",
			       v->reset_count, v->restart_count, m->st.reset_count, m->st.restart_count);
		return true;
	}
	if (same_boot && v->clock < m->st.clock) {
		vd_reply_error(rep, 409, "superseded",
			       "evidence of clock %llu is older than evidence "
			       "already verified (clock %llu)",
			       (unsigned long long)v->clock, (unsigned long long)m->st.clock);
		return true;
	}
	return false;
}

/* The verdict row; *verdict its id. */
static int store_verdict(const struct vd_ctx *ctx, struct vd_conn *c, const char *id,
			 const struct uie_verify_report *v, uint64_t new_records, uint64_t next_seq,
			 uint64_t *verdict)
{
	struct vd_params p = { 0 };
	PGresult *res;

	vd_param_text(&p, id);
	vd_param_text(&p, ctx->cfg->name);
	vd_param_text(&p, v->cls == UIE_V_OK ? "true" : "false");
	vd_param_text(&p, uie_verify_class_name(v->cls));
	vd_param_text(&p, v->reason);
	if (v->has_seq)
		vd_param_u64(&p, v->seq);
	else
		vd_param_text(&p, NULL);
	vd_param_u64(&p, v->first_seq);
	vd_param_u64(&p, v->nrecords);
	vd_param_u64(&p, new_records);
	vd_param_u64(&p, next_seq);
	vd_param_bytes(&p, v->cls == UIE_V_OK ? v->next.pcr : v->vpcr, UIE_PCR_LEN);
	if (!(res = vd_db_query(
		      c, "storing a verdict",
		      "INSERT INTO verdicts (machine_id, verifier, accepted, "
		      "result, reason, bad_record, first_seq, nrecords, new_records, next_seq, vpcr16) "
		      "VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) RETURNING id",
		      &p)))
		return UIE_E_IO;
	*verdict = vd_db_u64(res, 0, 0);
	PQclear(res);
	return UIE_OK;
}

static int store_state(struct vd_conn *c, const char *id, const struct uie_verify_state *s)
{
	struct vd_params p = { 0 };

	vd_param_text(&p, id);
	vd_param_u64(&p, s->clock);
	vd_param_u64(&p, s->reset_count);
	vd_param_u64(&p, s->restart_count);
	vd_param_u64(&p, s->next_seq);
	vd_param_bytes(&p, s->pcr, sizeof(s->pcr));
	vd_param_u64(&p, s->epoch);
	vd_param_u64(&p, s->mode);
	vd_param_bytes(&p, s->policy_id, sizeof(s->policy_id));
	return vd_db_exec(c, "storing the state",
			  "UPDATE machines SET valid = true, clock = $2, "
			  "reset_count = $3, restart_count = $4, next_seq = $5, pcr = $6, epoch = $7, "
			  "mode = $8, policy_id = $9, last_attested = now(), status = CASE status WHEN "
			  "'failed' THEN 'failed' ELSE 'trusted' END WHERE id = $1",
			  &p);
}

static int store_failure(struct vd_conn *c, const char *id, uint64_t verdict)
{
	struct vd_params p = { 0 };

	vd_param_text(&p, id);
	vd_param_u64(&p, verdict);
	return vd_db_exec(c, "storing a failure",
			  "UPDATE machines SET status = 'failed', "
			  "first_bad = coalesce(first_bad, $2) WHERE id = $1",
			  &p);
}

static json_t *verdict_json(uint64_t verdict, const struct uie_verify_report *v, uint64_t new_records,
			    uint64_t next_seq, bool simulated)
{
	char pcr[2 * UIE_PCR_LEN + 1];

	uie_hex_encode(pcr, v->cls == UIE_V_OK ? v->next.pcr : v->vpcr, UIE_PCR_LEN);
	return json_pack("{s:I, s:b, s:s, s:s, s:o, s:I, s:I, s:I, s:I, s:s, s:b, s:b}", "verdict",
			 (json_int_t)verdict, "accepted", v->cls == UIE_V_OK, "result",
			 uie_verify_class_name(v->cls), "reason", v->reason, "bad_record",
			 v->has_seq ? json_integer((json_int_t)v->seq) : json_null(), "first_seq",
			 (json_int_t)v->first_seq, "nrecords", (json_int_t)v->nrecords, "new_records",
			 (json_int_t)new_records, "next_seq", (json_int_t)next_seq, "vpcr16", pcr,
			 "restarted", v->restarted, "simulated", simulated);
}

/*
 * Verifies under the row lock and stores the verdict and state in the open
 * transaction: returns the verdict to answer once it is committed, or NULL
 * with the refusal or error in rep (nothing to commit).
 */
static json_t *verify_locked(const struct vd_ctx *ctx, struct vd_conn *c, const char *id,
			     const struct vd_attest *a, const struct vd_machine *m, struct vd_reply *rep)
{
	struct uie_verify_input in = {
		.ae = a->ae,
		.ae_len = a->ae_len,
		.nonce = a->nonce,
		.nonce_len = sizeof(a->nonce),
		.ak_der = m->ak_der,
		.ak_der_len = m->ak_len,
		.ref = m->has_ref ? &m->ref : NULL,
		.pols = m->pols,
		.npols = m->npol,
		.prev = &m->st,
	};
	struct uie_verify_report v;
	bool same_boot;
	uint64_t verdict, next_seq = m->st.next_seq, new_records = 0;

	uie_verify_ae(&c->hp.pl, &in, &v);
	same_boot = m->st.valid && v.reset_count == m->st.reset_count &&
		    v.restart_count == m->st.restart_count;
	if (refusal(m, &v, same_boot, rep))
		return NULL;
	if (v.cls == UIE_V_OK) {
		next_seq = v.next.next_seq;
		new_records = same_boot ? next_seq - m->st.next_seq : next_seq;
	}
	if (store_verdict(ctx, c, id, &v, new_records, next_seq, &verdict) != UIE_OK ||
	    (v.cls == UIE_V_OK ? store_state(c, id, &v.next) : store_failure(c, id, verdict)) != UIE_OK) {
		vd_reply_db(rep, "storing the verdict");
		return NULL;
	}
	return verdict_json(verdict, &v, new_records, next_seq, m->simulated);
}

/* Under the open transaction: the machine locked, its nonce used, the evidence verified. */
static json_t *post_locked(const struct vd_ctx *ctx, struct vd_conn *c, const char *id,
			   const struct vd_attest *a, struct vd_reply *rep)
{
	struct vd_machine m;
	json_t *verdict = NULL;
	bool found = false;
	int r;

	if ((r = vd_machine_lock_alloc(c, id, &m)) != UIE_OK) {
		if (r == UIE_E_NOTFOUND)
			vd_reply_unknown(rep, id);
		else if (r == UIE_E_IO)
			vd_reply_db(rep, "loading the machine");
		else
			vd_reply_error(rep, 500, "internal", "machine \"%s\": stored inputs: %s", id,
				       uie_err_str(r));
		return NULL;
	}
	if (vd_nonce_row(c, "using a nonce",
			 "DELETE FROM nonces WHERE nonce = $1 AND machine_id = $2 AND expires_at > now() "
			 "RETURNING 1",
			 a->nonce, sizeof(a->nonce), id, &found) != UIE_OK)
		vd_reply_db(rep, "using the nonce");
	else if (!found)
		vd_reply_error(rep, 409, "bad_nonce", "nonce was not issued for \"%s\", was used, or expired",
			       id);
	else
		verdict = verify_locked(ctx, c, id, a, &m, rep);
	vd_machine_free(&m);
	return verdict;
}

/*
 * A post is one transaction, begun and ended here: committed when a
 * verdict was stored, rolled back on every other way out (a refusal, an
 * unknown nonce, a database error), so that a refused post leaves the
 * machine's state and its nonce as they were (VERIFIER.md 3.3).
 */
void vd_attest_post(const struct vd_ctx *ctx, struct vd_conn *c, const char *id, const struct vd_attest *a,
		    struct vd_reply *rep)
{
	json_t *verdict;

	if (vd_db_exec(c, "starting a post", "BEGIN", NULL) != UIE_OK) {
		vd_reply_db(rep, "starting the transaction");
		return;
	}
	verdict = post_locked(ctx, c, id, a, rep);
	if (verdict && vd_db_exec(c, "committing a verdict", "COMMIT", NULL) == UIE_OK) {
		vd_reply_json(rep, 200, verdict);
		return;
	}
	if (verdict) {
		json_decref(verdict);
		vd_reply_db(rep, "committing the verdict");
	}
	vd_db_exec(c, "ending a refused post", "ROLLBACK", NULL);
}
