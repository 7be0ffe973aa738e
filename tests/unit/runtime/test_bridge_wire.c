/* SPDX-License-Identifier: Apache-2.0 */
/* Bridge codec: round trips of every type, the docs/BRIDGE.md vectors, hostile input. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "tcommon.h"
#include "uie/err.h"
#include "genpage.h"
#include "wire.h"

/* A message of type and request_id, everything else zero. */
static struct uie_wire_msg header(uint16_t type, uint32_t request_id)
{
	return (struct uie_wire_msg){ .type = type, .request_id = request_id };
}

/* n bytes of value v at p; n, the field's length. */
static uint16_t filled(uint8_t *p, uint8_t v, uint16_t n)
{
	memset(p, v, n);
	return n;
}

/* One filled example of each type (requests and full answers). */
static struct uie_wire_msg example(uint16_t type)
{
	struct uie_wire_msg m = { .type = type, .request_id = 0x1000u + type };

	switch (type) {
	case UIE_MSG_MEASURE_REQ:
		m.u.measure_req =
			(struct uie_msg_measure_req){ UIE_EV_EXECVE, UIE_ROLE_MAIN, 0, 77, 1, 2, 3, 9 };
		break;
	case UIE_MSG_MEASURE_VM_REQ:
		m.u.measure_vm_req.r =
			(struct uie_msg_measure_req){ UIE_EV_MMAP_EXEC, UIE_ROLE_DSO, 0, 77, 1, 2, 3, 0 };
		m.u.measure_vm_req.object_size = 8193;
		break;
	case UIE_MSG_MEASURE_ANS:
	case UIE_MSG_MEASURE_VM_ANS:
		m.u.measure_ans.decision = UIE_ALLOW;
		m.u.measure_ans.reason = UIE_R_BOOTSTRAP;
		m.u.measure_ans.scope = UIE_SCOPE_ELF;
		m.u.measure_ans.digest.alg = UIE_HASH_SHA384;
		m.u.measure_ans.digest.len = UIE_SHA384_LEN;
		memset(m.u.measure_ans.digest.bytes, 0xab, UIE_SHA384_LEN);
		m.u.measure_ans.seq = 99;
		break;
	case UIE_MSG_INSTALL_REQ: m.u.install_req_len = 4096; break;
	case UIE_MSG_INSTALL_ANS:
		m.u.install_ans = (struct uie_msg_install_ans){ UIE_E_EPOCH, UIE_MODE_ENFORCE, 5 };
		break;
	case UIE_MSG_EXPORT_REQ:
		m.u.export_req.since_seq = 12;
		m.u.export_req.nonce_len = UIE_NONCE_MAX;
		memset(m.u.export_req.nonce, 0x5a, UIE_NONCE_MAX);
		break;
	case UIE_MSG_SNP_REPORT_REQ:
		memset(m.u.snp_report_req.nonce, 0x6b, sizeof(m.u.snp_report_req.nonce));
		m.u.snp_report_req.flags = UIE_BRIDGE_SNP_SINGLE;
		break;
	case UIE_MSG_EXPORT_ANS:
	case UIE_MSG_SNP_REPORT_ANS:
	case UIE_MSG_HINT_ANS: m.u.blob_ans = (struct uie_msg_blob_ans){ 123456, 3 }; break;
	case UIE_MSG_GEN_ANS: m.u.blob_ans = (struct uie_msg_blob_ans){ UIE_GENPAGE_LEN, 3 }; break;
	case UIE_MSG_STATUS_ANS:
		m.u.status_ans.mode = UIE_MODE_MEASURE;
		m.u.status_ans.epoch = 2;
		m.u.status_ans.nrecords = 1000;
		memset(m.u.status_ans.vpcr, 0x11, UIE_PCR_LEN);
		memset(m.u.status_ans.policy_id, 0x22, UIE_SHA256_LEN);
		memset(m.u.status_ans.boot_id, 0x33, UIE_BOOT_ID_LEN);
		m.u.status_ans.boot = 4;
		m.u.status_ans.health = UIE_E_NOSPACE;
		m.u.status_ans.trust_keys = 3;
		m.u.status_ans.repeats = 1u << 20;
		break;
	case UIE_MSG_CHECKPOINT_REQ:
		m.u.checkpoint_req.seq = 17;
		memset(m.u.checkpoint_req.pcr, 0x44, UIE_PCR_LEN);
		break;
	case UIE_MSG_CHECKPOINT_ANS: m.u.checkpoint_base = 17; break;
	case UIE_MSG_FASTPATH_REQ:
		m.u.fastpath_req = (struct uie_msg_fastpath_req){ UIE_BRIDGE_FASTPATH_MAX, 7 };
		break;
	case UIE_MSG_FASTPATH_ANS: m.u.fastpath_ans = (struct uie_msg_fastpath_ans){ 3, 42 }; break;
	case UIE_MSG_VIOLATION_REQ:
		m.u.violation_req = (struct uie_msg_violation_req){ 4343, UIE_VIOLATION_WRITE };
		break;
	case UIE_MSG_VIOLATION_VM_REQ:
		m.u.violation_vm_req = (struct uie_msg_violation_vm_req){ { 4343, UIE_VIOLATION_WRITE },
									  8193 };
		break;
	case UIE_MSG_VIOLATION_ANS:
	case UIE_MSG_VIOLATION_VM_ANS: m.u.violation_ans_seq = 99; break;
	case UIE_MSG_PUBKEY_ANS: m.u.pubkey_ans.len = filled(m.u.pubkey_ans.der, 0x30, 91); break;
	case UIE_MSG_TPM_KEYS_ANS:
		m.u.tpm_keys_ans.ek_len = filled(m.u.tpm_keys_ans.ek, 0x01, 316);
		m.u.tpm_keys_ans.ak_len = filled(m.u.tpm_keys_ans.ak, 0x02, 90);
		break;
	case UIE_MSG_ACTIVATE_REQ:
		m.u.activate_req.blob_len = filled(m.u.activate_req.blob, 0x03, 70);
		m.u.activate_req.secret_len = filled(m.u.activate_req.secret, 0x04, 258);
		break;
	case UIE_MSG_ACTIVATE_ANS:
		m.u.activate_ans.len = (uint8_t)filled(m.u.activate_ans.cred, 0x05, 32);
		break;
	default: break;
	}
	return m;
}

static void test_roundtrip_all_types(void **state)
{
	(void)state;
	for (uint16_t t = UIE_MSG_MEASURE_REQ; t < UIE_MSG__MAX; t++) {
		struct uie_wire_msg m = example(t), back;
		uint8_t buf[UIE_BRIDGE_MAX_MSG], again[UIE_BRIDGE_MAX_MSG];
		size_t len, len2;

		assert_int_equal(uie_bridge_encode(&m, buf, sizeof(buf), &len), UIE_OK);
		assert_int_equal(uie_bridge_decode(buf, len, &back), UIE_OK);
		assert_int_equal(back.type, t);
		assert_int_equal(back.request_id, m.request_id);
		assert_int_equal(uie_bridge_encode(&back, again, sizeof(again), &len2), UIE_OK);
		assert_int_equal(len2, len);
		assert_memory_equal(again, buf, len);
		/* every answer also has its error form */
		if (t % 2 == 1) {
			m.status = UIE_E_STATE;
			assert_int_equal(uie_bridge_encode(&m, buf, sizeof(buf), &len), UIE_OK);
			assert_int_equal(len, UIE_BRIDGE_ERROR_ANS_LEN);
			assert_int_equal(uie_bridge_decode(buf, len, &back), UIE_OK);
			assert_int_equal(back.status, UIE_E_STATE);
		}
	}
}

/* The vectors of docs/BRIDGE.md section "Test vectors". */
static const char *const vec_status_req = "5549454201000a001000000001000000";
static const char *const vec_measure_req =
	"55494542010002003800000044332211020003009210000000100000007f00000020000000000000"
	"00100000000000002a00000000000000";
static const char *const vec_measure_ans =
	"55494542010003005800000044332211000000000101010001200b00000000000700000000000000"
	"000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f0000000000000000"
	"0000000000000000";
static const char *const vec_error_ans = "55494542010001001400000000000000fbffffff";
static const char *const vec_export_req =
	"55494542010006006000000009000000050000000000000003000000000000006162630000000000"
	"00000000000000000000000000000000000000000000000000000000000000000000000000000000"
	"00000000000000000000000000000000";

static const char *const vec_fastpath_req =
	"5549454201000c00200000000600000002000000000000000300000000000000";
static const char *const vec_fastpath_ans =
	"5549454201000d00200000000600000000000000020000000a00000000000000";
static const char *const vec_fastpath_entry =
	"020003009210000000100000007f0000002000000000000000100000000000000308000000000000"
	"40e2010000000000003000000000000000002a36fe9c97170065f753fe9c97170b00200000000000"
	"000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f0000000000000000"
	"0000000000000000";

static const char *const vec_gen_req = "55494542010010001000000004000000";
static const char *const vec_gen_ans =
	"55494542010011002800000005000000000000000000000000100000000000000200000000000000";

static const char *const vec_violation_req = "554945420100160018000000"
					     "0b000000"
					     "f710000001000000";
static const char *const vec_violation_ans = "554945420100170020000000"
					     "0b000000"
					     "00000000"
					     "00000000"
					     "6300000000000000";

static void check_vector(const char *hex, const struct uie_wire_msg *m)
{
	uint8_t want[UIE_BRIDGE_MAX_MSG], got[UIE_BRIDGE_MAX_MSG];
	struct uie_wire_msg back;
	size_t n = tc_hex(hex, want, sizeof(want)), len;

	assert_int_equal(uie_bridge_encode(m, got, sizeof(got), &len), UIE_OK);
	assert_int_equal(len, n);
	assert_memory_equal(got, want, n);
	assert_int_equal(uie_bridge_decode(want, n, &back), UIE_OK);
	assert_int_equal(back.type, m->type);
	assert_int_equal(back.status, m->status);
	assert_memory_equal(&back.u, &m->u, sizeof(m->u));
}

static void test_vectors(void **state)
{
	uint8_t b[UIE_BRIDGE_MAX_MSG];
	struct uie_wire_msg m;
	size_t n;

	(void)state;
	m = header(UIE_MSG_STATUS_REQ, 1);
	check_vector(vec_status_req, &m);

	m = header(UIE_MSG_MEASURE_REQ, 0x11223344);
	m.u.measure_req = (struct uie_msg_measure_req){ UIE_EV_MMAP_EXEC,  UIE_ROLE_DSO, 0,      4242,
							0x7f0000001000ull, 0x2000,       0x1000, 42 };
	check_vector(vec_measure_req, &m);

	m = header(UIE_MSG_MEASURE_ANS, 0x11223344);
	m.u.measure_ans.decision = UIE_ALLOW;
	m.u.measure_ans.policy_decision = UIE_ALLOW;
	m.u.measure_ans.reason = UIE_R_RULE_ALLOW;
	m.u.measure_ans.scope = UIE_SCOPE_ELF;
	m.u.measure_ans.digest.alg = UIE_HASH_SHA256;
	m.u.measure_ans.digest.len = UIE_SHA256_LEN;
	for (int i = 0; i < 32; i++)
		m.u.measure_ans.digest.bytes[i] = (uint8_t)i;
	m.u.measure_ans.seq = 7;
	check_vector(vec_measure_ans, &m);

	m = header(UIE_MSG_ERROR_ANS, 0);
	m.status = UIE_E_VERSION;
	check_vector(vec_error_ans, &m);

	m = header(UIE_MSG_EXPORT_REQ, 9);
	m.u.export_req.since_seq = 5;
	m.u.export_req.nonce_len = 3;
	memcpy(m.u.export_req.nonce, "abc", 3);
	check_vector(vec_export_req, &m);

	m = header(UIE_MSG_VIOLATION_REQ, 11);
	m.u.violation_req = (struct uie_msg_violation_req){ .pid = 4343, .kind = UIE_VIOLATION_WRITE };
	check_vector(vec_violation_req, &m);
	n = tc_hex(vec_violation_req, b, sizeof(b));
	b[20] = 0; /* kind 0 */
	assert_int_equal(uie_bridge_decode(b, n, &m), UIE_E_FORMAT);
	b[20] = UIE_VIOLATION__MAX;
	assert_int_equal(uie_bridge_decode(b, n, &m), UIE_E_FORMAT);
	b[20] = 1;
	b[21] = 1; /* reserved */
	assert_int_equal(uie_bridge_decode(b, n, &m), UIE_E_FORMAT);
	m = header(UIE_MSG_VIOLATION_ANS, 11);
	m.u.violation_ans_seq = 99;
	check_vector(vec_violation_ans, &m);

	m = header(UIE_MSG_FASTPATH_REQ, 6);
	m.u.fastpath_req = (struct uie_msg_fastpath_req){ .count = 2, .epoch = 3 };
	check_vector(vec_fastpath_req, &m);
	m.u.fastpath_req.count = 0; /* 1..4096 entries */
	assert_int_equal(uie_bridge_encode(&m, b, sizeof(b), &n), UIE_E_INVAL);
	m.u.fastpath_req.count = UIE_BRIDGE_FASTPATH_MAX + 1;
	assert_int_equal(uie_bridge_encode(&m, b, sizeof(b), &n), UIE_E_INVAL);

	m = header(UIE_MSG_FASTPATH_ANS, 6);
	m.u.fastpath_ans = (struct uie_msg_fastpath_ans){ 2, 10 };
	check_vector(vec_fastpath_ans, &m);

	m = header(UIE_MSG_GEN_REQ, 4);
	check_vector(vec_gen_req, &m);

	m = header(UIE_MSG_GEN_ANS, 5);
	m.u.blob_ans = (struct uie_msg_blob_ans){ UIE_GENPAGE_LEN, 2 };
	check_vector(vec_gen_ans, &m);
	/* The page is one page: any other length is refused both ways. */
	m.u.blob_ans.len = UIE_GENPAGE_LEN + 1;
	assert_int_equal(uie_bridge_encode(&m, b, sizeof(b), &n), UIE_E_INVAL);
	n = tc_hex(vec_gen_ans, b, sizeof(b));
	b[24] = 0x01;
	assert_int_equal(uie_bridge_decode(b, n, &m), UIE_E_FORMAT);
}

static const struct uie_req entry_req = {
	.event = UIE_EV_MMAP_EXEC,
	.role = UIE_ROLE_DSO,
	.pid = 4242,
	.vaddr = 0x7f0000001000ull,
	.length = 0x2000,
	.file_offset = 0x1000,
	.id = { .dev = 0x803,
		.ino = 123456,
		.size = 0x3000,
		.mtime_ns = 1700000000000000000ll,
		.ctime_ns = 1700000000500000000ll },
};

/* A fast-path entry: the vector both ways, and every field check of the decoder. */
static void test_fastpath_entry(void **state)
{
	uint8_t want[UIE_BRIDGE_FASTPATH_ENTRY_LEN], got[UIE_BRIDGE_FASTPATH_ENTRY_LEN], b[sizeof(want)];
	struct uie_digest d = { UIE_HASH_SHA256, UIE_SHA256_LEN, { 0 } }, dback;
	struct uie_req req = entry_req, back;
	/* offset, value: event 0 and 4, role NONE and ANON, reserved, digest length, stray byte */
	static const struct {
		size_t off;
		uint8_t val;
	} bad[] = {
		{ 0, 0 },   { 0, 4 },  { 2, 0 },  { 2, UIE_ROLE_ANON }, { 3, 1 },
		{ 74, 31 }, { 75, 1 }, { 72, 0 }, { 112, 1 },
	};

	(void)state;
	for (int i = 0; i < 32; i++)
		d.bytes[i] = (uint8_t)i;
	assert_int_equal(tc_hex(vec_fastpath_entry, want, sizeof(want)), sizeof(want));
	assert_int_equal(uie_bridge_fastpath_entry_encode(&req, &d, got), UIE_OK);
	assert_memory_equal(got, want, sizeof(want));
	assert_int_equal(uie_bridge_fastpath_entry_decode(want, &back, &dback), UIE_OK);
	assert_int_equal(back.event, req.event);
	assert_int_equal(back.role, req.role);
	assert_int_equal(back.pid, req.pid);
	assert_int_equal(back.vaddr, req.vaddr);
	assert_int_equal(back.length, req.length);
	assert_int_equal(back.file_offset, req.file_offset);
	assert_memory_equal(&back.id, &req.id, sizeof(req.id));
	assert_int_equal(dback.alg, d.alg);
	assert_int_equal(dback.len, d.len);
	assert_memory_equal(dback.bytes, d.bytes, sizeof(d.bytes));
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		memcpy(b, want, sizeof(b));
		b[bad[i].off] = bad[i].val;
		assert_int_equal(uie_bridge_fastpath_entry_decode(b, &back, &dback), UIE_E_FORMAT);
	}
	req.role = UIE_ROLE_ANON; /* anonymous memory has no digest to report */
	assert_int_equal(uie_bridge_fastpath_entry_encode(&req, &d, got), UIE_E_INVAL);
	req = entry_req;
	d.len = 20;
	assert_int_equal(uie_bridge_fastpath_entry_encode(&req, &d, got), UIE_E_INVAL);
}

/* Decodes hex after applying one byte change; returns the decoder's verdict. */
static int decode_mutated(const char *hex, size_t off, uint8_t val, size_t cut)
{
	uint8_t b[UIE_BRIDGE_MAX_MSG];
	struct uie_wire_msg m;
	size_t n = tc_hex(hex, b, sizeof(b));

	if (off < n)
		b[off] = val;
	return uie_bridge_decode(b, cut ? cut : n, &m);
}

static void test_hostile(void **state)
{
	uint8_t big[UIE_BRIDGE_MAX_MSG + 1] = { 0 };
	struct uie_wire_msg m;

	(void)state;
	/* truncated header, truncated body (length field then disagrees) */
	assert_int_equal(decode_mutated(vec_status_req, 99, 0, 15), UIE_E_TRUNCATED);
	assert_int_equal(decode_mutated(vec_measure_req, 99, 0, 40), UIE_E_TRUNCATED);
	assert_int_equal(decode_mutated(vec_measure_req, 99, 0, 48), UIE_E_TRUNCATED);
	{ /* the 32-byte body of a client from before subject_seq: wrong length, refused */
		uint8_t b[128];
		size_t n = tc_hex(vec_measure_req, b, sizeof(b));

		b[8] = 48;
		assert_int_equal(uie_bridge_decode(b, n - 8, &m), UIE_E_TRUNCATED);
		/* the subject is the body's last field, read as a whole u64 */
		b[8] = (uint8_t)n;
		b[n - 1] = 0x80;
		assert_int_equal(uie_bridge_decode(b, n, &m), UIE_OK);
		assert_true(m.u.measure_req.subject_seq == 0x800000000000002aull);
	}
	assert_int_equal(decode_mutated(vec_measure_req, 99, 0, 3), UIE_E_TRUNCATED);
	/* bad magic, wrong version, unknown type, answer-only type as request, length lies */
	assert_int_equal(decode_mutated(vec_status_req, 0, 0x56, 0), UIE_E_FORMAT);
	assert_int_equal(decode_mutated(vec_status_req, 4, 2, 0), UIE_E_VERSION);
	assert_int_equal(decode_mutated(vec_status_req, 6, 0x40, 0), UIE_E_FORMAT);
	assert_int_equal(decode_mutated(vec_status_req, 6, 0, 0), UIE_E_FORMAT);
	assert_int_equal(decode_mutated(vec_status_req, 8, 0x11, 0), UIE_E_TRUNCATED);
	assert_int_equal(decode_mutated(vec_status_req, 8, 0x0f, 0), UIE_E_FORMAT);
	/* body longer than the type's fixed layout */
	{
		uint8_t b[64];
		size_t n = tc_hex(vec_status_req, b, sizeof(b));

		b[n] = 0;
		b[8] = (uint8_t)(n + 1);
		assert_int_equal(uie_bridge_decode(b, n + 1, &m), UIE_E_FORMAT);
		assert_int_equal(m.type, UIE_MSG_STATUS_REQ);
		assert_int_equal(m.request_id, 1);
	}
	/* field ranges: event 0 and 4, role NONE and 7, flags, reserved bytes */
	assert_int_equal(decode_mutated(vec_measure_req, 16, 0, 0), UIE_E_FORMAT);
	assert_int_equal(decode_mutated(vec_measure_req, 16, 4, 0), UIE_E_FORMAT);
	assert_int_equal(decode_mutated(vec_measure_req, 18, 0, 0), UIE_E_FORMAT);
	assert_int_equal(decode_mutated(vec_measure_req, 18, 7, 0), UIE_E_FORMAT);
	assert_int_equal(decode_mutated(vec_measure_req, 18, 6, 0), UIE_OK);       /* SCRIPT */
	assert_int_equal(decode_mutated(vec_measure_req, 19, 1, 0), UIE_E_FORMAT); /* PROGRAM, not ANON */
	/* conditions (docs/BRIDGE.md, MEASURE_REQ flags 0x02 EXECMOD, 0x04 UNSEALED, 0x08 IMMUTABLE) */
	for (unsigned f = 2; f <= 14; f += 2) {
		uint8_t b[128];
		size_t n = tc_hex(vec_measure_req, b, sizeof(b));

		b[19] = (uint8_t)f;
		assert_int_equal(uie_bridge_decode(b, n, &m), UIE_OK);
		assert_int_equal(UIE_BRIDGE_COND_OF(m.u.measure_req.flags), f >> 1);
		b[16] = UIE_EV_EXECVE; /* no execmod for an exec */
		assert_int_equal(uie_bridge_decode(b, n, &m), f & 2 ? UIE_E_FORMAT : UIE_OK);
		b[16] = UIE_EV_MMAP_EXEC;
		b[18] = UIE_ROLE_ANON; /* conditions are for files */
		assert_int_equal(uie_bridge_decode(b, n, &m), UIE_E_FORMAT);
	}
	assert_int_equal(decode_mutated(vec_measure_req, 19, 3, 0), UIE_E_FORMAT);
	/* the file system kind in bits 4-7: 0x20 virtiofs, 0x9X the last kind, 0xaX none */
	for (unsigned f = 0x10; f <= 0xf0; f += 0x10) {
		uint8_t b[128];
		size_t n = tc_hex(vec_measure_req, b, sizeof(b));

		b[19] = (uint8_t)(f | 0x08);
		assert_int_equal(uie_bridge_decode(b, n, &m), f >> 4 < UIE_FS__MAX ? UIE_OK : UIE_E_FORMAT);
		if (f >> 4 < UIE_FS__MAX) {
			assert_int_equal(UIE_BRIDGE_FS_OF(m.u.measure_req.flags), f >> 4);
			assert_int_equal(UIE_BRIDGE_COND_OF(m.u.measure_req.flags), UIE_COND_IMMUTABLE);
		}
		b[18] = UIE_ROLE_ANON; /* no file system for anonymous memory */
		assert_int_equal(uie_bridge_decode(b, n, &m), UIE_E_FORMAT);
	}
	assert_int_equal(decode_mutated(vec_measure_req, 19, 0x21, 0), UIE_E_FORMAT);
	{ /* the client encodes a request's kind and conditions into those bits */
		struct uie_req rq = { .cond = UIE_COND_UNSEALED, .fs = UIE_FS_VIRTIOFS };

		assert_int_equal(UIE_BRIDGE_REQ_FILE(&rq), 0x24);
	}
	{ /* role ANON: without a descriptor, or with the program's (flag PROGRAM) */
		uint8_t b[128];
		size_t n = tc_hex(vec_measure_req, b, sizeof(b));

		b[18] = UIE_ROLE_ANON;
		assert_int_equal(uie_bridge_decode(b, n, &m), UIE_OK);
		assert_int_equal(uie_bridge_fd_rule(&m), UIE_FD_NONE);
		b[19] = UIE_BRIDGE_REQ_PROGRAM;
		assert_int_equal(uie_bridge_decode(b, n, &m), UIE_OK);
		assert_int_equal(uie_bridge_fd_rule(&m), UIE_FD_ONE);
	}
	assert_int_equal(decode_mutated(vec_export_req, 25, 1, 0), UIE_E_FORMAT);  /* reserved */
	assert_int_equal(decode_mutated(vec_export_req, 24, 0, 0), UIE_E_FORMAT);  /* empty nonce */
	assert_int_equal(decode_mutated(vec_export_req, 24, 65, 0), UIE_E_FORMAT); /* nonce > 64 */
	assert_int_equal(decode_mutated(vec_export_req, 40, 1, 0), UIE_E_FORMAT);  /* byte past nonce */
	/* answers: bad status, digest length not matching its algorithm, stray digest bytes */
	assert_int_equal(decode_mutated(vec_error_ans, 16, 0, 0), UIE_E_FORMAT);
	assert_int_equal(decode_mutated(vec_error_ans, 19, 0x7f, 0), UIE_E_FORMAT);
	assert_int_equal(decode_mutated(vec_measure_ans, 25, 31, 0), UIE_E_FORMAT);
	assert_int_equal(decode_mutated(vec_measure_ans, 26, 0x0c, 0), UIE_E_FORMAT);
	assert_int_equal(decode_mutated(vec_measure_ans, 87, 1, 0), UIE_E_FORMAT);
	assert_int_equal(decode_mutated(vec_measure_ans, 20, 2, 0), UIE_E_FORMAT); /* decision */
	/* oversized and empty */
	assert_int_equal(uie_bridge_decode(big, sizeof(big), &m), UIE_E_LIMIT);
	assert_int_equal(uie_bridge_decode(big, 0, &m), UIE_E_TRUNCATED);
}

/* example(type) in m, encoded into b (UIE_BRIDGE_MAX_MSG bytes); the encoding's length. */
static size_t encode_example(uint16_t type, struct uie_wire_msg *m, uint8_t *b)
{
	size_t n;

	*m = example(type);
	assert_int_equal(uie_bridge_encode(m, b, UIE_BRIDGE_MAX_MSG, &n), UIE_OK);
	return n;
}

/* Encodes example(type) and decodes it with byte off set to val (the message's own offsets). */
static int mutate_example(uint16_t type, size_t off, uint8_t val)
{
	struct uie_wire_msg m;
	uint8_t b[UIE_BRIDGE_MAX_MSG];
	size_t n = encode_example(type, &m, b);

	assert_true(off < n);
	b[off] = val;
	return uie_bridge_decode(b, n, &m);
}

/* example(type) encodes to len bytes, and its descriptor rule is rule. */
static void expect_encoded(uint16_t type, size_t len, enum uie_bridge_fd_rule rule)
{
	struct uie_wire_msg m;
	uint8_t b[UIE_BRIDGE_MAX_MSG];

	assert_int_equal(encode_example(type, &m, b), len);
	assert_int_equal(uie_bridge_fd_rule(&m), rule);
}

/* TPM_KEYS_ANS, ACTIVATE_REQ and ACTIVATE_ANS (docs/BRIDGE.md section 3): lengths and padding. */
static void test_credential_msgs(void **state)
{
	struct uie_wire_msg m;
	uint8_t b[UIE_BRIDGE_MAX_MSG];
	size_t n;

	(void)state;
	expect_encoded(UIE_MSG_ACTIVATE_REQ, 16 + 784, UIE_FD_NONE);
	/* blob_len @16 (u16 LE), secret_len @18, reserved @20, blob @24, secret @280 */
	assert_int_equal(mutate_example(UIE_MSG_ACTIVATE_REQ, 16, 0), UIE_E_FORMAT); /* empty blob */
	assert_int_equal(mutate_example(UIE_MSG_ACTIVATE_REQ, 17, 1), UIE_E_FORMAT); /* blob_len 326 > 256 */
	assert_int_equal(mutate_example(UIE_MSG_ACTIVATE_REQ, 19, 3), UIE_E_FORMAT); /* secret_len > 520 */
	assert_int_equal(mutate_example(UIE_MSG_ACTIVATE_REQ, 21, 1), UIE_E_FORMAT); /* reserved */
	assert_int_equal(mutate_example(UIE_MSG_ACTIVATE_REQ, 24 + 70, 1),
			 UIE_E_FORMAT); /* byte past the blob */
	assert_int_equal(mutate_example(UIE_MSG_ACTIVATE_REQ, 280 + 258, 1),
			 UIE_E_FORMAT); /* past the secret */
	assert_int_equal(mutate_example(UIE_MSG_ACTIVATE_REQ, 24 + 69, 9), UIE_OK);
	/* ACTIVATE_ANS: status @16, len @20 (1..64), reserved @21, cred @24 */
	assert_int_equal(mutate_example(UIE_MSG_ACTIVATE_ANS, 20, 0), UIE_E_FORMAT);
	assert_int_equal(mutate_example(UIE_MSG_ACTIVATE_ANS, 20, 65), UIE_E_FORMAT);
	assert_int_equal(mutate_example(UIE_MSG_ACTIVATE_ANS, 22, 1), UIE_E_FORMAT);
	assert_int_equal(mutate_example(UIE_MSG_ACTIVATE_ANS, 24 + 32, 1), UIE_E_FORMAT);
	/* TPM_KEYS_ANS: ek_len @20, ak_len @22 must name exactly the bytes after them */
	assert_int_equal(mutate_example(UIE_MSG_TPM_KEYS_ANS, 20, 0x3d), UIE_E_FORMAT);
	assert_int_equal(mutate_example(UIE_MSG_TPM_KEYS_ANS, 22, 91), UIE_E_FORMAT);
	assert_int_equal(mutate_example(UIE_MSG_TPM_KEYS_ANS, 22, 0), UIE_E_FORMAT);
	n = encode_example(UIE_MSG_TPM_KEYS_ANS, &m, b);
	assert_int_equal(n, 16 + 8 + 316 + 90);
	assert_int_equal(uie_bridge_decode(b, n - 1, &m), UIE_E_TRUNCATED);
	assert_int_equal(uie_bridge_decode(b, n, &m), UIE_OK);
	assert_int_equal(m.u.tpm_keys_ans.ek[315], 0x01);
	assert_int_equal(m.u.tpm_keys_ans.ak[0], 0x02);
}

/* SNP_REPORT_REQ (docs/BRIDGE.md section 3): nonce @16, flags @80 (bit 0 only), reserved @81..87. */
static void test_snp_report_msgs(void **state)
{
	struct uie_wire_msg m;
	uint8_t b[UIE_BRIDGE_MAX_MSG];
	size_t n = encode_example(UIE_MSG_SNP_REPORT_REQ, &m, b);

	(void)state;
	expect_encoded(UIE_MSG_SNP_REPORT_REQ, 16 + 72, UIE_FD_NONE);
	assert_int_equal(b[16], 0x6b);
	assert_int_equal(b[80], UIE_BRIDGE_SNP_SINGLE);
	assert_int_equal(mutate_example(UIE_MSG_SNP_REPORT_REQ, 80, 2), UIE_E_FORMAT); /* unknown flag */
	assert_int_equal(mutate_example(UIE_MSG_SNP_REPORT_REQ, 87, 1), UIE_E_FORMAT); /* reserved */
	assert_int_equal(mutate_example(UIE_MSG_SNP_REPORT_REQ, 80, 0), UIE_OK);
	assert_int_equal(uie_bridge_decode(b, n - 1, &m), UIE_E_TRUNCATED);
	/* The answer is a blob: its bundle comes in a sealed memfd. */
	m = example(UIE_MSG_SNP_REPORT_ANS);
	assert_int_equal(uie_bridge_fd_rule(&m), UIE_FD_ONE);
}

static void test_encode_refuses_bad_fields(void **state)
{
	struct uie_wire_msg m = example(UIE_MSG_MEASURE_REQ);
	uint8_t buf[UIE_BRIDGE_MAX_MSG];
	size_t len = 1;

	(void)state;
	m.u.measure_req.role = UIE_ROLE__MAX;
	assert_int_equal(uie_bridge_encode(&m, buf, sizeof(buf), &len), UIE_E_INVAL);
	assert_int_equal(len, 0);
	m = example(UIE_MSG_STATUS_ANS);
	m.status = 5;
	assert_int_equal(uie_bridge_encode(&m, buf, sizeof(buf), &len), UIE_E_INVAL);
	m = example(UIE_MSG_STATUS_ANS);
	m.u.status_ans.health = 1; /* health is UIE_OK or an error */
	assert_int_equal(uie_bridge_encode(&m, buf, sizeof(buf), &len), UIE_E_INVAL);
	m = example(UIE_MSG_MEASURE_VM_REQ);
	m.u.measure_vm_req.r.subject_seq = 9; /* MEASURE_VM_REQ carries no subject */
	assert_int_equal(uie_bridge_encode(&m, buf, sizeof(buf), &len), UIE_E_INVAL);
	m = example(UIE_MSG_MEASURE_REQ);
	assert_int_equal(uie_bridge_encode(&m, buf, 20, &len), UIE_E_OVERFLOW);
	m.type = 40;
	assert_int_equal(uie_bridge_encode(&m, buf, sizeof(buf), &len), UIE_E_INVAL);
}

/*
 * Who may send what, and where (BRIDGE.md section 3): a program of a
 * supervised tree may ask only STATUS, EXPORT, INSTALL and PUBKEY (the
 * relay's control socket forwarded exactly these before the table had
 * the column), and TPM_KEYS, ACTIVATE and SNP_REPORT (the credential
 * challenge and the SVSM's attestation, which change no evidence); frame
 * lists come from the relay alone, in VM mode alone.
 */
static void test_senders_and_modes(void **state)
{
	(void)state;
	for (uint16_t t = 0; t < UIE_MSG__MAX + 2; t++) {
		bool tree = t == UIE_MSG_STATUS_REQ || t == UIE_MSG_EXPORT_REQ || t == UIE_MSG_INSTALL_REQ ||
			    t == UIE_MSG_PUBKEY_REQ || t == UIE_MSG_TPM_KEYS_REQ ||
			    t == UIE_MSG_ACTIVATE_REQ || t == UIE_MSG_SNP_REPORT_REQ;
		bool relay = t == UIE_MSG_MEASURE_VM_REQ || t == UIE_MSG_VIOLATION_VM_REQ;

		assert_int_equal(uie_bridge_may_send(t, UIE_FROM_TREE), tree);
		assert_int_equal(uie_bridge_may_send(t, UIE_FROM_RELAY), relay);
		if (!uie_bridge_is_request(t)) {
			assert_false(uie_bridge_may_send(t, 0xff));
			assert_false(uie_bridge_served_in(t, 0xff));
			continue;
		}
		assert_int_equal(uie_bridge_may_send(t, UIE_FROM_TOOL | UIE_FROM_INTERCEPTOR), !relay);
		assert_int_equal(uie_bridge_served_in(t, UIE_IN_PROCESS), !relay);
		assert_true(uie_bridge_served_in(t, UIE_IN_VM) ==
			    (t != UIE_MSG_GEN_REQ && t != UIE_MSG_VIOLATION_REQ));
	}
}

static void test_fd_rules(void **state)
{
	struct uie_wire_msg m = example(UIE_MSG_MEASURE_REQ);

	(void)state;
	assert_int_equal(uie_bridge_fd_rule(&m), UIE_FD_ONE);
	m.u.measure_req.role = UIE_ROLE_ANON;
	assert_int_equal(uie_bridge_fd_rule(&m), UIE_FD_NONE);
	m = example(UIE_MSG_INSTALL_REQ);
	assert_int_equal(uie_bridge_fd_rule(&m), UIE_FD_ONE);
	m = example(UIE_MSG_HINT_ANS);
	assert_int_equal(uie_bridge_fd_rule(&m), UIE_FD_ONE);
	m.u.blob_ans.len = 0;
	assert_int_equal(uie_bridge_fd_rule(&m), UIE_FD_NONE);
	m = example(UIE_MSG_STATUS_REQ);
	assert_int_equal(uie_bridge_fd_rule(&m), UIE_FD_NONE);
	m = example(UIE_MSG_GEN_ANS);
	assert_int_equal(uie_bridge_fd_rule(&m), UIE_FD_ONE);
	m.status = UIE_E_NOTFOUND;
	assert_int_equal(uie_bridge_fd_rule(&m), UIE_FD_NONE);
	m = example(UIE_MSG_GEN_REQ);
	assert_int_equal(uie_bridge_fd_rule(&m), UIE_FD_NONE);
	m = example(UIE_MSG_FASTPATH_REQ);
	assert_int_equal(uie_bridge_fd_rule(&m), UIE_FD_ONE);
	m = example(UIE_MSG_FASTPATH_ANS);
	assert_int_equal(uie_bridge_fd_rule(&m), UIE_FD_NONE);
}

/* The vectors printed in docs/BRIDGE.md section 10 are the ones checked here. */
static const char *doc_path;

static void test_doc_vectors(void **state)
{
	static const char *const *const want[] = { &vec_status_req,     &vec_measure_req,  &vec_measure_ans,
						   &vec_error_ans,      &vec_export_req,   &vec_fastpath_req,
						   &vec_fastpath_entry, &vec_fastpath_ans, &vec_violation_req,
						   &vec_violation_ans,  &vec_gen_req,      &vec_gen_ans };

	(void)state;
	tc_doc_vectors(doc_path, "## 10. Test vectors", 0, want, sizeof(want) / sizeof(want[0]));
}

TC_MAIN_ARGS("docs/BRIDGE.md", (&doc_path), NULL, NULL, cmocka_unit_test(test_roundtrip_all_types),
	     cmocka_unit_test(test_vectors), cmocka_unit_test(test_fastpath_entry),
	     cmocka_unit_test(test_hostile), cmocka_unit_test(test_credential_msgs),
	     cmocka_unit_test(test_snp_report_msgs), cmocka_unit_test(test_snp_report_msgs),
	     cmocka_unit_test(test_encode_refuses_bad_fields), cmocka_unit_test(test_fd_rules),
	     cmocka_unit_test(test_senders_and_modes), cmocka_unit_test(test_doc_vectors))
