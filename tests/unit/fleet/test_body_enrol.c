/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The bodies of enrolment by attestation (verifierd/body_enrol.c): a
 * fleet's trust, the evidence, the activated secret.  What parses holds
 * the values given; every way a body can be wrong gets its class
 * (UIE_E_FORMAT: bad_json, UIE_E_RANGE: bad_field) and owns nothing.
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
#include <openssl/pem.h>

#include "body.h"
#include "host_platform.h"
#include "snp_cert.h"
#include "snp_sim.h"
#include "tcommon.h"
#include "tpem.h"
#include "uie/err.h"

/* body (a json_t, stolen) as text through the fleet parser. */
static int fleet(json_t *body, struct vd_fleet *f)
{
	char why[VD_WHY_LEN] = "", *s = json_dumps(body, 0);
	int r;

	assert_non_null(s);
	r = vd_fleet_parse_alloc(s, strlen(s), f, why);
	assert_true(r == UIE_OK || why[0]);
	free(s);
	json_decref(body);
	return r;
}

static void test_fleet_accepted(void **state)
{
	struct uie_snp_roots amd;
	struct uie_snp_sim sim;
	struct vd_fleet f;
	char *ark, *ask, m[97];

	(void)state;
	assert_int_equal(fleet(json_pack("{s:i, s:s}", "vmpl", 0, "measurements", "any"), &f), UIE_OK);
	assert_true(f.any_measurement);
	assert_null(f.ark_pem);
	assert_false(f.has_min_tcb);
	vd_fleet_free(&f);
	memset(m, 'A', 96);
	m[96] = '\0';
	m[0] = '0';
	assert_int_equal(fleet(json_pack("{s:i, s:[s,s], s:s, s:s}", "vmpl", 2, "measurements", m, m,
					 "min_abi", "1.55", "min_tcb", "0300000000000873"),
			       &f),
			 UIE_OK);
	assert_int_equal(f.vmpl, 2);
	assert_int_equal(f.nmeasurements, 2);
	assert_int_equal(f.measurements[1][1], 0xAA);
	assert_int_equal(f.measurements[0][0], 0x0A);
	assert_int_equal(f.min_abi_major, 1);
	assert_int_equal(f.min_abi_minor, 55);
	assert_true(f.has_min_tcb);
	assert_int_equal(f.min_tcb, 0x7308000000000003ull); /* little-endian, as the report holds it */
	vd_fleet_free(&f);
	/* AMD's own roots given explicitly, and a simulated root said to be one. */
	assert_int_equal(uie_snp_roots_builtin(UIE_SNP_GENOA, &amd), UIE_OK);
	ark = tpem_cert(amd.ark);
	ask = tpem_cert(amd.ask);
	assert_int_equal(
		fleet(json_pack("{s:s, s:s, s:i, s:[]}", "ark", ark, "ask", ask, "vmpl", 0, "measurements"),
		      &f),
		UIE_OK);
	assert_string_equal(f.ark_pem, ark);
	assert_false(f.simulated);
	assert_int_equal(f.nmeasurements, 0);
	assert_false(f.any_measurement);
	vd_fleet_free(&f);
	/* ... but never as simulated. */
	assert_int_equal(fleet(json_pack("{s:s, s:s, s:b, s:i, s:s}", "ark", ark, "ask", ask, "simulated", 1,
					 "vmpl", 0, "measurements", "any"),
			       &f),
			 UIE_E_RANGE);
	assert_null(f.ark_pem);
	free(ark);
	free(ask);
	uie_snp_roots_free(&amd);
	assert_int_equal(uie_snp_sim_roots(UIE_SNP_MILAN, &sim), UIE_OK);
	ark = tpem_cert(sim.ark);
	ask = tpem_cert(sim.ask);
	assert_int_equal(fleet(json_pack("{s:s, s:s, s:b, s:i, s:s}", "ark", ark, "ask", ask, "simulated", 1,
					 "vmpl", 0, "measurements", "any"),
			       &f),
			 UIE_OK);
	assert_true(f.simulated);
	vd_fleet_free(&f);
	/* A simulated root not said to be one, and the ASK and ARK swapped. */
	assert_int_equal(fleet(json_pack("{s:s, s:s, s:i, s:s}", "ark", ark, "ask", ask, "vmpl", 0,
					 "measurements", "any"),
			       &f),
			 UIE_E_RANGE);
	assert_int_equal(fleet(json_pack("{s:s, s:s, s:b, s:i, s:s}", "ark", ask, "ask", ark, "simulated", 1,
					 "vmpl", 0, "measurements", "any"),
			       &f),
			 UIE_E_RANGE);
	free(ark);
	free(ask);
	uie_snp_sim_free(&sim);
}

static void test_fleet_refused(void **state)
{
	static const struct {
		const char *body;
		int err;
	} bad[] = {
		{ "", UIE_E_FORMAT },
		{ "[]", UIE_E_FORMAT },
		{ "{\"measurements\": \"any\"}", UIE_E_FORMAT },
		{ "{\"vmpl\": 0}", UIE_E_FORMAT },
		{ "{\"vmpl\": \"0\", \"measurements\": \"any\"}", UIE_E_FORMAT },
		{ "{\"vmpl\": 4, \"measurements\": \"any\"}", UIE_E_RANGE },
		{ "{\"vmpl\": -1, \"measurements\": \"any\"}", UIE_E_RANGE },
		{ "{\"vmpl\": 0, \"measurements\": \"all\"}", UIE_E_FORMAT },
		{ "{\"vmpl\": 0, \"measurements\": [\"00\"]}", UIE_E_RANGE },
		{ "{\"vmpl\": 0, \"measurements\": [1]}", UIE_E_RANGE },
		{ "{\"vmpl\": 0, \"measurements\": \"any\", \"simulated\": true}", UIE_E_RANGE },
		{ "{\"vmpl\": 0, \"measurements\": \"any\", \"simulated\": 1}", UIE_E_FORMAT },
		{ "{\"vmpl\": 0, \"measurements\": \"any\", \"ark\": \"x\"}", UIE_E_RANGE },
		{ "{\"vmpl\": 0, \"measurements\": \"any\", \"min_abi\": \"1\"}", UIE_E_RANGE },
		{ "{\"vmpl\": 0, \"measurements\": \"any\", \"min_abi\": \"1.256\"}", UIE_E_RANGE },
		{ "{\"vmpl\": 0, \"measurements\": \"any\", \"min_abi\": \" 1.5\"}", UIE_E_RANGE },
		{ "{\"vmpl\": 0, \"measurements\": \"any\", \"min_abi\": \"+1.5\"}", UIE_E_RANGE },
		{ "{\"vmpl\": 0, \"measurements\": \"any\", \"min_tcb\": \"00\"}", UIE_E_RANGE },
		{ "{\"vmpl\": 0, \"measurements\": \"any\", \"other\": 1}", UIE_E_FORMAT },
		{ "{\"vmpl\": 0, \"vmpl\": 1, \"measurements\": \"any\"}", UIE_E_FORMAT },
	};
	char why[VD_WHY_LEN];
	struct vd_fleet f;

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		why[0] = '\0';
		if (vd_fleet_parse_alloc(bad[i].body, strlen(bad[i].body), &f, why) != bad[i].err)
			fail_msg("%s: want %s, got \"%s\"", bad[i].body, uie_err_str(bad[i].err), why);
		assert_true(why[0]);
		assert_null(f.ark_pem);
		assert_null(f.measurements);
	}
}

#define NONCE128                                                                                           \
	"00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff" \
	"00112233445566778899aabbccddeeff"

static int evidence(const struct uie_platform *pl, json_t *body, struct vd_enrol_ev *v)
{
	char why[VD_WHY_LEN] = "", *s = json_dumps(body, 0);
	int r = vd_enrol_ev_parse_alloc(pl, s, strlen(s), v, why);

	assert_true(r == UIE_OK || why[0]);
	free(s);
	json_decref(body);
	return r;
}

static json_t *good_evidence(void)
{
	return json_pack("{s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:i}", "nonce", NONCE128, "fleet", "f-1",
			 "report", "AAEC", "certs", "AwQ=", "manifest", "BQ==", "ek", "BgcI", "ak",
			 "CQ==", "interval", 30);
}

static void test_evidence(void **state)
{
	static const struct {
		const char *key;
		json_t *(*value)(void);
		int err;
	} bad[] = {
		{ "nonce", NULL, UIE_E_FORMAT },    { "fleet", NULL, UIE_E_FORMAT },
		{ "report", NULL, UIE_E_FORMAT },   { "certs", NULL, UIE_E_FORMAT },
		{ "manifest", NULL, UIE_E_FORMAT }, { "ek", NULL, UIE_E_FORMAT },
		{ "ak", NULL, UIE_E_FORMAT },       { "interval", NULL, UIE_E_FORMAT },
	};
	struct uie_host_platform hp;
	struct vd_enrol_ev v;
	json_t *b;

	(void)state;
	assert_int_equal(uie_host_platform_init(&hp), UIE_OK);
	assert_int_equal(evidence(&hp.pl, good_evidence(), &v), UIE_OK);
	assert_int_equal(v.nonce[1], 0x11);
	assert_int_equal(v.nonce[63], 0xff);
	assert_string_equal(v.fleet, "f-1");
	assert_int_equal(v.report_len, 3);
	assert_int_equal(v.report[2], 2);
	assert_int_equal(v.certs_len, 2);
	assert_int_equal(v.manifest_len, 1);
	assert_int_equal(v.ek_len, 3);
	assert_int_equal(v.ak_len, 1);
	assert_false(v.single);
	assert_int_equal(v.e.interval, 30);
	assert_null(v.e.reference);
	vd_enrol_ev_free(&v);
	/* Each required member missing. */
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		b = good_evidence();
		json_object_del(b, bad[i].key);
		assert_int_equal(evidence(&hp.pl, b, &v), bad[i].err);
		assert_null(v.report);
	}
	/* Values out of range or of the wrong type. */
#define BAD(key, val, err)                                      \
	do {                                                    \
		b = good_evidence();                            \
		json_object_set_new(b, key, val);               \
		assert_int_equal(evidence(&hp.pl, b, &v), err); \
		assert_null(v.report);                          \
		assert_null(v.ak);                              \
	} while (0)
	BAD("nonce", json_string("0011"), UIE_E_RANGE);
	BAD("nonce", json_integer(1), UIE_E_FORMAT);
	BAD("fleet", json_string("a b"), UIE_E_RANGE);
	BAD("fleet", json_string(""), UIE_E_RANGE);
	BAD("report", json_string(""), UIE_E_RANGE);
	BAD("report", json_string("A"), UIE_E_RANGE);
	BAD("ak", json_string("!!!!"), UIE_E_RANGE);
	BAD("single", json_string("yes"), UIE_E_FORMAT);
	BAD("interval", json_integer(0), UIE_E_RANGE);
	BAD("reference", json_string("not a reference line"), UIE_E_RANGE);
	BAD("policies", json_string("x"), UIE_E_FORMAT);
	BAD("ak_pub", json_string("x"), UIE_E_FORMAT); /* hand-given AKs are another call */
	BAD("id", json_string("m-1"), UIE_E_FORMAT);   /* the id is the path's */
#undef BAD
	b = good_evidence();
	json_object_set_new(b, "single", json_true());
	assert_int_equal(evidence(&hp.pl, b, &v), UIE_OK);
	assert_true(v.single);
	vd_enrol_ev_free(&v);
	uie_host_platform_fini(&hp);
}

static void test_activate(void **state)
{
	static const char good[] = "{\"nonce\": \"" NONCE128 "\", \"secret\": "
				   "\"000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f\"}";
	static const char *const bad[] = {
		"{\"nonce\": \"" NONCE128 "\"}",
		"{\"nonce\": \"" NONCE128 "\", \"secret\": \"0001\"}",
		"{\"nonce\": \"00\", \"secret\": "
		"\"000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f\"}",
		"{\"nonce\": \"" NONCE128
		"\", \"secret\": \"000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f\", "
		"\"x\": 1}",
		"{}",
		"",
	};
	char why[VD_WHY_LEN];
	struct vd_activate a;
	uint8_t zero[VD_SECRET_LEN] = { 0 };

	(void)state;
	assert_int_equal(vd_activate_parse(good, strlen(good), &a, why), UIE_OK);
	assert_int_equal(a.secret[31], 0x1f);
	assert_int_equal(a.nonce[0], 0x00);
	assert_int_equal(a.nonce[15], 0xff);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		why[0] = '\0';
		assert_int_not_equal(vd_activate_parse(bad[i], strlen(bad[i]), &a, why), UIE_OK);
		assert_true(why[0]);
		assert_memory_equal(a.secret, zero, sizeof(zero));
	}
}

TC_MAIN(NULL, NULL, cmocka_unit_test(test_fleet_accepted), cmocka_unit_test(test_fleet_refused),
	cmocka_unit_test(test_evidence), cmocka_unit_test(test_activate))
