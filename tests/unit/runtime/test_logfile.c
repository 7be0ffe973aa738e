/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The write-ahead log file and first-seen mode (docs/FORMATS.md 3.6, 3.7):
 * vector V11 parsed and reproduced by a restarted core, every damage an
 * error naming its place, first-seen logging each key once (per subject).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "fileio.h"
#include "host_platform.h"
#include "logfile.h"
#include "logstore.h"
#include "tcommon.h"
#include "uie/err.h"

/* V11: the log file of run 2, whose run 1 ended after its MONITOR_START (V6). */
static const char v11_hex[] = "5549454c4f4730310100b8000000000002000000000000000001020304050607"
			      "08090a0b0c0d0e0f000000000000000000000000000000000000000000000000"
			      "0000000000000000000000000000000000000000000000001000000014000000"
			      "000000000000000000000b000000000000000000000000000000000000000000"
			      "0000000000000000000000000000000000000000000000000100000000000000"
			      "00000000000000000100000000000000d1512dc611f34fa484c86334ace72fe8"
			      "5ec507b3dda840b68d3d35d6c6b1a94600000000000000000000000000000000"
			      "00010c000400000060b4ad25ad935fffaaa58b828605a5b57b93ce7d42eeb0ab"
			      "84a0467ad6add566";
static const char v6_pcr_hex[] = "d1512dc611f34fa484c86334ace72fe85ec507b3dda840b68d3d35d6c6b1a946";
static const char v7_pcr_hex[] = "4b480e58a79df1b32f578e76ca82369ffeaf10f81247f1d47f33c75e03ee6bda";

#define V11_LEN (UIE_LOGFILE_HDR_LEN + UIE_LOG_RECORD_LEN)

static struct uie_host_platform hp;

static int setup(void **state)
{
	(void)state;
	return uie_host_platform_init(&hp) == UIE_OK ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	uie_host_platform_fini(&hp);
	return 0;
}

static void test_v7_parse(void **state)
{
	uint8_t f[V11_LEN], pcr[UIE_PCR_LEN];
	struct uie_logfile_info info;

	(void)state;
	assert_int_equal(tc_hex(v11_hex, f, sizeof(f)), V11_LEN);
	tc_hex(v7_pcr_hex, pcr, sizeof(pcr));
	assert_int_equal(uie_logfile_parse(&hp.pl, f, sizeof(f), &info), UIE_OK);
	assert_int_equal(info.hdr.boot, 2);
	assert_int_equal(info.hdr.boot_id[15], 15);
	assert_int_equal(info.nrecords, 1);
	assert_memory_equal(info.end_pcr, pcr, UIE_PCR_LEN);
	assert_false(info.have_policy);
	/* Only the header: a run that logged nothing yet. */
	assert_int_equal(uie_logfile_parse(&hp.pl, f, UIE_LOGFILE_HDR_LEN, &info), UIE_OK);
	assert_int_equal(info.nrecords, 0);
}

/* A restarted core over a store with a file writes exactly V11. */
static void test_v7_written(void **state)
{
	char dir[] = "/tmp/uie-logfile-XXXXXX", path[128];
	struct uie_logfile_hdr hdr = { .boot = 2 };
	struct uie_core_prev prev = { .boot = 1, .nrecords = 1 };
	struct uie_logfile lf;
	struct uie_logstore ls;
	struct uie_log_sink sink;
	struct uie_core core;
	uint8_t want[V11_LEN], *got;
	size_t len;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/log.2", dir);
	for (int i = 0; i < UIE_BOOT_ID_LEN; i++)
		hdr.boot_id[i] = (uint8_t)i;
	tc_hex(v6_pcr_hex, prev.pcr, sizeof(prev.pcr));
	tc_hex(v11_hex, want, sizeof(want));
	assert_int_equal(uie_logfile_create(path, &hdr, true, &lf), UIE_OK);
	assert_int_equal(uie_logfile_create(path, &hdr, true, &(struct uie_logfile){ 0 }), UIE_E_STATE);
	uie_logstore_init(&ls, &hp.pl, NULL, 0);
	uie_logstore_set_file(&ls, &lf);
	sink = uie_logstore_sink(&ls);
	assert_int_equal(uie_core_init_restart(&core, &hp.pl, &sink, UIE_HASH_SHA256, &prev), UIE_OK);
	assert_int_equal(uie_file_read_alloc(path, 1 << 20, &got, &len), UIE_OK);
	assert_int_equal(len, V11_LEN);
	assert_memory_equal(got, want, V11_LEN);
	free(got);
	uie_logstore_fini(&ls);
	uie_logfile_close(&lf);
	unlink(path);
	rmdir(dir);
}

static void expect_damage(const uint8_t *f, size_t len, int err, uint64_t off, const char *what)
{
	struct uie_logfile_info info;
	int r = uie_logfile_parse(&hp.pl, f, len, &info);

	if (r != err || info.bad_offset != off)
		fail_msg("%s: got %d (%s) at %llu, want %d at %llu", what, r, uie_err_str(r),
			 (unsigned long long)info.bad_offset, err, (unsigned long long)off);
}

static void test_damage(void **state)
{
	uint8_t good[V11_LEN], bad[V11_LEN];

	(void)state;
	tc_hex(v11_hex, good, sizeof(good));
	for (size_t n = 0; n < UIE_LOGFILE_HDR_LEN; n++) {
		struct uie_logfile_info info;

		assert_int_equal(uie_logfile_parse(&hp.pl, good, n, &info), UIE_E_TRUNCATED);
	}
	for (size_t n = UIE_LOGFILE_HDR_LEN + 1; n < V11_LEN; n++)
		expect_damage(good, n, UIE_E_TRUNCATED, UIE_LOGFILE_HDR_LEN, "partial record");
#define MUT(off, val, err, at, what)                            \
	do {                                                    \
		memcpy(bad, good, sizeof(good));                \
		bad[off] = (val);                               \
		expect_damage(bad, sizeof(bad), err, at, what); \
	} while (0)
	MUT(0, 'X', UIE_E_FORMAT, 8, "magic");
	MUT(8, 2, UIE_E_VERSION, 12, "version");
	MUT(10, 0xb9, UIE_E_FORMAT, 12, "record length");
	MUT(12, 2, UIE_E_FORMAT, UIE_LOGFILE_HDR_LEN, "unknown flag");
	MUT(16, 0, UIE_E_FORMAT, UIE_LOGFILE_HDR_LEN, "boot 0");
	MUT(40, 1, UIE_E_REPLAY, UIE_LOGFILE_HDR_LEN, "first_seq 1 over record 0");
	MUT(48, 1, UIE_E_FORMAT, UIE_LOGFILE_HDR_LEN, "start vPCR16 not zero at record 0");
	MUT(UIE_LOGFILE_HDR_LEN + 60, 1, UIE_E_REPLAY, UIE_LOGFILE_HDR_LEN, "modified record");
	MUT(UIE_LOGFILE_HDR_LEN + 12, 99, UIE_E_FORMAT, UIE_LOGFILE_HDR_LEN, "unknown event");
	MUT(UIE_LOGFILE_HDR_LEN + 183, 0, UIE_E_REPLAY, UIE_LOGFILE_HDR_LEN, "modified LRH");
#undef MUT
}

static void decide(struct uie_core *c, uint16_t event, uint8_t dig, uint32_t pid, struct uie_verdict *v)
{
	struct uie_req req = { .event = event, .role = UIE_ROLE_DSO, .pid = pid, .length = 4096 };
	struct uie_digest d = { .alg = UIE_HASH_SHA256, .len = UIE_SHA256_LEN };

	memset(d.bytes, dig, UIE_SHA256_LEN);
	assert_int_equal(uie_core_decide(c, &req, UIE_OK, &d, UIE_SCOPE_ELF, v), UIE_OK);
	assert_int_equal(v->decision, UIE_ALLOW);
}

/* Each key once; repeats answer with the first record's number; past the cap all are logged. */
static void test_first_seen(void **state)
{
	struct uie_logstore ls;
	struct uie_log_sink sink;
	struct uie_core core;
	struct uie_verdict a, b;

	(void)state;
	uie_logstore_init(&ls, &hp.pl, NULL, 0);
	assert_int_equal(uie_logstore_first_seen(&ls, 3), UIE_OK);
	sink = uie_logstore_sink(&ls);
	assert_int_equal(uie_core_init(&core, &hp.pl, &sink, UIE_HASH_SHA256), UIE_OK);
	decide(&core, UIE_EV_MMAP_EXEC, 1, 100, &a);
	decide(&core, UIE_EV_MMAP_EXEC, 1, 200, &b); /* another process: same key */
	assert_int_equal(a.seq, 1);
	assert_int_equal(b.seq, 1);
	assert_int_equal(uie_logstore_count(&ls), 2);
	assert_int_equal(core.next_seq, 2);
	assert_int_equal(ls.repeats, 1);
	decide(&core, UIE_EV_EXECVE, 1, 100, &a);    /* another event: a new key */
	decide(&core, UIE_EV_MMAP_EXEC, 2, 100, &b); /* another digest: a new key */
	assert_int_equal(a.seq, 2);
	assert_int_equal(b.seq, 3);
	/* Three keys remembered: a fourth is logged every time. */
	decide(&core, UIE_EV_MMAP_EXEC, 3, 100, &a);
	decide(&core, UIE_EV_MMAP_EXEC, 3, 100, &b);
	assert_int_equal(a.seq, 4);
	assert_int_equal(b.seq, 5);
	decide(&core, UIE_EV_MMAP_EXEC, 2, 300, &b);
	assert_int_equal(b.seq, 3);
	assert_int_equal(ls.repeats, 2);
	assert_int_equal(uie_logstore_count(&ls), core.next_seq);
	uie_logstore_fini(&ls);
}

/* A grant of digest `dig` (role DSO) for the program granted by record subj with digest sdig. */
static int decide_for(struct uie_core *c, uint8_t dig, uint64_t subj, uint8_t sdig, struct uie_verdict *v)
{
	struct uie_req req = {
		.event = UIE_EV_MMAP_EXEC, .role = UIE_ROLE_DSO, .pid = 7, .length = 4096, .subject_seq = subj
	};
	struct uie_digest d = { .alg = UIE_HASH_SHA256, .len = UIE_SHA256_LEN };

	memset(d.bytes, dig, UIE_SHA256_LEN);
	if (subj) {
		req.subject = d;
		memset(req.subject.bytes, sdig, UIE_SHA256_LEN);
	}
	return uie_core_decide(c, &req, UIE_OK, &d, UIE_SCOPE_ELF, v);
}

static void expect_subject(const struct uie_logstore *ls, uint64_t at, uint64_t grant, uint64_t prog,
			   uint8_t sdig)
{
	struct uie_log_record rec;
	uint8_t want[UIE_SHA256_LEN];
	uint64_t n;

	assert_int_equal(uie_log_decode(uie_logstore_records(ls, at, &n), UIE_LOG_RECORD_LEN, &rec), UIE_OK);
	memset(want, sdig, sizeof(want));
	assert_int_equal(rec.event_type, UIE_LOG_SUBJECT);
	assert_int_equal(rec.reason, UIE_R_SUBJECT);
	assert_int_equal(rec.decision, UIE_ALLOW);
	assert_int_equal(rec.role, UIE_ROLE_NONE);
	assert_int_equal(rec.scope, UIE_SCOPE_ELF);
	assert_int_equal(rec.file_offset, grant);
	assert_int_equal(rec.vaddr, prog);
	assert_int_equal(rec.pid, 0);
	assert_int_equal(rec.digest.alg, UIE_HASH_SHA256);
	assert_memory_equal(rec.digest.bytes, want, sizeof(want));
}

/*
 * The subject is part of the key: one library under two programs is two
 * grant records, each followed by its SUBJECT record; repeats under the
 * same program (whichever EXECVE record names it) log nothing.
 */
static void test_first_seen_subject(void **state)
{
	struct uie_logstore ls;
	struct uie_log_sink sink;
	struct uie_core core;
	struct uie_verdict v;
	uint8_t pcr[UIE_PCR_LEN];

	(void)state;
	uie_logstore_init(&ls, &hp.pl, NULL, 0);
	assert_int_equal(uie_logstore_first_seen(&ls, 0), UIE_OK);
	sink = uie_logstore_sink(&ls);
	assert_int_equal(uie_core_init(&core, &hp.pl, &sink, UIE_HASH_SHA256), UIE_OK);
	decide(&core, UIE_EV_EXECVE, 0xa0, 1, &v); /* record 1: program A */
	decide(&core, UIE_EV_EXECVE, 0xb0, 1, &v); /* record 2: program B */
	assert_int_equal(decide_for(&core, 0x11, 1, 0xa0, &v), UIE_OK);
	assert_int_equal(v.seq, 3);
	assert_int_equal(decide_for(&core, 0x11, 2, 0xb0, &v), UIE_OK);
	assert_int_equal(v.seq, 5);
	assert_int_equal(uie_logstore_count(&ls), 7);
	expect_subject(&ls, 4, 3, 1, 0xa0);
	expect_subject(&ls, 6, 5, 2, 0xb0);
	/* repeats: nothing logged, the first record's number answered */
	assert_int_equal(decide_for(&core, 0x11, 1, 0xa0, &v), UIE_OK);
	assert_int_equal(v.seq, 3);
	assert_int_equal(decide_for(&core, 0x11, 2, 0xb0, &v), UIE_OK);
	assert_int_equal(v.seq, 5);
	assert_int_equal(decide_for(&core, 0x11, 2, 0xa0, &v), UIE_OK); /* A granted again as 2 */
	assert_int_equal(v.seq, 3);
	assert_int_equal(uie_logstore_count(&ls), 7);
	assert_int_equal(ls.repeats, 3);
	/* without a subject: a third key */
	assert_int_equal(decide_for(&core, 0x11, 0, 0, &v), UIE_OK);
	assert_int_equal(v.seq, 7);
	assert_int_equal(uie_logstore_count(&ls), 8);
	/* a subject must name an earlier record other than 0, with a valid digest */
	assert_int_equal(decide_for(&core, 0x11, 8, 0xa0, &v), UIE_E_INVAL);
	assert_int_equal(v.decision, UIE_DENY);
	{
		struct uie_req req = { .event = UIE_EV_MMAP_EXEC,
				       .role = UIE_ROLE_DSO,
				       .length = 1,
				       .subject = { .alg = UIE_HASH_SHA256, .len = UIE_SHA256_LEN } };
		struct uie_digest d = { .alg = UIE_HASH_SHA256, .len = UIE_SHA256_LEN };

		assert_int_equal(uie_core_decide(&core, &req, UIE_OK, &d, UIE_SCOPE_ELF, &v), UIE_E_INVAL);
		req.subject_seq = 1;
		req.subject.len = 20;
		assert_int_equal(uie_core_decide(&core, &req, UIE_OK, &d, UIE_SCOPE_ELF, &v), UIE_E_INVAL);
		req.subject = (struct uie_digest){ 0 };
		assert_int_equal(uie_core_decide(&core, &req, UIE_OK, &d, UIE_SCOPE_ELF, &v), UIE_E_INVAL);
	}
	assert_int_equal(uie_logstore_count(&ls), 8);
	uie_logstore_fini(&ls);

	/* A SUBJECT record that cannot be stored: denied, and the key is not remembered. */
	uie_logstore_init(&ls, &hp.pl, NULL, 4);
	assert_int_equal(uie_logstore_first_seen(&ls, 0), UIE_OK);
	sink = uie_logstore_sink(&ls);
	assert_int_equal(uie_core_init(&core, &hp.pl, &sink, UIE_HASH_SHA256), UIE_OK);
	decide(&core, UIE_EV_EXECVE, 0xa0, 1, &v);
	decide(&core, UIE_EV_EXECVE, 0xb0, 1, &v);
	assert_int_equal(decide_for(&core, 0x11, 1, 0xa0, &v), UIE_E_LIMIT); /* record 3 fills memory */
	assert_int_equal(v.decision, UIE_DENY);
	assert_int_equal(uie_logstore_pcr_at(&ls, 3, pcr), UIE_OK);
	assert_int_equal(uie_logstore_checkpoint(&ls, 3, pcr), UIE_OK);
	assert_int_equal(decide_for(&core, 0x11, 1, 0xa0, &v), UIE_OK);
	assert_int_equal(v.seq, 4); /* logged again, now with its subject */
	expect_subject(&ls, 5, 4, 1, 0xa0);
	uie_logstore_fini(&ls);

	/* Normal mode: the subject is not part of anything, no SUBJECT record. */
	uie_logstore_init(&ls, &hp.pl, NULL, 0);
	sink = uie_logstore_sink(&ls);
	assert_null(sink.seen);
	assert_int_equal(uie_core_init(&core, &hp.pl, &sink, UIE_HASH_SHA256), UIE_OK);
	decide(&core, UIE_EV_EXECVE, 0xa0, 1, &v);
	assert_int_equal(decide_for(&core, 0x11, 1, 0xa0, &v), UIE_OK);
	assert_int_equal(decide_for(&core, 0x11, 1, 0xa0, &v), UIE_OK);
	assert_int_equal(uie_logstore_count(&ls), 4);
	uie_logstore_fini(&ls);
}

struct repeat_sink {
	struct uie_core *core;
	int fail_after; /* emits that succeed before one fails (-1: never) */
	uint64_t seq[8], count[8];
	unsigned int n;
};

static int emit_repeat(void *ctx, uint64_t seq, uint64_t count)
{
	struct repeat_sink *rs = ctx;
	uint64_t at;

	if (rs->fail_after == 0)
		return UIE_E_NOSPACE;
	rs->fail_after--;
	assert_true(rs->n < 8);
	rs->seq[rs->n] = seq;
	rs->count[rs->n++] = count;
	return uie_core_log_repeat(rs->core, seq, count, &at);
}

/* Only keys with repeats are flushed, once per new count; a failed flush is retried whole. */
static void test_flush_repeats(void **state)
{
	struct uie_logstore ls;
	struct uie_log_sink sink;
	struct uie_core core;
	struct uie_verdict v;
	struct uie_log_record rec;
	struct repeat_sink rs = { .core = &core, .fail_after = -1 };
	uint64_t n;

	(void)state;
	uie_logstore_init(&ls, &hp.pl, NULL, 0);
	assert_int_equal(uie_logstore_first_seen(&ls, 0), UIE_OK);
	sink = uie_logstore_sink(&ls);
	assert_int_equal(uie_core_init(&core, &hp.pl, &sink, UIE_HASH_SHA256), UIE_OK);
	for (int i = 0; i < 5; i++)
		decide(&core, UIE_EV_MMAP_EXEC, 1, 100, &v); /* record 1, 5 requests */
	decide(&core, UIE_EV_MMAP_EXEC, 2, 100, &v);         /* record 2, once */
	assert_int_equal(uie_logstore_flush_repeats(&ls, emit_repeat, &rs), UIE_OK);
	assert_int_equal(rs.n, 1);
	assert_int_equal(rs.seq[0], 1);
	assert_int_equal(rs.count[0], 5);
	assert_int_equal(uie_logstore_count(&ls), 4);
	assert_int_equal(uie_log_decode(uie_logstore_records(&ls, 3, &n), UIE_LOG_RECORD_LEN, &rec), UIE_OK);
	assert_int_equal(rec.event_type, UIE_LOG_REPEAT_COUNT);
	assert_int_equal(rec.file_offset, 1);
	assert_int_equal(rec.length, 5);
	/* nothing new: nothing logged */
	assert_int_equal(uie_logstore_flush_repeats(&ls, emit_repeat, &rs), UIE_OK);
	assert_int_equal(rs.n, 1);
	/* a repeat record is not itself a first-seen key: the next decide repeats record 1 */
	decide(&core, UIE_EV_MMAP_EXEC, 1, 100, &v);
	assert_int_equal(v.seq, 1);
	decide(&core, UIE_EV_MMAP_EXEC, 2, 100, &v);
	rs.fail_after = 1;
	assert_int_equal(uie_logstore_flush_repeats(&ls, emit_repeat, &rs), UIE_E_NOSPACE);
	assert_int_equal(rs.n, 2);
	rs.fail_after = -1;
	assert_int_equal(uie_logstore_flush_repeats(&ls, emit_repeat, &rs), UIE_OK);
	assert_int_equal(rs.n, 3); /* only the key the failure left due */
	assert_int_equal(rs.count[1] + rs.count[2], 6 + 2);
	assert_true(rs.seq[1] != rs.seq[2]);
	assert_int_equal(uie_logstore_count(&ls), core.next_seq);
	uie_logstore_fini(&ls);
}

/* Checkpoints drop acknowledged records from memory; the chain goes on from them. */
static void test_checkpoint(void **state)
{
	struct uie_logstore ls;
	struct uie_log_sink sink;
	struct uie_core core;
	struct uie_verdict v;
	uint8_t pcr5[UIE_PCR_LEN], pcr[UIE_PCR_LEN], bad[UIE_PCR_LEN] = { 0 };
	const uint8_t *recs;
	uint64_t n;

	(void)state;
	uie_logstore_init(&ls, &hp.pl, NULL, 0);
	sink = uie_logstore_sink(&ls);
	assert_int_equal(uie_core_init(&core, &hp.pl, &sink, UIE_HASH_SHA256), UIE_OK);
	for (uint32_t i = 0; i < 2000; i++)
		decide(&core, UIE_EV_MMAP_EXEC, (uint8_t)i, i, &v);
	assert_int_equal(uie_logstore_count(&ls), 2001);
	assert_int_equal(uie_logstore_pcr_at(&ls, 5, pcr5), UIE_OK);
	assert_int_equal(uie_logstore_checkpoint(&ls, 5, bad), UIE_E_BINDING);
	assert_int_equal(uie_logstore_checkpoint(&ls, 2002, pcr5), UIE_E_RANGE);
	assert_int_equal(uie_logstore_checkpoint(&ls, 5, pcr5), UIE_OK);
	assert_int_equal(uie_logstore_checkpoint(&ls, 4, pcr5), UIE_E_RANGE);
	assert_null(uie_logstore_records(&ls, 4, &n));
	assert_int_equal(n, 0);
	assert_int_equal(uie_logstore_pcr_at(&ls, 4, pcr), UIE_E_RANGE);
	assert_int_equal(uie_logstore_pcr_at(&ls, 5, pcr), UIE_OK);
	assert_memory_equal(pcr, pcr5, UIE_PCR_LEN);
	/* The records kept still replay from the checkpoint to the core's vPCR16. */
	recs = uie_logstore_records(&ls, 5, &n);
	assert_int_equal(n, 1996);
	assert_int_equal(uie_log_replay(&hp.pl, recs, n * UIE_LOG_RECORD_LEN, 5, pcr, &n), UIE_OK);
	assert_memory_equal(pcr, core.vpcr, UIE_PCR_LEN);
	/* Nearly all acknowledged: the memory shrinks, and logging goes on. */
	assert_int_equal(uie_logstore_pcr_at(&ls, 2000, pcr), UIE_OK);
	assert_int_equal(uie_logstore_checkpoint(&ls, 2000, pcr), UIE_OK);
	assert_int_equal(ls.cap, 1024);
	decide(&core, UIE_EV_EXECVE, 7, 1, &v);
	assert_int_equal(v.seq, 2001);
	recs = uie_logstore_records(&ls, 2000, &n);
	assert_int_equal(n, 2);
	assert_int_equal(uie_log_replay(&hp.pl, recs, n * UIE_LOG_RECORD_LEN, 2000, pcr, &n), UIE_OK);
	assert_memory_equal(pcr, core.vpcr, UIE_PCR_LEN);
	uie_logstore_fini(&ls);
}

TC_MAIN(setup, teardown, cmocka_unit_test(test_v7_parse), cmocka_unit_test(test_v7_written),
	cmocka_unit_test(test_damage), cmocka_unit_test(test_first_seen),
	cmocka_unit_test(test_first_seen_subject), cmocka_unit_test(test_flush_repeats),
	cmocka_unit_test(test_checkpoint))
