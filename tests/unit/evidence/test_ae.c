/* SPDX-License-Identifier: Apache-2.0 */
/*
 * AE encoding and the TPM structures against the byte-exact vectors of
 * docs/FORMATS.md section 5 (written independently of this code), strict
 * parsing of every malformation, tpm2-tss agreement, and CEL-JSON.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <jansson.h>
#include <openssl/sha.h>
#include <tss2/tss2_mu.h>

#include "cel.h"
#include "ev_helpers.h"
#include "tcommon.h"
#include "tpm_marshal.h"
#include "uie/buf.h"
#include "uie/err.h"

/* Vector 1 (docs section 5.4): the record bytes are 184 x 0xee between the halves. */
static const char ae_head[] =
	"554945410100000010000102030405060708090a0b0c0d0e0f1005000000000000000100000000000000"
	"1111111111111111111111111111111111111111111111111111111111111111b800000000000000";
static const char ae_tail[] =
	"3800000002000000000000000300000000000000222222222222222222222222222222222222222222222222"
	"2222222222222222060000000000000020003333333333333333333333333333333333333333333333333333"
	"33333333333304000000a0a1a2a3020000005051";
static const char attest_hex[] =
	"ff54434780180022000b444444444444444444444444444444444444444444444444444444444444444400"
	"106e6f6e63652d31362d627974657321210102030405060708000000070000000101000000010000000000"
	"000001000b03000001002084126d0dd850199be29021aadbaee68cb9199047b1cb7ec9894ddb1e3562783c";
static const char sig_hex[] = "0018000b0020"
			      "6666666666666666666666666666666666666666666666666666666666666666"
			      "0020"
			      "7777777777777777777777777777777777777777777777777777777777777777";
static const char name_hex[] = "000be259c1f4701f1a5825cba56e4f0d2e3b7430fcb96e0ee0d8ccdd5ae86be35e2c";

static size_t vector(uint8_t *out, size_t cap)
{
	size_t n = tc_hex(ae_head, out, cap);

	assert_true(cap - n >= UIE_LOG_RECORD_LEN);
	memset(out + n, 0xee, UIE_LOG_RECORD_LEN);
	n += UIE_LOG_RECORD_LEN;
	return n + tc_hex(ae_tail, out + n, cap - n);
}

static void fill_vector_ae(struct uie_ae *a, uint8_t *nonce, uint8_t *recs, uint8_t *att, uint8_t *sig)
{
	memset(a, 0, sizeof(*a));
	for (int i = 0; i < 16; i++)
		nonce[i] = (uint8_t)(i + 1);
	memset(recs, 0xee, UIE_LOG_RECORD_LEN);
	att[0] = 0xa0, att[1] = 0xa1, att[2] = 0xa2, att[3] = 0xa3;
	sig[0] = 0x50, sig[1] = 0x51;
	a->nonce = nonce;
	a->nonce_len = 16;
	a->first_seq = 5;
	a->nrecords = 1;
	memset(a->start_pcr, 0x11, 32);
	a->records = recs;
	a->pm.mode = UIE_MODE_ENFORCE;
	a->pm.epoch = 3;
	memset(a->pm.policy_id, 0x22, 32);
	a->pm.total_records = 6;
	memset(a->vpcr, 0x33, 32);
	a->attest = att;
	a->attest_len = 4;
	a->sig = sig;
	a->sig_len = 2;
}

static void test_ae_vector(void **state)
{
	uint8_t want[512], nonce[16], recs[UIE_LOG_RECORD_LEN], att[4], sig[2], *out;
	size_t wl = vector(want, sizeof(want)), ol;
	struct uie_ae a, p;

	(void)state;
	assert_int_equal(wl, 374);
	fill_vector_ae(&a, nonce, recs, att, sig);
	assert_int_equal(uie_ae_build_alloc(&a, &out, &ol), UIE_OK);
	assert_int_equal(ol, wl);
	assert_memory_equal(out, want, wl);
	free(out);
	assert_int_equal(uie_ae_parse(want, wl, &p), UIE_OK);
	assert_int_equal(p.first_seq, 5);
	assert_int_equal(p.nrecords, 1);
	assert_int_equal(p.nonce_len, 16);
	assert_memory_equal(p.nonce, nonce, 16);
	assert_ptr_equal(p.records, want + 82);
	assert_int_equal(p.pm.mode, UIE_MODE_ENFORCE);
	assert_int_equal(p.pm.epoch, 3);
	assert_int_equal(p.pm.total_records, 6);
	assert_memory_equal(p.vpcr, a.vpcr, 32);
	assert_int_equal(p.attest_len, 4);
	assert_memory_equal(p.sig, sig, 2);
}

/* The frame (head, tail) with the records between is the vector, byte for byte. */
static void test_ae_frame(void **state)
{
	uint8_t want[512], nonce[16], recs[UIE_LOG_RECORD_LEN], att[4], sig[2], *head, *tail;
	size_t wl = vector(want, sizeof(want)), hl, tl;
	struct uie_ae a;

	(void)state;
	fill_vector_ae(&a, nonce, recs, att, sig);
	a.records = NULL; /* not read */
	assert_int_equal(uie_ae_frame_alloc(&a, &head, &hl, &tail, &tl), UIE_OK);
	assert_int_equal(hl + UIE_LOG_RECORD_LEN + tl, wl);
	assert_memory_equal(head, want, hl);
	assert_memory_equal(recs, want + hl, UIE_LOG_RECORD_LEN);
	assert_memory_equal(tail, want + hl + UIE_LOG_RECORD_LEN, tl);
	free(head);
	free(tail);
	a.sig_len = 0;
	assert_int_equal(uie_ae_frame_alloc(&a, &head, &hl, &tail, &tl), UIE_E_LIMIT);
	assert_null(head);
	assert_null(tail);
}

/* Sets a little-endian field of the vector and expects err from parse. */
static void expect_bad(size_t off, size_t width, uint64_t v, int err)
{
	uint8_t b[512];
	size_t n = vector(b, sizeof(b));
	struct uie_ae p;

	for (size_t i = 0; i < width; i++)
		b[off + i] = (uint8_t)(v >> (8 * i));
	assert_int_equal(uie_ae_parse(b, n, &p), err);
	assert_null(p.nonce);
	assert_int_equal(p.nrecords, 0);
}

static void test_ae_strict(void **state)
{
	uint8_t b[513];
	size_t n = vector(b, sizeof(b));
	struct uie_ae p;

	(void)state;
	/* Every truncation fails, and so does a trailing byte. */
	for (size_t len = 0; len < n; len++)
		assert_int_not_equal(uie_ae_parse(b, len, &p), UIE_OK);
	b[n] = 0;
	assert_int_equal(uie_ae_parse(b, n + 1, &p), UIE_E_FORMAT);
	assert_int_equal(uie_ae_parse(NULL, 0, &p), UIE_E_INVAL);
	expect_bad(0, 1, 'X', UIE_E_FORMAT);           /* magic */
	expect_bad(4, 2, 2, UIE_E_VERSION);            /* version */
	expect_bad(6, 1, 1, UIE_E_FORMAT);             /* reserved */
	expect_bad(8, 2, 0, UIE_E_LIMIT);              /* empty nonce */
	expect_bad(8, 2, 65, UIE_E_LIMIT);             /* nonce too long */
	expect_bad(34, 8, 2, UIE_E_FORMAT);            /* nrecords vs records_len */
	expect_bad(34, 8, UINT64_MAX, UIE_E_OVERFLOW); /* nrecords * 184 overflows */
	expect_bad(26, 8, UINT64_MAX, UIE_E_OVERFLOW); /* first_seq + nrecords overflows */
	expect_bad(74, 8, 368, UIE_E_FORMAT);          /* records_len != nrecords * 184 */
	expect_bad(266, 4, 57, UIE_E_FORMAT);          /* PM length */
	expect_bad(270, 1, 3, UIE_E_FORMAT);           /* mode */
	expect_bad(271, 1, 1, UIE_E_FORMAT);           /* PM reserved */
	expect_bad(326, 2, 48, UIE_E_FORMAT);          /* vPCR length */
	expect_bad(360, 4, 0, UIE_E_LIMIT);            /* attest length 0 */
	expect_bad(360, 4, 1025, UIE_E_LIMIT);
	expect_bad(368, 4, 3, UIE_E_TRUNCATED); /* sig length past the end */
	expect_bad(368, 4, 257, UIE_E_LIMIT);
}

static void test_ae_build_limits(void **state)
{
	uint8_t nonce[16], recs[UIE_LOG_RECORD_LEN], att[4], sig[2], *out = (void *)1;
	struct uie_ae a;
	size_t ol;

	(void)state;
	fill_vector_ae(&a, nonce, recs, att, sig);
	a.nonce_len = 0;
	assert_int_equal(uie_ae_build_alloc(&a, &out, &ol), UIE_E_LIMIT);
	assert_null(out);
	fill_vector_ae(&a, nonce, recs, att, sig);
	a.pm.mode = 9;
	assert_int_equal(uie_ae_build_alloc(&a, &out, &ol), UIE_E_FORMAT);
	fill_vector_ae(&a, nonce, recs, att, sig);
	a.nrecords = UINT64_MAX / 100;
	assert_int_equal(uie_ae_build_alloc(&a, &out, &ol), UIE_E_OVERFLOW);
	assert_int_equal(uie_ae_build_alloc(NULL, &out, &ol), UIE_E_INVAL);
}

static void test_attest_vector(void **state)
{
	uint8_t want[256], got[256], sbuf[128], swant[128], nbuf[34], nwant[34], x[32], y[32];
	size_t wl = tc_hex(attest_hex, want, sizeof(want)), sl = tc_hex(sig_hex, swant, sizeof(swant)),
	       off = 0;
	struct uie_tpm_quote q;
	struct uie_tpm_ecdsa_sig s;
	struct uie_wbuf w;
	TPMS_ATTEST ta;
	uint8_t pcrval[32];

	(void)state;
	memset(&q, 0, sizeof(q));
	q.magic = UIE_TPM_GENERATED_VALUE;
	q.type = UIE_TPM_ST_ATTEST_QUOTE;
	q.signer_len = 34;
	q.signer[1] = 0x0b;
	memset(q.signer + 2, 0x44, 32);
	q.extra_len = 16;
	memcpy(q.extra, "nonce-16-bytes!!", 16);
	q.clock = 0x0102030405060708ull;
	q.reset_count = 7;
	q.restart_count = 1;
	q.safe = 1;
	q.firmware_version = 0x0000000100000000ull;
	q.nsel = 1;
	q.sel[0].hash = UIE_TPM_ALG_SHA256;
	q.sel[0].size_of_select = 3;
	q.sel[0].select[2] = 1;
	q.pcr_digest_len = 32;
	memset(pcrval, 0x55, 32);
	SHA256(pcrval, 32, q.pcr_digest);
	uie_wbuf_init(&w, got, sizeof(got));
	uie_tpm_quote_put(&w, &q);
	assert_int_equal(w.err, UIE_OK);
	assert_int_equal(w.len, wl);
	assert_memory_equal(got, want, wl);

	/* tpm2-tss reads the same structure, and writes it back byte for byte. */
	assert_int_equal(Tss2_MU_TPMS_ATTEST_Unmarshal(want, wl, &off, &ta), TSS2_RC_SUCCESS);
	assert_int_equal(off, wl);
	assert_true(ta.clockInfo.clock == q.clock);
	assert_int_equal(ta.clockInfo.resetCount, 7);
	off = 0;
	assert_int_equal(Tss2_MU_TPMS_ATTEST_Marshal(&ta, got, sizeof(got), &off), TSS2_RC_SUCCESS);
	assert_int_equal(off, wl);
	assert_memory_equal(got, want, wl);

	memset(&q, 0xff, sizeof(q));
	assert_int_equal(uie_tpm_quote_parse(want, wl, &q), UIE_OK);
	assert_int_equal(q.extra_len, 16);
	assert_int_equal(q.sel[0].select[2], 1);
	/* Strictness: trailing byte, each truncation, another attestation type. */
	want[wl] = 0;
	assert_int_equal(uie_tpm_quote_parse(want, wl + 1, &q), UIE_E_FORMAT);
	for (size_t len = 0; len < wl; len++)
		assert_int_not_equal(uie_tpm_quote_parse(want, len, &q), UIE_OK);
	want[5] = 0x17; /* TPM_ST_ATTEST_CERTIFY */
	assert_int_equal(uie_tpm_quote_parse(want, wl, &q), UIE_E_FORMAT);

	memset(&s, 0, sizeof(s));
	s.sig_alg = UIE_TPM_ALG_ECDSA;
	s.hash_alg = UIE_TPM_ALG_SHA256;
	s.r_len = s.s_len = 32;
	memset(s.r, 0x66, 32);
	memset(s.s, 0x77, 32);
	uie_wbuf_init(&w, sbuf, sizeof(sbuf));
	uie_tpm_sig_put(&w, &s);
	assert_int_equal(w.len, sl);
	assert_memory_equal(sbuf, swant, sl);
	assert_int_equal(uie_tpm_sig_parse(swant, sl, &s), UIE_OK);
	swant[1] = 0x14; /* TPM_ALG_RSASSA */
	assert_int_equal(uie_tpm_sig_parse(swant, sl, &s), UIE_E_ALG);

	memset(x, 1, 32);
	memset(y, 2, 32);
	tc_hex(name_hex, nwant, sizeof(nwant));
	assert_int_equal(uie_tpm_ecc_name(x, y, nbuf), UIE_OK);
	assert_memory_equal(nbuf, nwant, 34);
}

static void test_cel(void **state)
{
	struct ev_log l;
	char *json;
	json_t *arr, *rec;
	json_error_t jerr;
	uint8_t body[UIE_LOG_BODY_LEN], dg[32], lrh[32];
	const char *hex;

	(void)state;
	assert_int_equal(ev_log_init(&l, NULL), UIE_OK);
	assert_int_equal(ev_log_scenario(&l), UIE_OK);
	assert_int_equal(uie_cel_json_alloc(l.recs, 0, l.n, &json), UIE_OK);
	assert_non_null(arr = json_loads(json, 0, &jerr));
	assert_int_equal(json_array_size(arr), l.n);
	for (size_t i = 0; i < l.n; i++) {
		rec = json_array_get(arr, i);
		assert_int_equal(json_integer_value(json_object_get(rec, "recnum")), (json_int_t)i);
		assert_int_equal(json_integer_value(json_object_get(rec, "pcr")), 16);
		assert_string_equal(json_string_value(json_object_get(rec, "content_type")),
				    "uie_log_record");
		hex = json_string_value(
			json_object_get(json_array_get(json_object_get(rec, "digests"), 0), "digest"));
		assert_non_null(hex);
		assert_int_equal(tc_hex(hex, dg, sizeof(dg)), 32);
		assert_int_equal(uie_log_lrh(&l.hp.pl, l.recs + i * UIE_LOG_RECORD_LEN, lrh), UIE_OK);
		assert_memory_equal(dg, lrh, 32);
		/* The digest is SHA-256 of the body the record carries. */
		hex = json_string_value(json_object_get(json_object_get(rec, "content"), "body"));
		assert_int_equal(tc_hex(hex, body, sizeof(body)), UIE_LOG_BODY_LEN);
		SHA256(body, sizeof(body), dg);
		assert_memory_equal(dg, lrh, 32);
	}
	json_decref(arr);
	free(json);
	/* Records out of sequence are refused. */
	assert_int_equal(uie_cel_json_alloc(l.recs + UIE_LOG_RECORD_LEN, 0, 1, &json), UIE_E_ORDER);
	assert_null(json);
	ev_log_fini(&l);
}

/* A u64 above 2^63-1 is a decimal string in CEL-JSON, never a negative integer. */
static void test_cel_u64(void **state)
{
	struct uie_log_record r;
	struct ev_log l;
	uint8_t rec[UIE_LOG_RECORD_LEN];
	json_t *arr, *c;
	json_error_t jerr;
	char *json;

	(void)state;
	assert_int_equal(ev_log_init(&l, NULL), UIE_OK);
	assert_int_equal(ev_log_scenario(&l), UIE_OK);
	assert_int_equal(uie_log_decode(l.recs, UIE_LOG_RECORD_LEN, &r), UIE_OK);
	r.epoch = UINT64_MAX;
	r.vaddr = (uint64_t)INT64_MAX;
	r.length = (uint64_t)INT64_MAX + 1;
	assert_int_equal(uie_log_encode(&l.hp.pl, &r, rec), UIE_OK);
	assert_int_equal(uie_cel_json_alloc(rec, r.seq, 1, &json), UIE_OK);
	assert_non_null(arr = json_loads(json, 0, &jerr));
	c = json_object_get(json_array_get(arr, 0), "content");
	assert_string_equal(json_string_value(json_object_get(c, "epoch")), "18446744073709551615");
	assert_string_equal(json_string_value(json_object_get(c, "length")), "9223372036854775808");
	assert_int_equal(json_integer_value(json_object_get(c, "vaddr")), INT64_MAX);
	json_decref(arr);
	free(json);
	ev_log_fini(&l);
}

TC_MAIN(NULL, NULL, cmocka_unit_test(test_ae_vector), cmocka_unit_test(test_ae_frame),
	cmocka_unit_test(test_ae_strict), cmocka_unit_test(test_ae_build_limits),
	cmocka_unit_test(test_attest_vector), cmocka_unit_test(test_cel), cmocka_unit_test(test_cel_u64))
