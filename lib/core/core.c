/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The monitor core: decision and evidence for every request, policy
 * installation, and the records that make each of them attestable.
 *
 * Every state change goes through core_log: a record is encoded and its
 * extend computed first, the host's sink makes it durable, and only then
 * does the core advance its sequence number and vPCR mirror.  A failed
 * append therefore leaves the core exactly as it was, and the request it
 * was for is denied.
 */
#include "uie/core.h"

#include "uie/err.h"
#include "uie/measure.h"

#include "mem.h"

/* Appends rec (numbered and stamped here) and advances the core on success. */
static int core_log(struct uie_core *c, struct uie_log_record *rec, uint64_t epoch)
{
	uint8_t buf[UIE_LOG_RECORD_LEN];
	uint8_t pcr[UIE_PCR_LEN];
	int r;

	rec->seq = c->next_seq;
	rec->pcr_index = UIE_LOG_PCR_INDEX;
	rec->epoch = epoch;
	uie_memcpy(pcr, c->vpcr, UIE_PCR_LEN);
	if ((r = uie_log_encode(c->pl, rec, buf)) != UIE_OK ||
	    (r = uie_pcr_extend(c->pl, pcr, rec->lrh)) != UIE_OK ||
	    (r = c->sink.append(c->sink.ctx, buf, rec->lrh)) != UIE_OK)
		return r;
	uie_memcpy(c->vpcr, pcr, UIE_PCR_LEN);
	c->next_seq++;
	return UIE_OK;
}

/*
 * A record the monitor writes of its own accord rather than for a request
 * (SUBJECT, WRITE_VIOLATION, REPEAT_COUNT): role NONE, the mode and epoch
 * in force; the caller has filled the rest of rec.
 */
static int log_own(struct uie_core *c, struct uie_log_record *rec, uint16_t event, uint8_t decision,
		   uint16_t reason)
{
	rec->event_type = event;
	rec->role = UIE_ROLE_NONE;
	rec->mode = c->mode;
	rec->decision = decision;
	rec->reason = reason;
	return core_log(c, rec, c->epoch);
}

static void rec_from_req(struct uie_log_record *rec, const struct uie_req *req)
{
	rec->event_type = req->event;
	rec->role = req->role;
	rec->pid = req->pid;
	rec->id = req->id;
	rec->vaddr = req->vaddr;
	rec->length = req->length;
	rec->file_offset = req->file_offset;
}

bool uie_req_valid(const struct uie_req *req)
{
	return req && uie_event_role_valid(req->event, req->role) && !(req->cond & ~UIE_COND_ALL) &&
	       req->fs < UIE_FS__MAX && ((req->cond == 0 && req->fs == 0) || req->role != UIE_ROLE_ANON) &&
	       (!(req->cond & UIE_COND_EXECMOD) || req->event != UIE_EV_EXECVE);
}

static bool req_ok(const struct uie_req *req)
{
	return uie_req_valid(req);
}

static bool digest_ok(const struct uie_digest *d)
{
	return d && uie_digest_ok(d, true);
}

/* Common start: bootstrap mode, then the first record (START or RESTART). */
static int core_start(struct uie_core *c, const struct uie_platform *pl, const struct uie_log_sink *sink,
		      uint16_t obj_alg, const struct uie_core_prev *prev)
{
	struct uie_log_record rec = { 0 };

	if (!c || !pl || !sink || !sink->append)
		return UIE_E_INVAL;
	if (!uie_hash_len(obj_alg))
		return UIE_E_ALG;
	uie_memset(c, 0, sizeof(*c));
	c->pl = pl;
	c->sink = *sink;
	c->obj_alg = obj_alg;
	c->mode = UIE_MODE_BOOTSTRAP;
	rec.event_type = UIE_LOG_MONITOR_START;
	rec.mode = UIE_MODE_BOOTSTRAP;
	rec.decision = UIE_ALLOW;
	rec.reason = UIE_R_MONITOR_START;
	if (prev) {
		rec.event_type = UIE_LOG_MONITOR_RESTART;
		rec.scope = UIE_SCOPE_CHAIN;
		rec.digest.alg = UIE_LOG_HASH_ALG;
		rec.digest.len = UIE_PCR_LEN;
		uie_memcpy(rec.digest.bytes, prev->pcr, UIE_PCR_LEN);
		rec.vaddr = prev->boot;
		rec.file_offset = prev->nrecords;
	}
	return core_log(c, &rec, 0);
}

int uie_core_init(struct uie_core *c, const struct uie_platform *pl, const struct uie_log_sink *sink,
		  uint16_t obj_alg)
{
	return core_start(c, pl, sink, obj_alg, NULL);
}

int uie_core_init_restart(struct uie_core *c, const struct uie_platform *pl, const struct uie_log_sink *sink,
			  uint16_t obj_alg, const struct uie_core_prev *prev)
{
	if (!prev)
		return UIE_E_INVAL;
	return core_start(c, pl, sink, obj_alg, prev);
}

uint16_t uie_core_obj_alg(const struct uie_core *c)
{
	return c->have_policy ? c->policy.hash_alg : c->obj_alg;
}

/* True when obj starts with the ELF magic: such objects must parse as ELF. */
static int is_elf(const struct uie_object *obj, bool *elf)
{
	uint8_t m[4];
	int r;

	*elf = false;
	if (obj->size < sizeof(m))
		return UIE_OK;
	if ((r = uie_object_read(obj, 0, m, sizeof(m))) != UIE_OK)
		return r;
	*elf = m[0] == 0x7f && m[1] == 'E' && m[2] == 'L' && m[3] == 'F';
	return UIE_OK;
}

int uie_measure_object(const struct uie_platform *pl, uint16_t alg, const struct uie_req *req,
		       const struct uie_object *obj, struct uie_digest *digest, uint8_t *scope)
{
	struct uie_elf_info info;
	bool elf;
	int r;

	if (digest)
		uie_memset(digest, 0, sizeof(*digest));
	if (scope)
		*scope = UIE_SCOPE_NONE;
	if (!pl || !req_ok(req) || !obj || !digest || !scope)
		return UIE_E_INVAL;
	if ((r = is_elf(obj, &elf)) != UIE_OK)
		return r;
	/* A script is a whole non-ELF file run by execve; a program (ANON's object) is ELF. */
	if ((req->role == UIE_ROLE_SCRIPT && (elf || req->event != UIE_EV_EXECVE)) ||
	    (req->role == UIE_ROLE_ANON && !elf))
		return UIE_E_FORMAT;
	if (!elf) {
		/* An exec'd non-ELF file (a script) is measured whole. */
		if (req->event == UIE_EV_EXECVE)
			r = uie_range_measure(pl, obj, alg, 0, obj->size, digest);
		else
			r = uie_range_measure(pl, obj, alg, req->file_offset, req->length, digest);
		if (r == UIE_OK)
			*scope = UIE_SCOPE_RANGE;
		return r;
	}
	if ((r = uie_elf_parse(obj, &info)) != UIE_OK)
		return r;
	if (req->event == UIE_EV_EXECVE || req->role == UIE_ROLE_ANON ||
	    uie_elf_covers(&info, req->file_offset, req->length) ||
	    (req->event == UIE_EV_MMAP_EXEC &&
	     uie_elf_is_reservation(&info, req->file_offset, req->length))) {
		r = uie_elf_digest(pl, obj, alg, &info, digest);
		if (r == UIE_OK)
			*scope = UIE_SCOPE_ELF;
		return r;
	}
	r = uie_range_measure(pl, obj, alg, req->file_offset, req->length, digest);
	if (r == UIE_OK)
		*scope = UIE_SCOPE_RANGE;
	return r;
}

int uie_core_measure(const struct uie_core *c, const struct uie_req *req, const struct uie_object *obj,
		     struct uie_digest *digest, uint8_t *scope)
{
	if (!c) {
		if (digest)
			uie_memset(digest, 0, sizeof(*digest));
		if (scope)
			*scope = UIE_SCOPE_NONE;
		return UIE_E_INVAL;
	}
	return uie_measure_object(c->pl, uie_core_obj_alg(c), req, obj, digest, scope);
}

/*
 * Anonymous memory going executable: allowed only by an ALLOW rule for
 * (event, ANON, digest of the process's main program), never by the
 * default action, a missing program or bootstrap (docs/FORMATS.md 3.4).
 */
static void evaluate_jit(const struct uie_core *c, const struct uie_req *req, int measure_err,
			 const struct uie_digest *digest, uint8_t scope, uint8_t *decision, uint16_t *reason)
{
	uint8_t d;
	uint16_t why;

	*reason = UIE_R_ANON_EXEC;
	if (measure_err != UIE_OK || scope != UIE_SCOPE_ELF || !c->have_policy ||
	    digest->alg != c->policy.hash_alg)
		return;
	uie_policy_lookup(&c->policy, (uint8_t)req->event, req->role, digest->bytes, &d, &why);
	if (d == UIE_ALLOW && why == UIE_R_RULE_ALLOW) {
		*decision = UIE_ALLOW;
		*reason = UIE_R_RULE_ALLOW;
	}
}

/* No subject, or a valid digest naming an earlier record other than record 0. */
static bool subject_ok(const struct uie_core *c, const struct uie_req *req)
{
	if (req->subject.alg == 0)
		return req->subject_seq == 0;
	return digest_ok(&req->subject) && req->subject_seq > 0 && req->subject_seq < c->next_seq;
}

/* The SUBJECT record (docs/FORMATS.md 3.3) of the grant record grant_seq. */
static int log_subject(struct uie_core *c, const struct uie_req *req, uint64_t grant_seq)
{
	struct uie_log_record rec = { 0 };

	rec.vaddr = req->subject_seq;
	rec.file_offset = grant_seq;
	rec.digest = req->subject;
	rec.scope = UIE_SCOPE_ELF;
	return log_own(c, &rec, UIE_LOG_SUBJECT, UIE_ALLOW, UIE_R_SUBJECT);
}

/*
 * The reason an allowed file is refused for its source (docs/FORMATS.md
 * 3.4, steps 8-10), or 0: the digest names the file, not bytes
 * another machine, a daemon or a later write may put in its pages.
 */
static uint16_t source_refusal(const struct uie_policy *pol, const struct uie_req *req)
{
	bool immutable = (req->cond & UIE_COND_IMMUTABLE) != 0;

	if (req->fs != UIE_FS_LOCAL && !(pol->trusted_fs & (1u << req->fs)))
		return UIE_R_REMOTE_FS;
	if ((pol->flags & UIE_POLICY_REQUIRE_IMMUTABLE) && !immutable)
		return UIE_R_MUTABLE;
	if ((req->cond & UIE_COND_UNSEALED) && !immutable)
		return UIE_R_UNSEALED;
	return 0;
}

/* What the policy (or its absence) says about a well-formed request. */
static void evaluate(const struct uie_core *c, const struct uie_req *req, int measure_err,
		     const struct uie_digest *digest, uint8_t scope, uint8_t *decision, uint16_t *reason)
{
	uint16_t refusal;

	*decision = UIE_DENY;
	if (req->role == UIE_ROLE_ANON)
		evaluate_jit(c, req, measure_err, digest, scope, decision, reason);
	else if (measure_err != UIE_OK)
		*reason = UIE_R_MEASURE_FAIL;
	else if (scope == UIE_SCOPE_NONE)
		*reason = UIE_R_FILELESS;
	else if (!c->have_policy) {
		*decision = UIE_ALLOW;
		*reason = UIE_R_BOOTSTRAP;
	} else if (digest->alg != c->policy.hash_alg) {
		/* Measured under a previous policy's algorithm: not comparable. */
		*reason = UIE_R_MEASURE_FAIL;
	} else {
		uie_policy_lookup(&c->policy, (uint8_t)req->event, req->role, digest->bytes, decision,
				  reason);
		if (req->cond & UIE_COND_EXECMOD) {
			*decision = UIE_DENY;
			*reason = UIE_R_EXECMOD;
		} else if (*decision == UIE_ALLOW && (refusal = source_refusal(&c->policy, req)) != 0) {
			*decision = UIE_DENY;
			*reason = refusal;
		}
	}
}

int uie_core_decide(struct uie_core *c, const struct uie_req *req, int measure_err,
		    const struct uie_digest *digest, uint8_t scope, struct uie_verdict *out)
{
	struct uie_log_record rec = { 0 };
	uint8_t pdec;
	uint16_t reason;
	bool measured, subj;
	int r;

	if (!out)
		return UIE_E_INVAL;
	uie_memset(out, 0, sizeof(*out)); /* decision DENY */
	if (!c || !req_ok(req) || measure_err > 0 || !subject_ok(c, req))
		return UIE_E_INVAL;
	subj = c->sink.seen && req->subject.alg != 0;
	measured = measure_err == UIE_OK && scope != UIE_SCOPE_NONE;
	if (measured && (scope != UIE_SCOPE_ELF && scope != UIE_SCOPE_RANGE))
		return UIE_E_INVAL;
	if (measured && req->role == UIE_ROLE_ANON && scope != UIE_SCOPE_ELF)
		return UIE_E_INVAL;
	if (measured && !digest_ok(digest))
		return UIE_E_INVAL;
	evaluate(c, req, measure_err, digest, scope, &pdec, &reason);
	rec_from_req(&rec, req);
	if (measured) {
		rec.digest = *digest;
		rec.scope = scope;
	}
	rec.mode = c->mode;
	rec.decision = pdec;
	rec.reason = reason;
	rec.epoch = c->epoch;
	if (c->sink.seen && c->sink.seen(c->sink.ctx, &rec, subj ? &req->subject : NULL, &rec.seq))
		; /* first-seen mode: the grant's record is an earlier one */
	else if ((r = core_log(c, &rec, c->epoch)) != UIE_OK)
		return r;
	else if (subj && (r = log_subject(c, req, rec.seq)) != UIE_OK)
		return r; /* the grant stands without its subject; the request is denied */
	out->decision = c->mode == UIE_MODE_ENFORCE ? pdec : UIE_ALLOW;
	out->policy_decision = pdec;
	out->reason = reason;
	out->scope = rec.scope;
	out->digest = rec.digest;
	out->seq = rec.seq;
	return UIE_OK;
}

int uie_core_log_fastpath(struct uie_core *c, const struct uie_req *req, const struct uie_digest *digest)
{
	struct uie_log_record rec = { 0 };

	if (!c || !req_ok(req) || (digest && !digest_ok(digest)))
		return UIE_E_INVAL;
	rec_from_req(&rec, req);
	rec.event_type = UIE_LOG_FASTPATH_REJECT;
	if (digest) {
		rec.digest = *digest;
		/* Files that are not ELF objects are measured by range (scripts whole). */
		rec.scope = req->role == UIE_ROLE_FILE || req->role == UIE_ROLE_SCRIPT ? UIE_SCOPE_RANGE
										       : UIE_SCOPE_ELF;
	}
	rec.mode = c->mode;
	rec.decision = UIE_DENY;
	rec.reason = UIE_R_FASTPATH_MISS;
	rec.epoch = c->epoch;
	if (c->sink.seen && c->sink.seen(c->sink.ctx, &rec, NULL, &rec.seq))
		return UIE_OK;
	return core_log(c, &rec, c->epoch);
}

int uie_core_log_violation(struct uie_core *c, uint32_t pid, const struct uie_file_id *id,
			   const struct uie_digest *digest, uint8_t scope, uint64_t *seq)
{
	struct uie_log_record rec = { 0 };
	int r;

	if (!c || !id || !seq || (digest != NULL) != (scope == UIE_SCOPE_ELF || scope == UIE_SCOPE_RANGE) ||
	    (digest && !digest_ok(digest)))
		return UIE_E_INVAL;
	rec.pid = pid;
	rec.id = *id;
	if (digest) {
		rec.digest = *digest;
		rec.scope = scope;
	}
	if ((r = log_own(c, &rec, UIE_LOG_WRITE_VIOLATION, UIE_DENY, UIE_R_WRITE_VIOLATION)) == UIE_OK)
		*seq = rec.seq;
	return r;
}

int uie_core_log_repeat(struct uie_core *c, uint64_t first_seq, uint64_t count, uint64_t *seq)
{
	struct uie_log_record rec = { 0 };
	int r;

	if (!c || !seq || first_seq >= c->next_seq || count < 2)
		return UIE_E_INVAL;
	rec.file_offset = first_seq;
	rec.length = count;
	if ((r = log_own(c, &rec, UIE_LOG_REPEAT_COUNT, UIE_ALLOW, UIE_R_REPEAT_COUNT)) == UIE_OK)
		*seq = rec.seq;
	return r;
}

/* A package-related record: the package hash is its digest. */
static void package_rec(struct uie_log_record *rec, uint16_t event, const uint8_t hash[UIE_SHA256_LEN])
{
	rec->event_type = event;
	rec->role = UIE_ROLE_NONE;
	rec->scope = UIE_SCOPE_PACKAGE;
	rec->digest.alg = UIE_HASH_SHA256;
	rec->digest.len = UIE_SHA256_LEN;
	uie_memcpy(rec->digest.bytes, hash, UIE_SHA256_LEN);
}

/* Swaps in a policy table and logs it as event (INSTALL or RESTORE) with reason. */
static int policy_swap(struct uie_core *c, const uint8_t *table, size_t len, uint64_t epoch,
		       const uint8_t package_hash[UIE_SHA256_LEN], uint16_t event, uint16_t reason)
{
	struct uie_log_record rec = { 0 };
	struct uie_policy pol;
	int r;

	if (!c || !table || !package_hash)
		return UIE_E_INVAL;
	if ((r = uie_policy_load(table, len, &pol)) != UIE_OK)
		return r;
	if (epoch <= c->epoch)
		return UIE_E_EPOCH;
	/* The record already states the new epoch and mode it installs. */
	package_rec(&rec, event, package_hash);
	rec.mode = pol.mode;
	rec.decision = UIE_ALLOW;
	rec.reason = reason;
	if ((r = core_log(c, &rec, epoch)) != UIE_OK)
		return r;
	c->policy = pol;
	c->have_policy = true;
	c->mode = pol.mode;
	c->epoch = epoch;
	uie_memcpy(c->policy_id, package_hash, UIE_SHA256_LEN);
	return UIE_OK;
}

int uie_core_install(struct uie_core *c, const uint8_t *table, size_t len, uint64_t epoch,
		     const uint8_t package_hash[UIE_SHA256_LEN])
{
	return policy_swap(c, table, len, epoch, package_hash, UIE_LOG_POLICY_INSTALL,
			   UIE_R_POLICY_INSTALLED);
}

int uie_core_restore(struct uie_core *c, const uint8_t *table, size_t len, uint64_t epoch,
		     const uint8_t package_hash[UIE_SHA256_LEN])
{
	if (!c)
		return UIE_E_INVAL;
	if (c->next_seq != 1 || c->have_policy)
		return UIE_E_STATE;
	return policy_swap(c, table, len, epoch, package_hash, UIE_LOG_POLICY_RESTORE, UIE_R_POLICY_RESTORED);
}

int uie_core_log_reject(struct uie_core *c, uint64_t epoch, const uint8_t package_hash[UIE_SHA256_LEN],
			int err)
{
	struct uie_log_record rec = { 0 };

	if (!c || !package_hash || err >= 0 || err <= UIE_E__MIN)
		return UIE_E_INVAL;
	package_rec(&rec, UIE_LOG_POLICY_REJECT, package_hash);
	rec.pid = (uint32_t)-err; /* the error that rejected it, as a positive code */
	rec.file_offset = epoch;  /* the epoch the package claimed */
	rec.mode = c->mode;
	rec.decision = UIE_DENY;
	rec.reason = UIE_R_POLICY_REJECTED;
	return core_log(c, &rec, c->epoch);
}
