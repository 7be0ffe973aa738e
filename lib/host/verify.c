/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Evidence verification: quote (signature, nonce, PCR selection and
 * digest), continuity with what was verified before, the replay and walk
 * of the log (verify_log.c), and the clock.
 */
#include "verify.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include <openssl/ec.h>
#include <openssl/evp.h>
#include <openssl/sha.h>
#include <openssl/x509.h>

#include "evidence.h"
#include "tpm_marshal.h"
#include "uie/err.h"

static const char *const class_names[] = {
	[UIE_V_OK] = "ok",
	[UIE_V_INTERNAL] = "internal",
	[UIE_V_PARSE] = "parse",
	[UIE_V_SIGNATURE] = "signature",
	[UIE_V_QUOTE] = "quote",
	[UIE_V_NONCE] = "nonce",
	[UIE_V_PCR_SELECT] = "pcr-selection",
	[UIE_V_PCR_DIGEST] = "pcr-digest",
	[UIE_V_REPLAY] = "replay",
	[UIE_V_CONTINUITY] = "continuity",
	[UIE_V_METADATA] = "metadata",
	[UIE_V_REFERENCE] = "reference",
	[UIE_V_POLICY] = "policy",
	[UIE_V_CLOCK] = "clock",
	[UIE_V_VIOLATION] = "violation",
};

const char *uie_verify_class_name(int cls)
{
	if (cls < 0 || (size_t)cls >= sizeof(class_names) / sizeof(class_names[0]) || !class_names[cls])
		return "unknown";
	return class_names[cls];
}

__attribute__((format(printf, 3, 4))) static int fail(struct uie_verify_report *rep, int cls, const char *fmt,
						      ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(rep->reason, sizeof(rep->reason), fmt, ap);
	va_end(ap);
	rep->cls = cls;
	return cls;
}

/* Names the first record at fault. */
static void at_record(struct uie_verify_report *rep, uint64_t seq)
{
	rep->has_seq = true;
	rep->seq = seq;
}

/* ECDSA/SHA-256 over the attest bytes with the attestation key. */
static int check_signature(const struct uie_verify_input *in, const struct uie_ae *ae,
			   const struct uie_tpm_ecdsa_sig *s, struct uie_verify_report *rep)
{
	const unsigned char *p = in->ak_der;
	EVP_PKEY *pk = d2i_PUBKEY(NULL, &p, (long)in->ak_der_len);
	EVP_MD_CTX *md = NULL;
	ECDSA_SIG *es = NULL;
	BIGNUM *r = NULL, *sv = NULL;
	unsigned char *der = NULL;
	int derlen, ok = 0, cls = UIE_V_INTERNAL;

	if (!pk || EVP_PKEY_get_base_id(pk) != EVP_PKEY_EC || p != in->ak_der + in->ak_der_len) {
		EVP_PKEY_free(pk);
		return fail(rep, UIE_V_SIGNATURE, "attestation key is not an EC public key");
	}
	if (s->hash_alg != UIE_TPM_ALG_SHA256) {
		EVP_PKEY_free(pk);
		return fail(rep, UIE_V_SIGNATURE, "signature hash 0x%04x is not sha256", s->hash_alg);
	}
	if (!(es = ECDSA_SIG_new()) || !(r = BN_bin2bn(s->r, s->r_len, NULL)) ||
	    !(sv = BN_bin2bn(s->s, s->s_len, NULL)) || ECDSA_SIG_set0(es, r, sv) != 1)
		goto out;
	r = sv = NULL; /* owned by es now */
	if ((derlen = i2d_ECDSA_SIG(es, &der)) <= 0 || !(md = EVP_MD_CTX_new()) ||
	    EVP_DigestVerifyInit(md, NULL, EVP_sha256(), NULL, pk) != 1)
		goto out;
	ok = EVP_DigestVerify(md, der, (size_t)derlen, ae->attest, ae->attest_len) == 1;
	cls = ok ? UIE_V_OK
		 : fail(rep, UIE_V_SIGNATURE, "quote signature does not verify with the attestation key");
out:
	if (cls == UIE_V_INTERNAL)
		fail(rep, cls, "crypto failure while checking the signature");
	BN_free(r);
	BN_free(sv);
	ECDSA_SIG_free(es);
	OPENSSL_free(der);
	EVP_MD_CTX_free(md);
	EVP_PKEY_free(pk);
	return cls;
}

static int check_quote(const struct uie_verify_input *in, const struct uie_ae *ae, struct uie_tpm_quote *q,
		       struct uie_verify_report *rep)
{
	struct uie_tpm_ecdsa_sig s;
	struct uie_rbuf b;
	uint32_t magic = 0;
	uint16_t type = 0;
	uint8_t want[UIE_TPM_PCR_SELECT_MAX] = { 0 }, dg[32];
	int r, cls;

	if ((r = uie_tpm_sig_parse(ae->sig, ae->sig_len, &s)) != UIE_OK)
		return fail(rep, UIE_V_PARSE, "TPMT_SIGNATURE: %s", uie_err_str(r));
	if ((cls = check_signature(in, ae, &s, rep)) != UIE_V_OK)
		return cls;
	uie_rbuf_init(&b, ae->attest, ae->attest_len);
	if (uie_tpm_get32(&b, &magic) != UIE_OK || uie_tpm_get16(&b, &type) != UIE_OK ||
	    magic != UIE_TPM_GENERATED_VALUE || type != UIE_TPM_ST_ATTEST_QUOTE)
		return fail(rep, UIE_V_QUOTE, "not a TPM quote (magic 0x%08x, type 0x%04x)", magic, type);
	if ((r = uie_tpm_quote_parse(ae->attest, ae->attest_len, q)) != UIE_OK)
		return fail(rep, UIE_V_PARSE, "TPMS_ATTEST: %s", uie_err_str(r));
	rep->clock = q->clock;
	rep->reset_count = q->reset_count;
	rep->restart_count = q->restart_count;
	rep->safe = q->safe;
	if (q->extra_len != in->nonce_len || memcmp(q->extra, in->nonce, in->nonce_len) != 0)
		return fail(rep, UIE_V_NONCE,
			    "quote extraData is not our nonce (stale or replayed evidence)");
	if (ae->nonce_len != in->nonce_len || memcmp(ae->nonce, in->nonce, in->nonce_len) != 0)
		return fail(rep, UIE_V_NONCE, "AE nonce is not our nonce");
	want[UIE_LOG_PCR_INDEX / 8] = 1u << (UIE_LOG_PCR_INDEX % 8);
	if (q->nsel != 1 || q->sel[0].hash != UIE_TPM_ALG_SHA256 || q->sel[0].size_of_select < 3 ||
	    memcmp(q->sel[0].select, want, sizeof(want)) != 0)
		return fail(rep, UIE_V_PCR_SELECT, "PCR selection is not exactly sha256:16");
	if (!SHA256(ae->vpcr, UIE_PCR_LEN, dg))
		return fail(rep, UIE_V_INTERNAL, "sha256 failed");
	if (q->pcr_digest_len != sizeof(dg) || memcmp(q->pcr_digest, dg, sizeof(dg)) != 0)
		return fail(rep, UIE_V_PCR_DIGEST, "quoted pcrDigest is not SHA-256 of the AE's vPCR16");
	return UIE_V_OK;
}

/*
 * Continuity with what we verified before in the same TPM boot: the log
 * must not be shorter, an increment must start where we stopped or
 * overlap it, and an overlap must pass through the vPCR16 we remember
 * (*cp, checked during the pass).
 */
static int check_continuity(const struct uie_verify_input *in, const struct uie_ae *ae,
			    const struct uie_tpm_quote *q, struct uie_verify_checkpoint *cp,
			    struct uie_verify_report *rep)
{
	static const uint8_t zero[UIE_PCR_LEN];
	const struct uie_verify_state *p = in->prev;
	bool same_boot = p && p->valid && p->reset_count == q->reset_count &&
			 p->restart_count == q->restart_count;
	uint64_t end = ae->first_seq + ae->nrecords;

	memset(cp, 0, sizeof(*cp));
	if (ae->first_seq == 0 && memcmp(ae->start_pcr, zero, UIE_PCR_LEN) != 0)
		return fail(rep, UIE_V_CONTINUITY, "a log from record 0 must start at vPCR16 zero");
	if (ae->first_seq > 0 && !same_boot)
		return fail(rep, UIE_V_CONTINUITY,
			    p && p->valid
				    ? "the TPM was reset or restarted since the previous verification: ask "
				      "for the whole log"
				    : "incremental evidence needs the state of a previous verification");
	if (!same_boot)
		return UIE_V_OK;
	if (ae->first_seq > p->next_seq) {
		at_record(rep, p->next_seq); /* skipped: the first at fault is the first missing */
		return fail(rep, UIE_V_CONTINUITY,
			    "evidence starts at record %llu, but we verified only %llu records",
			    (unsigned long long)ae->first_seq, (unsigned long long)p->next_seq);
	}
	if (end < p->next_seq)
		return fail(rep, UIE_V_CONTINUITY,
			    "the log ends at record %llu but we verified %llu records in this TPM boot: PCR "
			    "16 was reset",
			    (unsigned long long)end, (unsigned long long)p->next_seq);
	if (ae->first_seq == p->next_seq) {
		if (memcmp(p->pcr, ae->start_pcr, UIE_PCR_LEN) == 0)
			return UIE_V_OK;
		at_record(rep, ae->first_seq);
		return fail(rep, UIE_V_CONTINUITY,
			    "evidence from record %llu starts at another vPCR16 than the one we verified",
			    (unsigned long long)ae->first_seq);
	}
	cp->on = true;
	cp->seq = p->next_seq;
	memcpy(cp->pcr, p->pcr, UIE_PCR_LEN);
	return UIE_V_OK;
}

/* Keylime-style: safe clock, and (reset, restart, clock) never going back. */
static int check_clock(const struct uie_verify_input *in, const struct uie_tpm_quote *q,
		       struct uie_verify_report *rep)
{
	const struct uie_verify_state *p = in->prev;

	if (q->safe != 1)
		return fail(rep, UIE_V_CLOCK, "quote clock is not safe");
	if (!p || !p->valid)
		return UIE_V_OK;
	if (q->reset_count < p->reset_count)
		return fail(rep, UIE_V_CLOCK, "resetCount went back (%u < %u)", q->reset_count,
			    p->reset_count);
	if (q->reset_count == p->reset_count && q->restart_count < p->restart_count)
		return fail(rep, UIE_V_CLOCK, "restartCount went back (%u < %u)", q->restart_count,
			    p->restart_count);
	if (q->reset_count == p->reset_count && q->restart_count == p->restart_count && q->clock < p->clock)
		return fail(rep, UIE_V_CLOCK, "clock went back (%llu < %llu)", (unsigned long long)q->clock,
			    (unsigned long long)p->clock);
	return UIE_V_OK;
}

int uie_verify_ae(const struct uie_platform *pl, const struct uie_verify_input *in,
		  struct uie_verify_report *rep)
{
	struct uie_verify_checkpoint cp;
	struct uie_verify_report cont = { 0 }; /* check_continuity's finding */
	struct uie_tpm_quote q = { 0 };        /* the parse clears it too, out of the analyzer's sight */
	struct uie_ae ae;
	int r, cls;

	if (!rep)
		return UIE_V_INTERNAL;
	memset(rep, 0, sizeof(*rep));
	if (!pl || !in || !in->ae || !in->nonce || !in->nonce_len || !in->ak_der || (in->npols && !in->pols))
		return fail(rep, UIE_V_INTERNAL, "bad arguments");
	if ((r = uie_ae_parse(in->ae, in->ae_len, &ae)) != UIE_OK)
		return fail(rep, UIE_V_PARSE, "AE: %s", uie_err_str(r));
	rep->first_seq = ae.first_seq;
	rep->nrecords = ae.nrecords;
	rep->mode = ae.pm.mode;
	rep->epoch = ae.pm.epoch;
	memcpy(rep->vpcr, ae.vpcr, UIE_PCR_LEN);
	if ((cls = check_quote(in, &ae, &q, rep)) != UIE_V_OK)
		return cls;
	/*
	 * Whether the records are the machine's (they replay to its signed vPCR16) is settled
	 * before what they say about continuity: a record changed in transit is a replay
	 * failure, never a break in the machine's history.
	 */
	cont.cls = check_continuity(in, &ae, &q, &cp, &cont);
	if ((cls = uie_verify_log_walk(pl, in, &ae, &cp, rep)) == UIE_V_REPLAY || cls == UIE_V_INTERNAL)
		return cls;
	if (cont.cls != UIE_V_OK) {
		rep->has_seq = cont.has_seq;
		rep->seq = cont.seq;
		memcpy(rep->reason, cont.reason, sizeof(rep->reason));
		return rep->cls = cont.cls;
	}
	if (cls != UIE_V_OK || (cls = check_clock(in, &q, rep)) != UIE_V_OK)
		return cls;
	/* The walk checked PM against the log, so it can be remembered. */
	rep->next.valid = true;
	rep->next.clock = q.clock;
	rep->next.reset_count = q.reset_count;
	rep->next.restart_count = q.restart_count;
	rep->next.next_seq = ae.first_seq + ae.nrecords;
	memcpy(rep->next.pcr, ae.vpcr, UIE_PCR_LEN);
	rep->next.epoch = ae.pm.epoch;
	rep->next.mode = ae.pm.mode;
	memcpy(rep->next.policy_id, ae.pm.policy_id, sizeof(rep->next.policy_id));
	snprintf(rep->reason, sizeof(rep->reason), "evidence accepted");
	return UIE_V_OK;
}
