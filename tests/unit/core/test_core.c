/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The monitor core: bootstrap, MEASURE and ENFORCE decisions, policy
 * installation with rollback protection, fail-closed behaviour when the log
 * sink fails, and a vPCR mirror that always equals the replay of its log.
 */
#include <stdarg.h>
#include <setjmp.h>
#include <string.h>

#include <cmocka.h>

#include "helpers.h"
#include "host_platform.h"
#include "uie/core.h"
#include "uie/err.h"
#include "uie/measure.h"
#include "tcommon.h"

static struct uie_host_platform hp;

struct fx {
	struct th_sink sink;
	struct uie_core core;
	uint8_t table[2][256];
	size_t table_len[2];
	struct uie_digest d_allow, d_deny, d_none;
};

static const uint8_t pkg_hash[32] = { 0xaa, 0xbb, 0xcc };

static struct uie_digest digest_of(uint8_t fill)
{
	struct uie_digest d = { .alg = UIE_HASH_SHA256, .len = 32 };

	memset(d.bytes, fill, 32);
	return d;
}

static int setup(void **state)
{
	static struct fx f;
	struct uie_policy_rule rules[5] = { 0 };
	struct uie_log_sink sink = { 0 };

	memset(&f, 0, sizeof(f));
	if (uie_host_platform_init(&hp) != UIE_OK)
		return -1;
	f.d_allow = digest_of(0x22);
	f.d_deny = digest_of(0x11);
	f.d_none = digest_of(0x33);
	/* 0x11: deny and allow rules for DSO; 0x22: allow for DSO. */
	rules[0] = (struct uie_policy_rule){ UIE_EV_MMAP_EXEC, UIE_ROLE_DSO, UIE_DENY, { 0 } };
	rules[1] = (struct uie_policy_rule){ UIE_EV_MMAP_EXEC, UIE_ROLE_DSO, UIE_ALLOW, { 0 } };
	/* JIT (role ANON): program 0x22 may by mprotect; program 0x11 is denied by mmap. */
	rules[2] = (struct uie_policy_rule){ UIE_EV_MMAP_EXEC, UIE_ROLE_ANON, UIE_DENY, { 0 } };
	rules[3] = (struct uie_policy_rule){ UIE_EV_MMAP_EXEC, UIE_ROLE_DSO, UIE_ALLOW, { 0 } };
	rules[4] = (struct uie_policy_rule){ UIE_EV_MPROTECT_EXEC, UIE_ROLE_ANON, UIE_ALLOW, { 0 } };
	for (int i = 0; i < 5; i++) /* canonical order: digest first */
		memset(rules[i].digest, i < 3 ? 0x11 : 0x22, 32);
	for (int m = 0; m < 2; m++)
		if (uie_policy_encode(m ? UIE_MODE_ENFORCE : UIE_MODE_MEASURE, UIE_DENY, UIE_HASH_SHA256,
				      rules, 5, f.table[m], sizeof(f.table[m]), &f.table_len[m]) != UIE_OK)
			return -1;
	sink = th_sink_of(&f.sink);
	if (uie_core_init(&f.core, &hp.pl, &sink, UIE_HASH_SHA384) != UIE_OK)
		return -1;
	*state = &f;
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	uie_host_platform_fini(&hp);
	return 0;
}

static struct uie_req dso_req(void)
{
	struct uie_req r = { .event = UIE_EV_MMAP_EXEC, .role = UIE_ROLE_DSO, .pid = 77 };

	r.id.ino = 99;
	r.vaddr = 0x7f0000000000;
	r.length = 0x1000;
	return r;
}

/* The log the sink holds replays to the core's vPCR mirror and numbering. */
static void check_log(const struct fx *f)
{
	uint8_t pcr[32] = { 0 };
	uint64_t bad;

	assert_int_equal(f->core.next_seq, f->sink.n);
	assert_int_equal(
		uie_log_replay(&hp.pl, f->sink.recs[0], f->sink.n * UIE_LOG_RECORD_LEN, 0, pcr, &bad),
		UIE_OK);
	assert_memory_equal(pcr, f->core.vpcr, 32);
}

static struct uie_log_record last_rec(const struct fx *f)
{
	struct uie_log_record r;

	assert_true(f->sink.n > 0);
	assert_int_equal(uie_log_decode(f->sink.recs[f->sink.n - 1], UIE_LOG_RECORD_LEN, &r), UIE_OK);
	return r;
}

static void decide(struct fx *f, struct uie_req req, int merr, const struct uie_digest *d, uint8_t scope,
		   uint8_t want_dec, uint8_t want_pdec, uint16_t want_reason)
{
	struct uie_verdict v;
	struct uie_log_record rec;

	memset(&v, 0xee, sizeof(v));
	assert_int_equal(uie_core_decide(&f->core, &req, merr, d, scope, &v), UIE_OK);
	assert_int_equal(v.decision, want_dec);
	assert_int_equal(v.policy_decision, want_pdec);
	assert_int_equal(v.reason, want_reason);
	assert_int_equal(v.seq, f->sink.n - 1);
	rec = last_rec(f);
	assert_int_equal(rec.seq, v.seq);
	assert_int_equal(rec.event_type, req.event);
	assert_int_equal(rec.role, req.role);
	assert_int_equal(rec.pid, req.pid);
	assert_int_equal(rec.mode, f->core.mode);
	assert_int_equal(rec.epoch, f->core.epoch);
	assert_int_equal(rec.decision, want_pdec);
	assert_int_equal(rec.reason, want_reason);
	assert_int_equal(rec.scope, v.scope);
	assert_memory_equal(&rec.digest, &v.digest, sizeof(v.digest));
	check_log(f);
}

/* Vector V6: the first record of every monitor. */
static void test_init_record(void **state)
{
	struct fx *f = *state;
	uint8_t want[32];
	struct uie_log_record r;

	assert_int_equal(f->sink.n, 1);
	r = last_rec(f);
	assert_int_equal(r.event_type, UIE_LOG_MONITOR_START);
	assert_int_equal(r.reason, UIE_R_MONITOR_START);
	tc_hex("e6d2e05db4a337426ac1a315c51426ec16b57a9c74555fd5c7752ce88a6f2078", want, 32);
	assert_memory_equal(r.lrh, want, 32);
	tc_hex("d1512dc611f34fa484c86334ace72fe85ec507b3dda840b68d3d35d6c6b1a946", want, 32);
	assert_memory_equal(f->core.vpcr, want, 32);
	assert_int_equal(f->core.mode, UIE_MODE_BOOTSTRAP);
	assert_int_equal(uie_core_obj_alg(&f->core), UIE_HASH_SHA384);
}

/* Bootstrap measures and logs everything and blocks nothing. */
static void test_bootstrap(void **state)
{
	struct fx *f = *state;
	struct uie_req anon = dso_req();
	struct uie_digest d384 = { .alg = UIE_HASH_SHA384, .len = 48 };

	memset(d384.bytes, 0x11, 48);
	decide(f, dso_req(), UIE_OK, &d384, UIE_SCOPE_ELF, UIE_ALLOW, UIE_ALLOW, UIE_R_BOOTSTRAP);
	decide(f, dso_req(), UIE_OK, &f->d_deny, UIE_SCOPE_RANGE, UIE_ALLOW, UIE_ALLOW, UIE_R_BOOTSTRAP);
	anon.role = UIE_ROLE_ANON;
	anon.event = UIE_EV_MPROTECT_EXEC;
	decide(f, anon, UIE_OK, NULL, UIE_SCOPE_NONE, UIE_ALLOW, UIE_DENY, UIE_R_ANON_EXEC);
	decide(f, dso_req(), UIE_E_ELF, NULL, UIE_SCOPE_NONE, UIE_ALLOW, UIE_DENY, UIE_R_MEASURE_FAIL);
	decide(f, dso_req(), UIE_OK, NULL, UIE_SCOPE_NONE, UIE_ALLOW, UIE_DENY, UIE_R_FILELESS);
	assert_int_equal(f->core.mode, UIE_MODE_BOOTSTRAP);
}

static void install(struct fx *f, int table, uint64_t epoch, int want)
{
	assert_int_equal(uie_core_install(&f->core, f->table[table], f->table_len[table], epoch, pkg_hash),
			 want);
}

/*
 * Sources (docs/FORMATS.md 3.4, steps 7-9): a file system kind the policy
 * does not trust (REMOTE_FS), a mutable file under require=immutable
 * (MUTABLE), both only where the policy would allow; IMMUTABLE makes
 * UNSEALED moot.
 */
static void test_sources(void **state)
{
	struct fx *f = *state;
	struct uie_policy_rule rule = { UIE_EV_MMAP_EXEC, UIE_ROLE_DSO, UIE_ALLOW, { 0 } };
	struct uie_policy_sources src = { .trusted_fs = 1u << UIE_FS_VIRTIOFS };
	struct uie_req q = dso_req();
	static uint8_t table[2][64]; /* the core keeps using the installed one */
	size_t len;

	memset(rule.digest, 0x22, 32);
	for (int req_imm = 0; req_imm < 2; req_imm++) {
		src.flags = req_imm ? UIE_POLICY_REQUIRE_IMMUTABLE : 0;
		assert_int_equal(uie_policy_encode_sources(UIE_MODE_ENFORCE, UIE_DENY, UIE_HASH_SHA256, &src,
							   &rule, 1, table[req_imm], sizeof(table[req_imm]),
							   &len),
				 UIE_OK);
		assert_int_equal(
			uie_core_install(&f->core, table[req_imm], len, 100 + (uint64_t)req_imm, pkg_hash),
			UIE_OK);
		assert_int_equal(f->core.policy.trusted_fs, src.trusted_fs);
		q = dso_req();
		q.fs = UIE_FS_FUSE;
		decide(f, q, UIE_OK, &f->d_allow, UIE_SCOPE_ELF, UIE_DENY, UIE_DENY, UIE_R_REMOTE_FS);
		decide(f, q, UIE_OK, &f->d_none, UIE_SCOPE_ELF, UIE_DENY, UIE_DENY, UIE_R_DEFAULT);
		q.fs = UIE_FS_VIRTIOFS; /* trusted */
		decide(f, q, UIE_OK, &f->d_allow, UIE_SCOPE_ELF, req_imm ? UIE_DENY : UIE_ALLOW,
		       req_imm ? UIE_DENY : UIE_ALLOW, req_imm ? UIE_R_MUTABLE : UIE_R_RULE_ALLOW);
		q.fs = UIE_FS_LOCAL;
		q.cond = UIE_COND_UNSEALED;
		decide(f, q, UIE_OK, &f->d_allow, UIE_SCOPE_ELF, UIE_DENY, UIE_DENY,
		       req_imm ? UIE_R_MUTABLE : UIE_R_UNSEALED);
		q.cond = UIE_COND_IMMUTABLE | UIE_COND_UNSEALED; /* nothing to seal */
		decide(f, q, UIE_OK, &f->d_allow, UIE_SCOPE_ELF, UIE_ALLOW, UIE_ALLOW, UIE_R_RULE_ALLOW);
		q.fs = UIE_FS_NFS; /* immutable is no excuse for an untrusted server */
		decide(f, q, UIE_OK, &f->d_allow, UIE_SCOPE_ELF, UIE_DENY, UIE_DENY, UIE_R_REMOTE_FS);
		q.cond = UIE_COND_EXECMOD; /* execmod first */
		decide(f, q, UIE_OK, &f->d_allow, UIE_SCOPE_ELF, UIE_DENY, UIE_DENY, UIE_R_EXECMOD);
		q.cond = 0;
		q.fs = UIE_FS__MAX;
		assert_int_equal(uie_core_decide(&f->core, &q, UIE_OK, &f->d_allow, UIE_SCOPE_ELF,
						 &(struct uie_verdict){ 0 }),
				 UIE_E_INVAL);
		q.fs = UIE_FS_FUSE; /* no source for anonymous memory */
		q.role = UIE_ROLE_ANON;
		q.event = UIE_EV_MPROTECT_EXEC;
		assert_int_equal(uie_core_decide(&f->core, &q, UIE_OK, &f->d_allow, UIE_SCOPE_ELF,
						 &(struct uie_verdict){ 0 }),
				 UIE_E_INVAL);
	}
	/* A table's sources outside what the format defines are refused by the encoder. */
	src.trusted_fs = 1u; /* bit 0: LOCAL is not a kind to trust */
	assert_int_equal(uie_policy_encode_sources(UIE_MODE_ENFORCE, UIE_DENY, UIE_HASH_SHA256, &src, &rule,
						   1, table[0], sizeof(table[0]), &len),
			 UIE_E_INVAL);
}

/* The same requests in MEASURE (never blocks) and ENFORCE (decides). */
static void test_modes(void **state)
{
	struct fx *f = *state;
	struct uie_req anon = dso_req();
	struct uie_req main_req = dso_req();

	anon.role = UIE_ROLE_ANON;
	main_req.event = UIE_EV_EXECVE;
	main_req.role = UIE_ROLE_MAIN;
	for (int m = 0; m < 2; m++) {
		uint8_t mode = m ? UIE_MODE_ENFORCE : UIE_MODE_MEASURE;
		struct uie_log_record rec;

		install(f, m, 10 + (uint64_t)m, UIE_OK);
		rec = last_rec(f);
		assert_int_equal(rec.event_type, UIE_LOG_POLICY_INSTALL);
		assert_int_equal(rec.epoch, 10 + m);
		assert_int_equal(rec.mode, mode);
		assert_int_equal(rec.scope, UIE_SCOPE_PACKAGE);
		assert_memory_equal(rec.digest.bytes, pkg_hash, 32);
		assert_int_equal(f->core.mode, mode);
		assert_int_equal(uie_core_obj_alg(&f->core), UIE_HASH_SHA256);
		/* deny > allow > default */
		decide(f, dso_req(), UIE_OK, &f->d_deny, UIE_SCOPE_ELF, m ? UIE_DENY : UIE_ALLOW, UIE_DENY,
		       UIE_R_RULE_DENY);
		decide(f, dso_req(), UIE_OK, &f->d_allow, UIE_SCOPE_ELF, UIE_ALLOW, UIE_ALLOW,
		       UIE_R_RULE_ALLOW);
		decide(f, dso_req(), UIE_OK, &f->d_none, UIE_SCOPE_RANGE, m ? UIE_DENY : UIE_ALLOW, UIE_DENY,
		       UIE_R_DEFAULT);
		decide(f, main_req, UIE_OK, &f->d_allow, UIE_SCOPE_ELF, m ? UIE_DENY : UIE_ALLOW, UIE_DENY,
		       UIE_R_DEFAULT);
		/* Conditions: execmod over any rule, unsealed only where the policy allows. */
		{
			struct uie_req q = dso_req();

			q.cond = UIE_COND_EXECMOD | UIE_COND_UNSEALED;
			decide(f, q, UIE_OK, &f->d_allow, UIE_SCOPE_ELF, m ? UIE_DENY : UIE_ALLOW, UIE_DENY,
			       UIE_R_EXECMOD);
			assert_memory_equal(last_rec(f).digest.bytes, f->d_allow.bytes, 32);
			q.cond = UIE_COND_UNSEALED;
			decide(f, q, UIE_OK, &f->d_allow, UIE_SCOPE_ELF, m ? UIE_DENY : UIE_ALLOW, UIE_DENY,
			       UIE_R_UNSEALED);
			decide(f, q, UIE_OK, &f->d_deny, UIE_SCOPE_ELF, m ? UIE_DENY : UIE_ALLOW, UIE_DENY,
			       UIE_R_RULE_DENY);
			q.event = UIE_EV_EXECVE; /* no execmod for an exec, no condition for ANON */
			q.role = UIE_ROLE_MAIN;
			q.cond = UIE_COND_EXECMOD;
			assert_int_equal(uie_core_decide(&f->core, &q, UIE_OK, &f->d_allow, UIE_SCOPE_ELF,
							 &(struct uie_verdict){ 0 }),
					 UIE_E_INVAL);
			q = anon;
			q.cond = UIE_COND_UNSEALED;
			assert_int_equal(uie_core_decide(&f->core, &q, UIE_OK, &f->d_allow, UIE_SCOPE_ELF,
							 &(struct uie_verdict){ 0 }),
					 UIE_E_INVAL);
		}
		/* Anonymous memory, failed measurement, stale algorithm. */
		decide(f, anon, UIE_OK, NULL, UIE_SCOPE_NONE, m ? UIE_DENY : UIE_ALLOW, UIE_DENY,
		       UIE_R_ANON_EXEC);
		/* JIT: only an ALLOW rule for the program's digest and this event allows. */
		anon.event = UIE_EV_MPROTECT_EXEC;
		decide(f, anon, UIE_OK, &f->d_allow, UIE_SCOPE_ELF, UIE_ALLOW, UIE_ALLOW, UIE_R_RULE_ALLOW);
		assert_memory_equal(last_rec(f).digest.bytes, f->d_allow.bytes, 32);
		decide(f, anon, UIE_OK, &f->d_none, UIE_SCOPE_ELF, m ? UIE_DENY : UIE_ALLOW, UIE_DENY,
		       UIE_R_ANON_EXEC);
		decide(f, anon, UIE_E_ELF, NULL, UIE_SCOPE_NONE, m ? UIE_DENY : UIE_ALLOW, UIE_DENY,
		       UIE_R_ANON_EXEC);
		assert_int_equal(uie_core_decide(&f->core, &anon, UIE_OK, &f->d_allow, UIE_SCOPE_RANGE,
						 &(struct uie_verdict){ 0 }),
				 UIE_E_INVAL);
		anon.event = UIE_EV_MMAP_EXEC;
		decide(f, anon, UIE_OK, &f->d_allow, UIE_SCOPE_ELF, m ? UIE_DENY : UIE_ALLOW, UIE_DENY,
		       UIE_R_ANON_EXEC);
		decide(f, anon, UIE_OK, &f->d_deny, UIE_SCOPE_ELF, m ? UIE_DENY : UIE_ALLOW, UIE_DENY,
		       UIE_R_ANON_EXEC);
		decide(f, dso_req(), UIE_E_IO, &f->d_allow, UIE_SCOPE_ELF, m ? UIE_DENY : UIE_ALLOW, UIE_DENY,
		       UIE_R_MEASURE_FAIL);
		{
			struct uie_digest d384 = { .alg = UIE_HASH_SHA384, .len = 48 };

			memcpy(d384.bytes, f->d_allow.bytes, 32);
			decide(f, dso_req(), UIE_OK, &d384, UIE_SCOPE_ELF, m ? UIE_DENY : UIE_ALLOW, UIE_DENY,
			       UIE_R_MEASURE_FAIL);
		}
	}
}

/* Rollback, bad tables and a failing sink change nothing. */
static void test_no_state_change(void **state)
{
	struct fx *f = *state;
	struct uie_core before;
	size_t n = f->sink.n;
	struct uie_verdict v;
	struct uie_req req = dso_req();
	uint8_t bad[256];

	memcpy(&before, &f->core, sizeof(before));
	assert_true(f->core.have_policy);
	install(f, 0, f->core.epoch, UIE_E_EPOCH);
	install(f, 0, f->core.epoch - 1, UIE_E_EPOCH);
	memcpy(bad, f->table[0], f->table_len[0]);
	bad[0] ^= 1;
	assert_int_equal(uie_core_install(&f->core, bad, f->table_len[0], 99, pkg_hash), UIE_E_FORMAT);
	assert_int_equal(uie_core_install(&f->core, bad, 3, 99, pkg_hash), UIE_E_TRUNCATED);
	assert_memory_equal(&f->core, &before, sizeof(before));
	assert_int_equal(f->sink.n, n);
	/* The sink fails: the request is denied and the core does not advance. */
	f->sink.fail = UIE_E_IO;
	memset(&v, 0xee, sizeof(v));
	assert_int_equal(uie_core_decide(&f->core, &req, UIE_OK, &f->d_allow, UIE_SCOPE_ELF, &v), UIE_E_IO);
	assert_int_equal(v.decision, UIE_DENY);
	assert_int_equal(v.policy_decision, UIE_DENY);
	install(f, 0, 99, UIE_E_IO);
	assert_int_equal(uie_core_log_reject(&f->core, 99, pkg_hash, UIE_E_SIGNATURE), UIE_E_IO);
	assert_int_equal(uie_core_log_fastpath(&f->core, &req, &f->d_none), UIE_E_IO);
	assert_memory_equal(&f->core, &before, sizeof(before));
	f->sink.fail = 0;
	/* Invalid requests are refused before anything is logged. */
	req.event = 0;
	assert_int_equal(uie_core_decide(&f->core, &req, UIE_OK, &f->d_allow, UIE_SCOPE_ELF, &v),
			 UIE_E_INVAL);
	req = dso_req();
	assert_int_equal(uie_core_decide(&f->core, &req, UIE_OK, NULL, UIE_SCOPE_ELF, &v), UIE_E_INVAL);
	assert_int_equal(uie_core_decide(&f->core, &req, UIE_OK, &f->d_allow, UIE_SCOPE_PACKAGE, &v),
			 UIE_E_INVAL);
	assert_int_equal(v.decision, UIE_DENY);
	assert_memory_equal(&f->core, &before, sizeof(before));
	check_log(f);
}

static void test_reject_and_fastpath(void **state)
{
	struct fx *f = *state;
	struct uie_req req = dso_req();
	struct uie_log_record rec;
	uint8_t pol[UIE_DIGEST_MAX];

	memcpy(pol, f->core.policy_id, 32);
	assert_int_equal(uie_core_log_reject(&f->core, 1234, pkg_hash, UIE_E_SIGNATURE), UIE_OK);
	rec = last_rec(f);
	assert_int_equal(rec.event_type, UIE_LOG_POLICY_REJECT);
	assert_int_equal(rec.reason, UIE_R_POLICY_REJECTED);
	assert_int_equal(rec.decision, UIE_DENY);
	assert_int_equal(rec.pid, -UIE_E_SIGNATURE);
	assert_int_equal(rec.file_offset, 1234);
	assert_int_equal(rec.epoch, f->core.epoch);
	assert_int_equal(uie_core_log_reject(&f->core, 1, pkg_hash, UIE_OK), UIE_E_INVAL);
	assert_int_equal(uie_core_log_fastpath(&f->core, &req, &f->d_none), UIE_OK);
	rec = last_rec(f);
	assert_int_equal(rec.event_type, UIE_LOG_FASTPATH_REJECT);
	assert_int_equal(rec.reason, UIE_R_FASTPATH_MISS);
	assert_int_equal(rec.scope, UIE_SCOPE_ELF);
	req.event = UIE_EV_EXECVE;
	req.role = UIE_ROLE_SCRIPT; /* a script's digest is a range digest */
	assert_int_equal(uie_core_log_fastpath(&f->core, &req, &f->d_none), UIE_OK);
	assert_int_equal(last_rec(f).scope, UIE_SCOPE_RANGE);
	assert_memory_equal(f->core.policy_id, pol, 32);
	check_log(f);
}

/* A write violation: DENY, WRITE_VIOLATION, role NONE, with or without a digest. */
static void test_violation(void **state)
{
	struct fx *f = *state;
	struct uie_req req = dso_req();
	struct uie_log_record rec;
	uint64_t seq = 0, next = f->core.next_seq;

	assert_int_equal(uie_core_log_violation(&f->core, 77, &req.id, &f->d_none, UIE_SCOPE_ELF, &seq),
			 UIE_OK);
	assert_int_equal(seq, next);
	rec = last_rec(f);
	assert_int_equal(rec.event_type, UIE_LOG_WRITE_VIOLATION);
	assert_int_equal(rec.role, UIE_ROLE_NONE);
	assert_int_equal(rec.decision, UIE_DENY);
	assert_int_equal(rec.reason, UIE_R_WRITE_VIOLATION);
	assert_int_equal(rec.pid, 77);
	assert_int_equal(rec.id.ino, req.id.ino);
	assert_int_equal(uie_core_log_violation(&f->core, 0, &req.id, NULL, UIE_SCOPE_NONE, &seq), UIE_OK);
	assert_int_equal(last_rec(f).scope, UIE_SCOPE_NONE);
	/* a digest without a scope, or a scope without a digest, changes nothing */
	next = f->core.next_seq;
	assert_int_equal(uie_core_log_violation(&f->core, 0, &req.id, &f->d_none, UIE_SCOPE_NONE, &seq),
			 UIE_E_INVAL);
	assert_int_equal(uie_core_log_violation(&f->core, 0, &req.id, NULL, UIE_SCOPE_ELF, &seq),
			 UIE_E_INVAL);
	assert_int_equal(f->core.next_seq, next);
	check_log(f);
}

/* A repeat count names an earlier record and at least 2 requests; nothing else is logged. */
static void test_repeat(void **state)
{
	struct fx *f = *state;
	struct uie_log_record rec;
	uint64_t seq = 0, next = f->core.next_seq;

	assert_int_equal(uie_core_log_repeat(&f->core, 0, 7, &seq), UIE_OK);
	assert_int_equal(seq, next);
	rec = last_rec(f);
	assert_int_equal(rec.event_type, UIE_LOG_REPEAT_COUNT);
	assert_int_equal(rec.role, UIE_ROLE_NONE);
	assert_int_equal(rec.scope, UIE_SCOPE_NONE);
	assert_int_equal(rec.decision, UIE_ALLOW);
	assert_int_equal(rec.reason, UIE_R_REPEAT_COUNT);
	assert_int_equal(rec.file_offset, 0);
	assert_int_equal(rec.length, 7);
	assert_int_equal(rec.epoch, f->core.epoch);
	assert_int_equal(rec.mode, f->core.mode);
	next = f->core.next_seq;
	assert_int_equal(uie_core_log_repeat(&f->core, next, 7, &seq), UIE_E_INVAL);
	assert_int_equal(uie_core_log_repeat(&f->core, 0, 1, &seq), UIE_E_INVAL);
	assert_int_equal(uie_core_log_repeat(&f->core, 0, 2, NULL), UIE_E_INVAL);
	assert_int_equal(f->core.next_seq, next);
	check_log(f);
}

/*
 * uie_core_measure of obj for req succeeds with the scope given and the
 * digest of that scope: the object digest (UIE_SCOPE_ELF), or the range
 * digest of [off, off + len) (UIE_SCOPE_RANGE).
 */
static void expect_measured(struct fx *f, const struct uie_req *req, const struct uie_object *obj,
			    uint8_t scope, uint64_t off, uint64_t len)
{
	struct uie_digest d, want;
	uint8_t got;

	assert_int_equal(uie_core_measure(&f->core, req, obj, &d, &got), UIE_OK);
	assert_int_equal(got, scope);
	if (scope == UIE_SCOPE_ELF)
		assert_int_equal(uie_elf_measure(&hp.pl, obj, UIE_HASH_SHA256, NULL, &want), UIE_OK);
	else
		assert_int_equal(uie_range_measure(&hp.pl, obj, UIE_HASH_SHA256, off, len, &want), UIE_OK);
	assert_memory_equal(&d, &want, sizeof(d));
}

/* uie_core_measure picks the object digest, the range digest, or fails. */
static void test_measure(void **state)
{
	struct fx *f = *state;
	uint8_t img[TH_TINY_ELF_LEN];
	struct uie_req req = dso_req();
	struct uie_digest d;
	struct th_obj o;
	uint8_t scope;

	tc_hex(th_tiny_elf_hex, img, sizeof(img));
	th_obj_init(&o, img, sizeof(img), false);
	req.file_offset = 0;
	req.length = 0x1000;
	expect_measured(f, &req, &o.obj, UIE_SCOPE_ELF, 0, 0);
	/* Beyond the code page: range digest of the requested range. */
	req.length = 0x2000;
	expect_measured(f, &req, &o.obj, UIE_SCOPE_RANGE, 0, 0x2000);
	/* EXECVE always takes the object digest. */
	req.event = UIE_EV_EXECVE;
	req.role = UIE_ROLE_MAIN;
	expect_measured(f, &req, &o.obj, UIE_SCOPE_ELF, 0, 0);
	/* A script: whole-file range digest. */
	th_obj_init(&o, "#!/bin/sh\nexit 0\n", 17, true);
	expect_measured(f, &req, &o.obj, UIE_SCOPE_RANGE, 0, 17);
	/* ELF magic but not a valid ELF64 object: the measurement fails. */
	img[4] = 1;
	th_obj_init(&o, img, sizeof(img), true);
	assert_int_equal(uie_core_measure(&f->core, &req, &o.obj, &d, &scope), UIE_E_ELF);
	assert_int_equal(scope, UIE_SCOPE_NONE);
	assert_int_equal(d.alg, 0);
	req.role = UIE_ROLE_ANON;
	assert_int_equal(uie_core_measure(&f->core, &req, &o.obj, &d, &scope), UIE_E_ELF);
	/* Role SCRIPT: a non-ELF file run by execve, measured whole; nothing else. */
	req.role = UIE_ROLE_SCRIPT;
	th_obj_init(&o, "#!/bin/sh\nexit 0\n", 17, true);
	expect_measured(f, &req, &o.obj, UIE_SCOPE_RANGE, 0, 17);
	req.event = UIE_EV_MMAP_EXEC;
	assert_int_equal(uie_core_measure(&f->core, &req, &o.obj, &d, &scope), UIE_E_FORMAT);
	req.event = UIE_EV_EXECVE;
	tc_hex(th_tiny_elf_hex, img, sizeof(img));
	th_obj_init(&o, img, sizeof(img), false);
	assert_int_equal(uie_core_measure(&f->core, &req, &o.obj, &d, &scope), UIE_E_FORMAT);
	/* Role ANON: the object is the process's program, whatever range is asked about. */
	req.role = UIE_ROLE_ANON;
	req.event = UIE_EV_MPROTECT_EXEC;
	req.length = 0x5000;
	expect_measured(f, &req, &o.obj, UIE_SCOPE_ELF, 0, 0);
	th_obj_init(&o, "#!/bin/sh\nexit 0\n", 17, true);
	assert_int_equal(uie_core_measure(&f->core, &req, &o.obj, &d, &scope), UIE_E_FORMAT);
}

/*
 * The loader's first mapping of an object whose code starts at offset 0
 * spans the whole image: the object digest for MMAP, a range otherwise.
 */
static void test_measure_reservation(void **state)
{
	struct fx *f = *state;
	uint8_t img[TH_TINY_ELF_LEN];
	struct uie_req req = dso_req();
	struct uie_digest d, want;
	struct th_obj o;
	uint8_t scope;
	uint64_t memsz = 0x3000;

	tc_hex(th_tiny_elf_hex, img, sizeof(img));
	/* p_memsz: the image spans 4 pages from vaddr 0x400000 (code at 0x4000b0), code in 1. */
	memcpy(img + 64 + 40, &memsz, sizeof(memsz));
	th_obj_init(&o, img, sizeof(img), false);
	assert_int_equal(uie_elf_measure(&hp.pl, &o.obj, UIE_HASH_SHA256, NULL, &want), UIE_OK);
	req.file_offset = 0;
	req.length = 0x4000;
	assert_int_equal(uie_core_measure(&f->core, &req, &o.obj, &d, &scope), UIE_OK);
	assert_int_equal(scope, UIE_SCOPE_ELF);
	assert_memory_equal(&d, &want, sizeof(d));
	req.length = 0x4001; /* longer than the image */
	assert_int_equal(uie_core_measure(&f->core, &req, &o.obj, &d, &scope), UIE_OK);
	assert_int_equal(scope, UIE_SCOPE_RANGE);
	req.length = 0x4000;
	req.event = UIE_EV_MPROTECT_EXEC; /* the loader does not mprotect it so */
	assert_int_equal(uie_core_measure(&f->core, &req, &o.obj, &d, &scope), UIE_OK);
	assert_int_equal(scope, UIE_SCOPE_RANGE);
	/* The same bytes without the ELF magic are data: a range. */
	req.event = UIE_EV_MMAP_EXEC;
	img[0] = 0;
	assert_int_equal(uie_core_measure(&f->core, &req, &o.obj, &d, &scope), UIE_OK);
	assert_int_equal(scope, UIE_SCOPE_RANGE);
}

/* Every reason code a record can carry has a description; others say so. */
static void test_reason_names(void **state)
{
	(void)state;
	for (uint16_t r = UIE_R_RULE_ALLOW; r < UIE_R__MAX; r++)
		assert_string_not_equal(uie_reason_str(r), "unknown reason");
	assert_string_equal(uie_reason_str(0), "unknown reason");
	assert_string_equal(uie_reason_str(UIE_R__MAX), "unknown reason");
	assert_string_equal(uie_reason_str(0xffff), "unknown reason");
}

/* One core walks through its life: the tests run in this order. */
TC_MAIN(setup, teardown, cmocka_unit_test(test_init_record), cmocka_unit_test(test_bootstrap),
	cmocka_unit_test(test_modes), cmocka_unit_test(test_no_state_change),
	cmocka_unit_test(test_violation), cmocka_unit_test(test_repeat),
	cmocka_unit_test(test_reject_and_fastpath), cmocka_unit_test(test_measure),
	cmocka_unit_test(test_measure_reservation),
	cmocka_unit_test(test_sources), /* installs policies of its own */
	cmocka_unit_test(test_reason_names))
