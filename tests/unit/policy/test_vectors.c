/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Byte-exact vectors of docs/FORMATS.md section 4.5: the encoders
 * reproduce them, the parser reads them back, the signature verifies with
 * the vector key, and the document still shows the same bytes.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "uie/err.h"
#include "uie/package.h"

#include "bloom.h"
#include "host_platform.h"
#include "fileio.h"
#include "tcommon.h"

#ifndef UIE_SRCDIR
#error "UIE_SRCDIR must name the source tree"
#endif

static const char vb1_hint[] = "554945424c4d303101000b00070000000100000000000000efcdab8967452301"
			       "1032547698badcfe40000000010000000001020810204080";
static const char vp1_table[] = "554945504f4c543102000b000200000001000000000000000101010011111111"
				"11111111111111111111111111111111111111111111111111111111";
static const char vp1_sig[] = "304402206a184ec95b8669e4727ea87de8465c2ea1cc86f107979eb186a4d614"
			      "0ecca9d002204313249b2d6e88b86da60b0378aaa539a655c6fb74e63f250724"
			      "510cad738aa2";
static const char vp1_package[] = "554945504b473031010018000b00000001000000000000000100000000000000"
				  "2222222222222222222222222222222222222222222222222222222222222222"
				  "87e2b014244432052ffbbf584ad0be83a663d97dbc2189b0c9f56210cfc2b0a5"
				  "3c00000038000000554945504f4c543102000b00020000000100000000000000"
				  "0101010011111111111111111111111111111111111111111111111111111111"
				  "11111111554945424c4d303101000b00070000000100000000000000efcdab89"
				  "674523011032547698badcfe4000000001000000000102081020408046003044"
				  "02206a184ec95b8669e4727ea87de8465c2ea1cc86f107979eb186a4d6140ecc"
				  "a9d002204313249b2d6e88b86da60b0378aaa539a655c6fb74e63f250724510c"
				  "ad738aa2";
static const char vp1_hash[] = "b1960ddae78144003b2994dc46cbb048a7566a86f6c6eb6602557d90a631d8b4";
static const char vp1_key_id[] = "87e2b014244432052ffbbf584ad0be83a663d97dbc2189b0c9f56210cfc2b0a5";

static void test_bloom_vector(void **state)
{
	uint64_t salt[2] = { 0x0123456789abcdefull, 0xfedcba9876543210ull };
	uint8_t key[32], buf[UIE_BLOOM_HDR_LEN + 8];
	static const unsigned pos[] = { 17, 8, 63, 54, 45, 36, 27 };
	uint8_t bits[8] = { 0 };
	size_t n;
	uint8_t *want = tc_hex_alloc(vb1_hint, &n);

	(void)state;
	memset(key, 0x11, 32);
	assert_int_equal(n, sizeof(buf));
	assert_int_equal(uie_bloom_init(buf, sizeof(buf), UIE_HASH_SHA256, 7, 1, salt, 64), UIE_OK);
	assert_int_equal(uie_bloom_add(buf, sizeof(buf), key, 32), UIE_OK);
	assert_memory_equal(buf, want, n);
	for (size_t i = 0; i < 7; i++)
		bits[pos[i] / 8] |= (uint8_t)(1u << (pos[i] % 8));
	assert_memory_equal(buf + UIE_BLOOM_HDR_LEN, bits, 8);
	free(want);
}

static void test_package_vector(void **state)
{
	struct uie_policy_rule rule = { .event = UIE_EV_EXECVE, .role = UIE_ROLE_MAIN, .action = UIE_ALLOW };
	struct uie_host_platform hp;
	struct uie_package p = { .version = 1,
				 .sig_alg = UIE_SIG_ECDSA_P256_SHA256,
				 .hash_alg = UIE_HASH_SHA256,
				 .epoch = 1,
				 .bind_seq = 1 };
	struct uie_package q;
	size_t tn, hn, sn, pn, kn, dn, len;
	uint8_t *table = tc_hex_alloc(vp1_table, &tn), *hint = tc_hex_alloc(vb1_hint, &hn),
		*sig = tc_hex_alloc(vp1_sig, &sn);
	uint8_t *pkg = tc_hex_alloc(vp1_package, &pn), *kid = tc_hex_alloc(vp1_key_id, &kn),
		*hash = tc_hex_alloc(vp1_hash, &dn);
	uint8_t enc[512], key_id[32];

	(void)state;
	memset(rule.digest, 0x11, 32);
	assert_int_equal(uie_policy_encode(UIE_MODE_ENFORCE, UIE_DENY, UIE_HASH_SHA256, &rule, 1, enc,
					   sizeof(enc), &len),
			 UIE_OK);
	assert_int_equal(len, tn);
	assert_memory_equal(enc, table, tn);
	memset(p.bind_pcr, 0x22, 32);
	memcpy(p.key_id, kid, 32);
	p.table = table;
	p.table_len = tn;
	p.hint = hint;
	p.hint_len = hn;
	p.sig = sig;
	p.sig_len = sn;
	assert_int_equal(uie_package_encode(&p, enc, sizeof(enc), &len), UIE_OK);
	assert_int_equal(len, pn);
	assert_memory_equal(enc, pkg, pn);

	assert_int_equal(uie_host_platform_init(&hp), UIE_OK);
	assert_int_equal(uie_package_parse(&hp.pl, pkg, pn, &q), UIE_OK);
	assert_memory_equal(q.package_hash, hash, 32);
	assert_int_equal(q.epoch, 1);
	assert_int_equal(q.bind_seq, 1);
	assert_int_equal(q.hint_len, hn);
	assert_int_equal(
		uie_host_platform_add_key_file(&hp, UIE_SRCDIR "/tests/data/policy/vector-pub.pem", key_id),
		UIE_OK);
	assert_memory_equal(key_id, kid, 32);
	assert_int_equal(hp.pl.verify(hp.pl.ctx, q.key_id, q.package_hash, 32, q.sig, q.sig_len), UIE_OK);
	q.package_hash[0] ^= 1;
	assert_int_equal(hp.pl.verify(hp.pl.ctx, q.key_id, q.package_hash, 32, q.sig, q.sig_len),
			 UIE_E_SIGNATURE);
	uie_host_platform_fini(&hp);
	free(table);
	free(hint);
	free(sig);
	free(pkg);
	free(kid);
	free(hash);
}

/* The document shows the very bytes this test checks. */
static void test_document_matches(void **state)
{
	const char *all[] = { vb1_hint, vp1_table, vp1_sig, vp1_package, vp1_hash, vp1_key_id };
	uint8_t *doc;
	size_t len, w = 0;

	(void)state;
	assert_int_equal(uie_file_read_alloc(UIE_SRCDIR "/docs/FORMATS.md", 1u << 20, &doc, &len), UIE_OK);
	for (size_t i = 0; i < len; i++)
		if (doc[i] != ' ' && doc[i] != '\n' && doc[i] != '`')
			doc[w++] = doc[i];
	doc[w] = '\0';
	for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++)
		assert_non_null(strstr((char *)doc, all[i]));
	free(doc);
}

TC_MAIN(NULL, NULL, cmocka_unit_test(test_bloom_vector), cmocka_unit_test(test_package_vector),
	cmocka_unit_test(test_document_matches))
