/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Secure-log records (docs/FORMATS.md section 3): vectors, round trip,
 * strict decoding, and replay that names the first diverging record.
 */
#include <stdarg.h>
#include <setjmp.h>
#include <string.h>

#include <cmocka.h>

#include "helpers.h"
#include "host_platform.h"
#include "uie/err.h"
#include "uie/slog.h"
#include "tcommon.h"

static const char v4_hex[] = "05000000000000001000000002000000030000000000000003000b0092100000"
			     "030800000000000087d6120000000000d00000000000000015cd853dfe9c9717"
			     "feffffffffffffff00100000007f000000100000000000000000000000000000"
			     "3a5f3a9a3ae4180533459e66a9a10e53a6059b9e1ba5c1d37dbf8698945c1de1"
			     "000000000000000000000000000000000201010001000000b68331f0f45a1354"
			     "3421e3d5ea60babfe9ffdf3ef61a8e870149aeae04b3347d";
static const char v4_lrh_hex[] = "b68331f0f45a13543421e3d5ea60babfe9ffdf3ef61a8e870149aeae04b3347d";
static const char v5_pcr_hex[] = "ac31a88f675746bf3fed2dd62534cc27cda6e2653a3ec7c56387533879302e4a";

/* V20 (docs/FORMATS.md 3.5): a WRITE_VIOLATION record. */
static const char v20_hex[] = "09000000000000001000000016000000030000000000000000000b00f7100000"
			      "030800000000000087d6120000000000d000000000000000ffc9c471fe9c9717"
			      "00cac471fe9c9717000000000000000000000000000000000000000000000000"
			      "202122232425262728292a2b2c2d2e2f303132333435363738393a3b3c3d3e3f"
			      "0000000000000000000000000000000002000f0001000000a5a3de3449d75d90"
			      "722761f81118e7a95c8fab0d87bc4e49f2a9a737c5ac011a";

/* V21 (docs/FORMATS.md 3.7): a REPEAT_COUNT record, computed independently by gen_vectors.py. */
static const char v21_hex[] = "0c00000000000000100000001700000003000000000000000000000000000000"
			      "0000000000000000000000000000000000000000000000000000000000000000"
			      "00000000000000000000000000000000e8030000000000000500000000000000"
			      "0000000000000000000000000000000000000000000000000000000000000000"
			      "0000000000000000000000000000000002011000000000007d8848d85dd3dc83"
			      "f9639b04412d54d66237d57dcdc09e5e5a9679f3a94e5436";

/* V22 (docs/FORMATS.md 3.7): a SUBJECT record, computed independently by gen_vectors.py. */
static const char v22_hex[] = "0e000000000000001000000018000000030000000000000000000b0000000000"
			      "0000000000000000000000000000000000000000000000000000000000000000"
			      "0000000000000000070000000000000000000000000000000d00000000000000"
			      "3a5f3a9a3ae4180533459e66a9a10e53a6059b9e1ba5c1d37dbf8698945c1de1"
			      "0000000000000000000000000000000002011100010000002e3c7a7a94eebfd1"
			      "2078420de1640acd57603a2d4932994f227eeb712bc9f0d8";

static void v4_record(struct uie_log_record *r)
{
	memset(r, 0, sizeof(*r));
	r->seq = 5;
	r->pcr_index = UIE_LOG_PCR_INDEX;
	r->event_type = UIE_LOG_MMAP_EXEC;
	r->epoch = 3;
	r->role = UIE_ROLE_DSO;
	r->pid = 4242;
	r->id = (struct uie_file_id){ 0x803, 1234567, 208, 1700000000123456789, -2 };
	r->vaddr = 0x7f0000001000;
	r->length = 0x1000;
	r->file_offset = 0;
	r->digest.alg = UIE_HASH_SHA256;
	r->digest.len = 32;
	tc_hex("3a5f3a9a3ae4180533459e66a9a10e53a6059b9e1ba5c1d37dbf8698945c1de1", r->digest.bytes, 32);
	r->mode = UIE_MODE_ENFORCE;
	r->decision = UIE_ALLOW;
	r->reason = UIE_R_RULE_ALLOW;
	r->scope = UIE_SCOPE_ELF;
}

/* rec encodes to the vector hex (filling rec->lrh), and the vector decodes to rec. */
static void assert_vector(const char *hex, struct uie_log_record *rec)
{
	uint8_t want[UIE_LOG_RECORD_LEN], out[UIE_LOG_RECORD_LEN];
	struct uie_log_record back;

	assert_int_equal(tc_hex(hex, want, sizeof(want)), UIE_LOG_RECORD_LEN);
	assert_int_equal(uie_log_encode(&th_hp.pl, rec, out), UIE_OK);
	assert_memory_equal(out, want, UIE_LOG_RECORD_LEN);
	assert_int_equal(uie_log_decode(want, sizeof(want), &back), UIE_OK);
	assert_memory_equal(&back, rec, sizeof(*rec));
}

static void test_vectors(void **state)
{
	uint8_t lrh[32], pcr[32] = { 0 };
	struct uie_log_record rec;

	(void)state;
	v4_record(&rec);
	assert_vector(v4_hex, &rec);
	tc_hex(v4_lrh_hex, lrh, sizeof(lrh));
	assert_memory_equal(rec.lrh, lrh, 32);
	/* V20: a write violation */
	memset(&rec, 0, sizeof(rec));
	rec.seq = 9;
	rec.pcr_index = UIE_LOG_PCR_INDEX;
	rec.event_type = UIE_LOG_WRITE_VIOLATION;
	rec.epoch = 3;
	rec.role = UIE_ROLE_NONE;
	rec.pid = 4343;
	rec.id = (struct uie_file_id){ 0x803, 1234567, 208, 1700000000999999999, 1700000001000000000 };
	rec.digest.alg = UIE_HASH_SHA256;
	rec.digest.len = 32;
	for (int i = 0; i < 32; i++)
		rec.digest.bytes[i] = (uint8_t)(0x20 + i);
	rec.mode = UIE_MODE_ENFORCE;
	rec.decision = UIE_DENY;
	rec.reason = UIE_R_WRITE_VIOLATION;
	rec.scope = UIE_SCOPE_ELF;
	assert_vector(v20_hex, &rec);
	/* V21: record 5 stood for 1000 requests */
	memset(&rec, 0, sizeof(rec));
	rec.seq = 12;
	rec.pcr_index = UIE_LOG_PCR_INDEX;
	rec.event_type = UIE_LOG_REPEAT_COUNT;
	rec.epoch = 3;
	rec.length = 1000;
	rec.file_offset = 5;
	rec.mode = UIE_MODE_ENFORCE;
	rec.decision = UIE_ALLOW;
	rec.reason = UIE_R_REPEAT_COUNT;
	assert_vector(v21_hex, &rec);
	/* V22: grant record 13 was made for the program of EXECVE record 7 (digest of V1) */
	v4_record(&rec);
	memset(&rec.id, 0, sizeof(rec.id));
	rec.seq = 14;
	rec.event_type = UIE_LOG_SUBJECT;
	rec.role = UIE_ROLE_NONE;
	rec.pid = 0;
	rec.vaddr = 7;
	rec.length = 0;
	rec.file_offset = 13;
	rec.reason = UIE_R_SUBJECT;
	assert_vector(v22_hex, &rec);
	tc_hex(v4_lrh_hex, lrh, sizeof(lrh));
	/* V5: the extend from an all-zero vPCR. */
	assert_int_equal(uie_pcr_extend(&th_hp.pl, pcr, lrh), UIE_OK);
	tc_hex(v5_pcr_hex, lrh, sizeof(lrh));
	assert_memory_equal(pcr, lrh, 32);
}

/* Records of every event kind and field extreme survive encode -> decode -> encode. */
static void test_round_trip(void **state)
{
	uint8_t a[UIE_LOG_RECORD_LEN], b[UIE_LOG_RECORD_LEN];
	struct uie_log_record rec, back;

	(void)state;
	for (int i = 0; i < 64; i++) {
		v4_record(&rec);
		rec.seq = UINT64_MAX - (uint64_t)i;
		rec.event_type = (uint16_t)(i % 7 < 3 ? 1 + i % 7 : 16 + i % 7 - 3);
		rec.epoch = (uint64_t)i << 40;
		rec.role = (uint8_t)(i % UIE_ROLE__MAX);
		rec.pid = UINT32_MAX - (uint32_t)i;
		rec.id.mtime_ns = INT64_MIN + i;
		rec.id.ctime_ns = INT64_MAX - i;
		rec.mode = (uint8_t)(i % UIE_MODE__MAX);
		rec.decision = (uint8_t)(i % 2);
		rec.reason = (uint16_t)(1 + i % (UIE_R__MAX - 1));
		rec.scope = (uint8_t)(i % UIE_SCOPE__MAX);
		memset(rec.digest.bytes, 0, sizeof(rec.digest.bytes));
		if (rec.scope == UIE_SCOPE_NONE) {
			rec.digest.alg = 0;
			rec.digest.len = 0;
		} else {
			rec.digest.alg = i % 2 ? UIE_HASH_SHA384 : UIE_HASH_SHA256;
			rec.digest.len = (uint8_t)uie_hash_len(rec.digest.alg);
			memset(rec.digest.bytes, 0x40 + i, rec.digest.len);
		}
		assert_int_equal(uie_log_encode(&th_hp.pl, &rec, a), UIE_OK);
		assert_int_equal(uie_log_decode(a, sizeof(a), &back), UIE_OK);
		assert_memory_equal(&back, &rec, sizeof(rec));
		assert_int_equal(uie_log_encode(&th_hp.pl, &back, b), UIE_OK);
		assert_memory_equal(a, b, sizeof(a));
	}
	/* The encoder refuses what the decoder would refuse. */
	v4_record(&rec);
	rec.digest.len = 48;
	assert_int_equal(uie_log_encode(&th_hp.pl, &rec, a), UIE_E_INVAL);
	v4_record(&rec);
	rec.scope = UIE_SCOPE_NONE;
	assert_int_equal(uie_log_encode(&th_hp.pl, &rec, a), UIE_E_INVAL);
	v4_record(&rec);
	rec.reason = 0;
	assert_int_equal(uie_log_encode(&th_hp.pl, &rec, a), UIE_E_INVAL);
}

static void expect_reject(const uint8_t *p, size_t len, int err, const char *what)
{
	struct uie_log_record rec;
	static const uint8_t zero[sizeof(rec)];
	int r;

	memset(&rec, 0xa5, sizeof(rec));
	r = uie_log_decode(p, len, &rec);
	if (r != err)
		fail_msg("%s: got %d (%s), want %d", what, r, uie_err_str(r), err);
	assert_memory_equal(&rec, zero, sizeof(rec));
}

static void test_malformed(void **state)
{
	uint8_t good[UIE_LOG_RECORD_LEN + 1], bad[UIE_LOG_RECORD_LEN + 1];
	/* Offsets of the reserved bytes: EM 14-15, OC 25, ER 149-151. */
	static const size_t reserved[] = { 14, 15, 25, 149, 150, 151 };

	(void)state;
	tc_hex(v4_hex, good, sizeof(good));
	good[UIE_LOG_RECORD_LEN] = 0;
	for (size_t i = 0; i < UIE_LOG_RECORD_LEN; i++)
		expect_reject(good, i, UIE_E_TRUNCATED, "truncated");
	expect_reject(good, UIE_LOG_RECORD_LEN + 1, UIE_E_FORMAT, "trailing byte");
#define MUT(off, val, what)                                                 \
	do {                                                                \
		memcpy(bad, good, sizeof(good));                            \
		bad[off] = (val);                                           \
		expect_reject(bad, UIE_LOG_RECORD_LEN, UIE_E_FORMAT, what); \
	} while (0)
	for (size_t i = 0; i < sizeof(reserved) / sizeof(reserved[0]); i++)
		MUT(reserved[i], 1, "reserved byte");
	MUT(8, 15, "pcr index 15");
	MUT(12, 0, "event type 0");
	MUT(12, 4, "event type 4");
	MUT(12, UIE_LOG__MAX, "event type past the last");
	MUT(13, 1, "event type 0x102");
	MUT(24, UIE_ROLE__MAX, "role");
	MUT(26, 0x0A, "digest alg 0x000A");
	MUT(26, 0, "digest alg 0 with digest bytes");
	MUT(96 + 40, 1, "sha256 digest with byte 40 set");
	MUT(144, UIE_MODE__MAX, "mode");
	MUT(145, 2, "decision");
	MUT(146, 0, "reason 0");
	MUT(146, UIE_R__MAX, "reason max");
	MUT(147, 1, "reason 0x100+");
	MUT(148, UIE_SCOPE__MAX, "scope");
	MUT(148, UIE_SCOPE_NONE, "scope NONE with a digest");
#undef MUT
	/* sha384 declared: bytes 32..47 may be non-zero, so this decodes. */
	memcpy(bad, good, sizeof(good));
	bad[26] = 0x0C;
	bad[96 + 40] = 1;
	{
		struct uie_log_record rec;

		assert_int_equal(uie_log_decode(bad, UIE_LOG_RECORD_LEN, &rec), UIE_OK);
		assert_int_equal(rec.digest.len, 48);
	}
}

/* A log of n records starting at seq 0, and the running vPCR. */
static void make_log(uint8_t (*log)[UIE_LOG_RECORD_LEN], size_t n, uint8_t pcr[32])
{
	struct uie_log_record rec;

	memset(pcr, 0, 32);
	for (size_t i = 0; i < n; i++) {
		v4_record(&rec);
		rec.seq = i;
		rec.pid = 100 + (uint32_t)i;
		assert_int_equal(uie_log_encode(&th_hp.pl, &rec, log[i]), UIE_OK);
		assert_int_equal(uie_pcr_extend(&th_hp.pl, pcr, rec.lrh), UIE_OK);
	}
}

static void expect_replay(const void *log, size_t len, uint64_t first, int err, uint64_t bad,
			  const char *what)
{
	uint8_t pcr[32] = { 0 };
	uint64_t bad_seq = 0xdead;
	int r = uie_log_replay(&th_hp.pl, log, len, first, pcr, &bad_seq);

	if (r != err || bad_seq != bad)
		fail_msg("%s: got %d at %llu, want %d at %llu", what, r, (unsigned long long)bad_seq, err,
			 (unsigned long long)bad);
}

static void test_replay(void **state)
{
	enum {
		N = 8
	};
	uint8_t log[N][UIE_LOG_RECORD_LEN], bad[N][UIE_LOG_RECORD_LEN];
	uint8_t pcr[32], run[32], mid[32] = { 0 };
	uint64_t bad_seq;

	(void)state;
	make_log(log, N, run);
	memset(pcr, 0, 32);
	assert_int_equal(uie_log_replay(&th_hp.pl, log[0], sizeof(log), 0, pcr, &bad_seq), UIE_OK);
	assert_memory_equal(pcr, run, 32);
	assert_int_equal(bad_seq, N);
	/* A suffix replays from the vPCR value before it. */
	assert_int_equal(uie_log_replay(&th_hp.pl, log[0], 3 * UIE_LOG_RECORD_LEN, 0, mid, &bad_seq), UIE_OK);
	assert_int_equal(uie_log_replay(&th_hp.pl, log[3], (N - 3) * UIE_LOG_RECORD_LEN, 3, mid, &bad_seq),
			 UIE_OK);
	assert_memory_equal(mid, run, 32);
	expect_replay(log[3], (N - 3) * UIE_LOG_RECORD_LEN, 0, UIE_E_REPLAY, 0, "suffix, wrong first");
	/* Modified body (pid), LRH left alone. */
	memcpy(bad, log, sizeof(log));
	bad[3][28] ^= 1;
	expect_replay(bad, sizeof(bad), 0, UIE_E_REPLAY, 3, "modified body");
	/* Modified LRH. */
	memcpy(bad, log, sizeof(log));
	bad[5][UIE_LOG_BODY_LEN + 7] ^= 0x80;
	expect_replay(bad, sizeof(bad), 0, UIE_E_REPLAY, 5, "modified LRH");
	/* Modification that breaks the encoding. */
	memcpy(bad, log, sizeof(log));
	bad[6][8] = 17;
	expect_replay(bad, sizeof(bad), 0, UIE_E_FORMAT, 6, "undecodable record");
	/* Deleted record 2. */
	memcpy(bad[0], log[0], 2 * UIE_LOG_RECORD_LEN);
	memcpy(bad[2], log[3], (N - 3) * UIE_LOG_RECORD_LEN);
	expect_replay(bad, (N - 1) * UIE_LOG_RECORD_LEN, 0, UIE_E_REPLAY, 2, "deleted record");
	/* Records 4 and 5 swapped. */
	memcpy(bad, log, sizeof(log));
	memcpy(bad[4], log[5], UIE_LOG_RECORD_LEN);
	memcpy(bad[5], log[4], UIE_LOG_RECORD_LEN);
	expect_replay(bad, sizeof(bad), 0, UIE_E_REPLAY, 4, "reordered records");
	/* Cut inside the last record. */
	expect_replay(log, sizeof(log) - 1, 0, UIE_E_TRUNCATED, N - 1, "partial record");
	/* Empty log: nothing to replay. */
	expect_replay(log, 0, 0, UIE_OK, 0, "empty");
	assert_int_equal(uie_log_replay(&th_hp.pl, log[0], sizeof(log), 0, pcr, NULL), UIE_E_INVAL);
}

TC_MAIN(th_platform_setup, th_platform_teardown, cmocka_unit_test(test_vectors),
	cmocka_unit_test(test_round_trip), cmocka_unit_test(test_malformed), cmocka_unit_test(test_replay))
