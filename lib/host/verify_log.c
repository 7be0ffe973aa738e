/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The pass over the log: each record is replayed (decode, number, LRH,
 * extend) towards the quoted vPCR16 and audited: the policy metadata PM
 * (not covered by the quote) must agree with what the log says, every
 * digest that became executable must be a reference value, every recorded
 * decision must be what the policy active at that epoch decides.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "evidence.h"
#include "uie/err.h"
#include "verify.h"

/* First failure of one class, remembered while the walk goes on. */
struct finding {
	bool hit;
	uint64_t seq;
	char what[200];
};

__attribute__((format(printf, 3, 4))) static void note(struct finding *f, uint64_t seq, const char *fmt, ...)
{
	va_list ap;

	if (f->hit)
		return;
	f->hit = true;
	f->seq = seq;
	va_start(ap, fmt);
	vsnprintf(f->what, sizeof(f->what), fmt, ap);
	va_end(ap);
}

static const char *dec_name(uint8_t d)
{
	return d == UIE_ALLOW ? "ALLOW" : d == UIE_DENY ? "DENY" : "?";
}

static const struct uie_verify_policy *find_policy(const struct uie_verify_input *in, uint64_t epoch)
{
	for (size_t i = 0; i < in->npols; i++)
		if (in->pols[i].epoch == epoch)
			return &in->pols[i];
	return NULL;
}

/* Notes which given policies are of epoch (a record's). */
static void saw_epoch(const struct uie_verify_input *in, uint64_t epoch, struct uie_verify_report *rep)
{
	for (size_t i = 0; i < in->npols && i < 64; i++)
		if (in->pols[i].epoch == epoch)
			rep->pols_seen |= 1ull << i;
}

static bool is_exec(uint16_t ev)
{
	return ev == UIE_LOG_EXECVE || ev == UIE_LOG_MMAP_EXEC || ev == UIE_LOG_MPROTECT_EXEC;
}

static bool measured(const struct uie_log_record *r)
{
	return (r->scope == UIE_SCOPE_ELF || r->scope == UIE_SCOPE_RANGE) && r->digest.alg != 0;
}

/* Counts a grant refused for its source (UNSEALED, REMOTE_FS, MUTABLE), and names the first. */
static void count_source_refusal(struct uie_verify_report *rep, const struct uie_log_record *r)
{
	uint64_t *n = r->reason == UIE_R_UNSEALED    ? &rep->unsealed_records
		      : r->reason == UIE_R_REMOTE_FS ? &rep->remote_fs_records
						     : &rep->mutable_records;
	uint64_t *first = r->reason == UIE_R_UNSEALED    ? &rep->unsealed_first
			  : r->reason == UIE_R_REMOTE_FS ? &rep->remote_fs_first
							 : &rep->mutable_first;

	if (!(*n)++)
		*first = r->seq;
}

/*
 * Whether the policy lets a grant it allows be refused for this reason of
 * its source (docs/FORMATS.md 3.4): UNSEALED always; REMOTE_FS unless it
 * trusts every kind of file system; MUTABLE only when it requires
 * immutable sources.  Which file system a file was on is the monitor's
 * statement (records do not carry it).
 */
static bool source_refusal_possible(const struct uie_policy *pol, uint16_t reason)
{
	switch (reason) {
	case UIE_R_UNSEALED: return true;
	case UIE_R_REMOTE_FS: return pol->trusted_fs != UIE_POLICY_FS_ALL;
	case UIE_R_MUTABLE: return (pol->flags & UIE_POLICY_REQUIRE_IMMUTABLE) != 0;
	default: return false;
	}
}

/* The decision an exec record must carry, given the policy of its epoch. */
static void check_decision(const struct uie_verify_input *in, const struct uie_log_record *r,
			   struct uie_verify_report *rep, struct finding *f)
{
	const struct uie_verify_policy *p;
	uint8_t dec;
	uint16_t reason;

	switch (r->reason) {
	case UIE_R_BOOTSTRAP:
		if (r->epoch != 0 || r->decision != UIE_ALLOW || !measured(r))
			note(f, r->seq, "bootstrap decision recorded at epoch %llu",
			     (unsigned long long)r->epoch);
		return;
	case UIE_R_MEASURE_FAIL:
	case UIE_R_FILELESS:
	case UIE_R_UNSUPPORTED:
	case UIE_R_RACE:
	case UIE_R_ANON_EXEC:
		if (r->decision != UIE_DENY || (r->reason == UIE_R_ANON_EXEC) != (r->role == UIE_ROLE_ANON))
			note(f, r->seq, "recorded %s with reason %u, which must deny", dec_name(r->decision),
			     r->reason);
		return;
	case UIE_R_EXECMOD:
		if (r->decision != UIE_DENY || r->role == UIE_ROLE_ANON || r->event_type == UIE_LOG_EXECVE)
			note(f, r->seq, "execmod recorded as %s for event %u", dec_name(r->decision),
			     r->event_type);
		else if (!rep->execmod_records++)
			rep->execmod_first = r->seq;
		return;
	case UIE_R_UNSEALED:
	case UIE_R_REMOTE_FS:
	case UIE_R_MUTABLE:
		if (r->decision != UIE_DENY || r->role == UIE_ROLE_ANON) {
			note(f, r->seq, "grant refused for its source (reason %u) recorded as %s", r->reason,
			     dec_name(r->decision));
			return;
		}
		count_source_refusal(rep, r);
		break; /* the policy must allow the digest: only the source was wrong */
	case UIE_R_RULE_ALLOW:
	case UIE_R_RULE_DENY:
	case UIE_R_DEFAULT:
		/* Anonymous memory is allowed by a JIT rule or denied as ANON_EXEC, nothing else. */
		if (r->role == UIE_ROLE_ANON && r->reason != UIE_R_RULE_ALLOW) {
			note(f, r->seq, "anonymous memory recorded with reason %u", r->reason);
			return;
		}
		break;
	default: note(f, r->seq, "reason %u is not a decision reason", r->reason); return;
	}
	if (!(p = find_policy(in, r->epoch))) {
		rep->decisions_unchecked++;
		return;
	}
	rep->decisions_checked++;
	if (!measured(r) || r->digest.alg != p->table.hash_alg) {
		note(f, r->seq, "policy decision on a digest the policy of epoch %llu cannot match",
		     (unsigned long long)r->epoch);
		return;
	}
	uie_policy_lookup(&p->table, (uint8_t)r->event_type, r->role, r->digest.bytes, &dec, &reason);
	if (source_refusal_possible(&p->table, r->reason) && dec == UIE_ALLOW) {
		dec = UIE_DENY;
		reason = r->reason;
	}
	if (dec != r->decision || reason != r->reason || r->mode != p->table.mode)
		note(f, r->seq,
		     "recorded %s (reason %u, mode %u) but the policy of epoch %llu decides %s (reason %u, "
		     "mode %u)",
		     dec_name(r->decision), r->reason, r->mode, (unsigned long long)r->epoch, dec_name(dec),
		     reason, p->table.mode);
}

static void check_install(const struct uie_verify_input *in, const struct uie_log_record *r,
			  struct finding *f)
{
	const struct uie_verify_policy *p = find_policy(in, r->epoch);

	if (!p)
		return;
	if (r->digest.len != 32 || memcmp(r->digest.bytes, p->package_hash, 32) != 0)
		note(f, r->seq, "the package installed at epoch %llu is not the policy given",
		     (unsigned long long)r->epoch);
	else if (r->mode != p->table.mode)
		note(f, r->seq, "install record mode %u differs from the policy's %u", r->mode,
		     p->table.mode);
}

/*
 * A Bloom-hint miss claims that no rule allows the digest under any
 * event (docs/FORMATS.md 3.3): the policy of the epoch must agree.
 */
static void check_fastpath(const struct uie_verify_input *in, const struct uie_log_record *r,
			   struct finding *f)
{
	const struct uie_verify_policy *p = find_policy(in, r->epoch);
	uint8_t dec;
	uint16_t reason;

	if (r->decision != UIE_DENY || r->reason != UIE_R_FASTPATH_MISS) {
		note(f, r->seq, "fast-path rejection recorded as %s", dec_name(r->decision));
		return;
	}
	if (!p || !measured(r) || r->digest.alg != p->table.hash_alg)
		return;
	for (unsigned int ev = UIE_EV_EXECVE; ev < UIE_EV__MAX; ev++) {
		uie_policy_lookup(&p->table, (uint8_t)ev, r->role, r->digest.bytes, &dec, &reason);
		if (dec == UIE_ALLOW) {
			note(f, r->seq, "fast path rejected a digest the policy of epoch %llu allows",
			     (unsigned long long)r->epoch);
			return;
		}
	}
}

static void check_reference(const struct uie_verify_input *in, const struct uie_log_record *r,
			    struct uie_verify_report *rep, struct finding *f)
{
	/* Outside ENFORCE the guest executes whatever was decided. */
	bool executed = r->decision == UIE_ALLOW || r->mode != UIE_MODE_ENFORCE;

	if (!in->ref || !measured(r))
		return;
	rep->ref_checked++;
	if (uie_refset_has(in->ref, &r->digest))
		return;
	if (executed)
		note(f, r->seq, "executed digest is not in the reference values");
	else
		rep->unknown_denied++;
}

/* PM against the log's last record, the last install, and the previous state. */
static void check_metadata(const struct uie_verify_input *in, const struct uie_ae *ae,
			   const struct uie_log_record *last, const uint8_t *install_id, struct finding *f)
{
	static const uint8_t zero[32];
	const struct uie_verify_state *p = in->prev;
	const uint8_t *want_id = install_id;
	uint64_t end = ae->first_seq + ae->nrecords;

	if (ae->pm.total_records != end)
		note(f, end, "PM claims %llu records, the evidence holds %llu",
		     (unsigned long long)ae->pm.total_records, (unsigned long long)end);
	if (last && (ae->pm.epoch != last->epoch || ae->pm.mode != last->mode))
		note(f, last->seq, "PM epoch %llu/mode %u, the log says epoch %llu/mode %u",
		     (unsigned long long)ae->pm.epoch, ae->pm.mode, (unsigned long long)last->epoch,
		     last->mode);
	if (!want_id && ae->first_seq == 0)
		want_id = zero;
	if (!want_id && p && p->valid)
		want_id = p->policy_id;
	if (!last && p && p->valid && (ae->pm.epoch != p->epoch || ae->pm.mode != p->mode))
		note(f, end, "PM epoch/mode changed without a record");
	if (want_id && memcmp(ae->pm.policy_id, want_id, 32) != 0)
		note(f, end, "PM policy id is not the package hash of the last install");
}

static int fail_seq(struct uie_verify_report *rep, int cls, uint64_t seq, const char *what)
{
	rep->has_seq = true;
	rep->seq = seq;
	snprintf(rep->reason, sizeof(rep->reason), "record %llu: %s", (unsigned long long)seq, what);
	return rep->cls = cls;
}

/*
 * The records did not replay: let the core's uie_log_replay name the
 * record, and say what is wrong with it.
 */
static int diagnose_record(const struct uie_platform *pl, const struct uie_ae *ae,
			   struct uie_verify_report *rep)
{
	struct uie_log_record rec;
	uint8_t pcr[UIE_PCR_LEN];
	uint64_t bad = 0;
	char what[160];
	int r;

	memcpy(pcr, ae->start_pcr, UIE_PCR_LEN);
	r = uie_log_replay(pl, ae->records, (size_t)ae->nrecords * UIE_LOG_RECORD_LEN, ae->first_seq, pcr,
			   &bad);
	if (r == UIE_OK || bad < ae->first_seq || bad - ae->first_seq >= ae->nrecords) {
		snprintf(rep->reason, sizeof(rep->reason), "replay: %s", uie_err_str(r));
		return rep->cls = r == UIE_OK ? UIE_V_INTERNAL : UIE_V_REPLAY;
	}
	if (r == UIE_E_CRYPTO || r == UIE_E_LIMIT || r == UIE_E_NOMEM) {
		snprintf(rep->reason, sizeof(rep->reason), "replay: %s", uie_err_str(r));
		return rep->cls = UIE_V_INTERNAL;
	}
	if (uie_log_decode(ae->records + (bad - ae->first_seq) * UIE_LOG_RECORD_LEN, UIE_LOG_RECORD_LEN,
			   &rec) != UIE_OK)
		snprintf(what, sizeof(what), "malformed record (%s)", uie_err_str(r));
	else if (rec.seq != bad)
		snprintf(what, sizeof(what),
			 "found record number %llu here: records deleted, reordered or inserted",
			 (unsigned long long)rec.seq);
	else
		snprintf(what, sizeof(what), "LRH does not match the record: modified");
	return fail_seq(rep, UIE_V_REPLAY, bad, what);
}

/*
 * The log replayed without error but ended elsewhere: name the first
 * record past the quoted state (appended records), else the end.
 */
static int diagnose_end(const struct uie_platform *pl, const struct uie_ae *ae, struct uie_verify_report *rep)
{
	uint8_t pcr[UIE_PCR_LEN];
	uint64_t bad = 0;
	char what[160];

	memcpy(pcr, ae->start_pcr, UIE_PCR_LEN);
	for (uint64_t i = 0; i < ae->nrecords; i++) {
		if (!memcmp(pcr, ae->vpcr, UIE_PCR_LEN))
			return fail_seq(rep, UIE_V_REPLAY, ae->first_seq + i,
					"this and later records are not covered by the quote (appended)");
		if (uie_log_replay(pl, ae->records + i * UIE_LOG_RECORD_LEN, UIE_LOG_RECORD_LEN,
				   ae->first_seq + i, pcr, &bad) != UIE_OK) {
			snprintf(rep->reason, sizeof(rep->reason), "replay failed on the second pass");
			return rep->cls = UIE_V_INTERNAL;
		}
	}
	if (ae->pm.total_records > ae->first_seq + ae->nrecords)
		snprintf(what, sizeof(what),
			 "log truncated: replay ends before the quoted vPCR16 (%llu records claimed)",
			 (unsigned long long)ae->pm.total_records);
	else
		snprintf(what, sizeof(what), "replay ends at a vPCR16 other than the quoted one");
	return fail_seq(rep, UIE_V_REPLAY, ae->first_seq + ae->nrecords, what);
}

/*
 * A write violation (docs/FORMATS.md 3.5) is valid evidence of a machine
 * that ran bytes nobody measured: the evidence is not accepted.
 */
static void check_violation(const struct uie_log_record *r, struct finding *viol, struct finding *pol)
{
	if (r->decision != UIE_DENY || r->reason != UIE_R_WRITE_VIOLATION || r->role != UIE_ROLE_NONE) {
		note(pol, r->seq, "write violation recorded as %s with reason %u", dec_name(r->decision),
		     r->reason);
		return;
	}
	note(viol, r->seq,
	     "the file of an approved executable mapping was written (dev %llu inode %llu, "
	     "by pid %u)",
	     (unsigned long long)r->id.dev, (unsigned long long)r->id.ino, r->pid);
}

/*
 * Start records: MONITOR_START or MONITOR_RESTART only as record 0, and
 * POLICY_RESTORE only as record 1 after a MONITOR_RESTART (docs/FORMATS.md
 * 3.6).  A restart's link to the previous run is reported.
 */
static void check_start(const struct uie_log_record *r, const struct uie_log_record *prev,
			struct uie_verify_report *rep, struct finding *f)
{
	switch (r->event_type) {
	case UIE_LOG_MONITOR_START:
	case UIE_LOG_MONITOR_RESTART:
		if (r->seq != 0)
			note(f, r->seq, "a monitor start record in the middle of the log");
		else if (r->mode != UIE_MODE_BOOTSTRAP || r->epoch != 0 || r->decision != UIE_ALLOW ||
			 r->reason != UIE_R_MONITOR_START ||
			 (r->event_type == UIE_LOG_MONITOR_RESTART) != (r->scope == UIE_SCOPE_CHAIN))
			note(f, r->seq, "malformed monitor start record");
		if (r->event_type == UIE_LOG_MONITOR_RESTART && r->seq == 0) {
			rep->restarted = true;
			rep->prev_boot = r->vaddr;
			rep->prev_records = r->file_offset;
			memcpy(rep->prev_pcr, r->digest.bytes, UIE_PCR_LEN);
		}
		return;
	case UIE_LOG_POLICY_RESTORE:
		/* prev is NULL when record 0 was verified before (an incremental export). */
		if (r->seq != 1 || (prev && prev->event_type != UIE_LOG_MONITOR_RESTART) ||
		    r->reason != UIE_R_POLICY_RESTORED || r->decision != UIE_ALLOW)
			note(f, r->seq, "a policy restore that does not follow a monitor restart");
		return;
	default: return;
	}
}

/*
 * A REPEAT_COUNT record (docs/FORMATS.md 3.7) names an earlier record
 * (`file_offset`) and the requests it stood for so far (`length`, at least
 * 2).  When that record is in this evidence it must be an exec decision or
 * a fast-path refusal.
 */
static void check_repeat(const struct uie_ae *ae, const struct uie_log_record *r,
			 struct uie_verify_report *rep, struct finding *f)
{
	struct uie_log_record first;
	uint64_t ref = r->file_offset;

	if (r->role != UIE_ROLE_NONE || r->scope != UIE_SCOPE_NONE || r->decision != UIE_ALLOW ||
	    r->reason != UIE_R_REPEAT_COUNT || r->pid != 0 || r->vaddr != 0 || r->length < 2 || r->id.dev ||
	    r->id.ino || r->id.size || r->id.mtime_ns || r->id.ctime_ns || ref >= r->seq) {
		note(f, r->seq, "malformed repeat count record");
		return;
	}
	rep->repeat_records++;
	if (ref < ae->first_seq) {
		rep->repeat_unresolved++;
		return;
	}
	/* Records before r already replayed, so this one decodes. */
	if (uie_log_decode(ae->records + (ref - ae->first_seq) * UIE_LOG_RECORD_LEN, UIE_LOG_RECORD_LEN,
			   &first) != UIE_OK ||
	    (!is_exec(first.event_type) && first.event_type != UIE_LOG_FASTPATH_REJECT)) {
		note(f, r->seq, "repeat count for record %llu, which is no decision",
		     (unsigned long long)ref);
		return;
	}
}

/*
 * A SUBJECT record (docs/FORMATS.md 3.7) follows the grant record it
 * qualifies (`file_offset`, the record before it, an exec decision) and
 * names the program it was made for: its digest, and in `vaddr` the
 * EXECVE record that granted that program, which, when it is in this
 * evidence, must be an EXECVE of an ELF main program or interpreter with
 * the same digest that ran (ALLOW, or any decision outside ENFORCE).
 */
static void check_subject(const struct uie_ae *ae, const struct uie_log_record *r,
			  const struct uie_log_record *prev, struct uie_verify_report *rep, struct finding *f)
{
	struct uie_log_record x;
	uint64_t at = r->vaddr;

	if (r->role != UIE_ROLE_NONE || r->scope != UIE_SCOPE_ELF || r->decision != UIE_ALLOW ||
	    r->reason != UIE_R_SUBJECT || r->pid != 0 || r->length != 0 || r->id.dev || r->id.ino ||
	    r->id.size || r->id.mtime_ns || r->id.ctime_ns || r->seq == 0 || r->file_offset != r->seq - 1 ||
	    at == 0 || at >= r->file_offset) {
		note(f, r->seq, "malformed subject record");
		return;
	}
	/* prev is NULL when the grant was verified with an earlier export. */
	if (prev && (!is_exec(prev->event_type) || prev->epoch != r->epoch || prev->mode != r->mode)) {
		note(f, r->seq, "subject record after record %llu, which is no decision",
		     (unsigned long long)r->file_offset);
		return;
	}
	rep->subject_records++;
	if (at < ae->first_seq) {
		rep->subject_unresolved++;
		return;
	}
	/* Records before r already replayed, so this one decodes. */
	if (uie_log_decode(ae->records + (at - ae->first_seq) * UIE_LOG_RECORD_LEN, UIE_LOG_RECORD_LEN, &x) !=
		    UIE_OK ||
	    x.event_type != UIE_LOG_EXECVE || (x.role != UIE_ROLE_MAIN && x.role != UIE_ROLE_INTERP) ||
	    x.scope != UIE_SCOPE_ELF || (x.decision != UIE_ALLOW && x.mode == UIE_MODE_ENFORCE) ||
	    x.digest.alg != r->digest.alg || memcmp(x.digest.bytes, r->digest.bytes, UIE_DIGEST_MAX) != 0)
		note(f, r->seq, "subject record names record %llu, which is no grant of that program",
		     (unsigned long long)at);
}

/* Checks of one replayed record. */
static void audit(const struct uie_verify_input *in, const struct uie_ae *ae, const struct uie_log_record *r,
		  const struct uie_log_record *prev, struct uie_verify_report *rep, struct finding *ref,
		  struct finding *pol, struct finding *viol, struct finding *meta, uint8_t install_id[32],
		  bool *have_install)
{
	if (is_exec(r->event_type)) {
		rep->exec_records++;
		check_reference(in, r, rep, ref);
		check_decision(in, r, rep, pol);
	} else if (r->event_type == UIE_LOG_POLICY_INSTALL || r->event_type == UIE_LOG_POLICY_RESTORE) {
		check_install(in, r, pol);
		memcpy(install_id, r->digest.bytes, 32);
		*have_install = true;
	} else if (r->event_type == UIE_LOG_FASTPATH_REJECT) {
		check_fastpath(in, r, pol);
	} else if (r->event_type == UIE_LOG_WRITE_VIOLATION) {
		check_violation(r, viol, pol);
	} else if (r->event_type == UIE_LOG_REPEAT_COUNT) {
		check_repeat(ae, r, rep, meta);
	} else if (r->event_type == UIE_LOG_SUBJECT) {
		check_subject(ae, r, prev, rep, meta);
	}
}

static bool checkpoint_fails(const struct uie_verify_checkpoint *cp, uint64_t seq,
			     const uint8_t pcr[UIE_PCR_LEN])
{
	return cp && cp->on && cp->seq == seq && memcmp(cp->pcr, pcr, UIE_PCR_LEN) != 0;
}

int uie_verify_log_walk(const struct uie_platform *pl, const struct uie_verify_input *in,
			const struct uie_ae *ae, const struct uie_verify_checkpoint *cp,
			struct uie_verify_report *rep)
{
	struct finding cont = { 0 }, meta = { 0 }, ref = { 0 }, pol = { 0 }, viol = { 0 };
	struct uie_log_record r, last = { 0 };
	uint8_t install_id[32], pcr[UIE_PCR_LEN], lrh[UIE_PCR_LEN];
	bool have_install = false;

	/* Decoded once, then replayed and audited: half the work of two passes. */
	memcpy(pcr, ae->start_pcr, UIE_PCR_LEN);
	for (uint64_t i = 0; i < ae->nrecords; i++) {
		const uint8_t *p = ae->records + i * UIE_LOG_RECORD_LEN;

		if (checkpoint_fails(cp, ae->first_seq + i, pcr))
			note(&cont, ae->first_seq + i,
			     "the records before this one differ from those verified before");
		if (uie_log_decode(p, UIE_LOG_RECORD_LEN, &r) != UIE_OK || r.seq != ae->first_seq + i ||
		    uie_log_lrh(pl, p, lrh) != UIE_OK || memcmp(lrh, r.lrh, UIE_PCR_LEN) != 0 ||
		    uie_pcr_extend(pl, pcr, lrh) != UIE_OK)
			return diagnose_record(pl, ae, rep);
		if (!i || r.epoch != last.epoch)
			saw_epoch(in, r.epoch, rep);
		check_start(&r, i ? &last : NULL, rep, &meta);
		audit(in, ae, &r, i ? &last : NULL, rep, &ref, &pol, &viol, &meta, install_id, &have_install);
		last = r;
	}
	if (checkpoint_fails(cp, ae->first_seq + ae->nrecords, pcr))
		note(&cont, ae->first_seq + ae->nrecords, "the records differ from those verified before");
	/* Records that do not replay to the signed vPCR16 are not the machine's: nothing else counts. */
	if (memcmp(pcr, ae->vpcr, UIE_PCR_LEN) != 0)
		return diagnose_end(pl, ae, rep);
	check_metadata(in, ae, ae->nrecords ? &last : NULL, have_install ? install_id : NULL, &meta);
	struct {
		struct finding *f;
		int cls;
	} order[] = { /* what the machine's signed records say first; PM, which it does not sign, last */
		      { &cont, UIE_V_CONTINUITY },
		      { &viol, UIE_V_VIOLATION },
		      { &ref, UIE_V_REFERENCE },
		      { &pol, UIE_V_POLICY },
		      { &meta, UIE_V_METADATA }
	};
	for (size_t k = 0; k < sizeof(order) / sizeof(order[0]); k++)
		if (order[k].f->hit)
			return fail_seq(rep, order[k].cls, order[k].f->seq, order[k].f->what);
	return UIE_V_OK;
}
