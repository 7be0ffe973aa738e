/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The fleet verifier's request bodies (verifierd/body.c) and base64
 * (lib/host/b64.c): RFC 4648's vectors, strict refusals (one text, one
 * meaning), and every way a body can be wrong, with the class it gets.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <openssl/ec.h>
#include <openssl/evp.h>
#include <openssl/pem.h>

#include "b64.h"
#include "body.h"
#include "host_platform.h"
#include "tcommon.h"
#include "tpem.h"
#include "uie/err.h"

static void test_b64_vectors(void **state)
{
	static const char *const plain[] = { "", "f", "fo", "foo", "foob", "fooba", "foobar" };
	static const char *const enc[] = { "", "Zg==", "Zm8=", "Zm9v", "Zm9vYg==", "Zm9vYmE=", "Zm9vYmFy" };
	uint8_t *out;
	size_t n;

	(void)state;
	for (size_t i = 0; i < 7; i++) {
		char *e = uie_b64_encode_alloc((const uint8_t *)plain[i], strlen(plain[i]));

		assert_string_equal(e, enc[i]);
		free(e);
		assert_int_equal(uie_b64_decode_alloc(enc[i], strlen(enc[i]), &out, &n), UIE_OK);
		assert_int_equal(n, strlen(plain[i]));
		assert_memory_equal(out, plain[i], n);
		free(out);
	}
}

static void test_b64_refusals(void **state)
{
	static const char *const bad[] = { "Zg=",      "Zh==",     "Zm9=", "Z===",
					   "Zg==Zg==", "Zm9v!A==", "Zm 9", "====" };
	uint8_t *out;
	size_t n;

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(uie_b64_decode_alloc(bad[i], strlen(bad[i]), &out, &n), UIE_E_FORMAT);
		assert_null(out);
		assert_int_equal(n, 0);
	}
}

static int enrol(const char *body, struct vd_enrol *e)
{
	struct uie_host_platform hp;
	char why[VD_WHY_LEN] = "";
	int r;

	assert_int_equal(uie_host_platform_init(&hp), UIE_OK);
	r = vd_enrol_parse_alloc(&hp.pl, body, strlen(body), e, why);
	if (r != UIE_OK)
		assert_true(why[0] != '\0'); /* every refusal says why */
	uie_host_platform_fini(&hp);
	return r;
}

/* A P-256 public key as PEM inside a JSON string (newlines escaped), malloc'ed. */
static char *ec_pem_json(void)
{
	char *pem = tpem_ec_key(), *esc = malloc(2 * strlen(pem) + 1), *o = esc;

	assert_non_null(esc);
	for (const char *c = pem; *c; c++) {
		if (*c == '\n') {
			*o++ = '\\';
			*o++ = 'n';
		} else {
			*o++ = *c;
		}
	}
	*o = '\0';
	free(pem);
	return esc;
}

#define REF_LINE                   \
	"role=MAIN digest=sha256:" \
	"0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef path=/usr/bin/true"

static void test_enrol(void **state)
{
	char *body, *esc = ec_pem_json();
	struct vd_enrol e;

	(void)state;
	assert_true(asprintf(&body,
			     "{\"id\":\"vm-1\",\"ak_pub\":\"%s\",\"interval\":60,\"reference\":\"%s\"}", esc,
			     REF_LINE) > 0);
	assert_int_equal(enrol(body, &e), UIE_OK);
	assert_string_equal(e.id, "vm-1");
	assert_int_equal(e.interval, 60);
	assert_string_equal(e.reference, REF_LINE);
	assert_true(e.ak_len > 60);
	vd_enrol_free(&e);
	free(body);
	/* A reference that an attestation could not read: refused at enrolment, naming the line. */
	assert_true(asprintf(&body,
			     "{\"id\":\"vm-1\",\"ak_pub\":\"%s\",\"interval\":60,\"reference\":\"%s\\nx\"}",
			     esc, REF_LINE) > 0);
	assert_int_equal(enrol(body, &e), UIE_E_RANGE);
	assert_null(e.reference);
	free(body);
	/* Format: not the object the API defines. */
	assert_int_equal(enrol("{", &e), UIE_E_FORMAT);
	assert_int_equal(enrol("[]", &e), UIE_E_FORMAT);
	assert_int_equal(enrol("{\"id\":\"a\",\"id\":\"b\"}", &e), UIE_E_FORMAT);
	assert_int_equal(enrol("{\"id\":\"a\",\"extra\":1}", &e), UIE_E_FORMAT);
	assert_int_equal(enrol("{\"id\":\"a\",\"interval\":\"60\"}", &e), UIE_E_FORMAT);
	/* Range: values the API refuses. */
	assert_true(asprintf(&body, "{\"id\":\"bad id\",\"ak_pub\":\"%s\",\"interval\":60}", esc) > 0);
	assert_int_equal(enrol(body, &e), UIE_E_RANGE);
	free(body);
	assert_true(asprintf(&body, "{\"id\":\"%065d\",\"ak_pub\":\"%s\",\"interval\":60}", 0, esc) > 0);
	assert_int_equal(enrol(body, &e), UIE_E_RANGE);
	free(body);
	assert_true(asprintf(&body, "{\"id\":\"a\",\"ak_pub\":\"%s\",\"interval\":86401}", esc) > 0);
	assert_int_equal(enrol(body, &e), UIE_E_RANGE);
	free(body);
	assert_int_equal(enrol("{\"id\":\"a\",\"ak_pub\":\"not a key\",\"interval\":1}", &e), UIE_E_RANGE);
	assert_true(asprintf(&body, "{\"id\":\"a\",\"ak_pub\":\"%s\",\"interval\":1,\"policies\":[\"AAAA\"]}",
			     esc) > 0);
	assert_int_equal(enrol(body, &e), UIE_E_RANGE);
	free(body);
	free(esc);
}

static int rekey(const char *body, struct vd_rekey *k)
{
	char why[VD_WHY_LEN] = "";
	int r = vd_rekey_parse_alloc(body, strlen(body), k, why);

	if (r != UIE_OK) {
		assert_true(why[0] != '\0');
		assert_null(k->ak_der);
	}
	return r;
}

static void test_rekey(void **state)
{
	char *body, *esc = ec_pem_json();
	struct vd_rekey k;

	(void)state;
	assert_true(asprintf(&body, "{\"ak_pub\":\"%s\"}", esc) > 0);
	assert_int_equal(rekey(body, &k), UIE_OK);
	assert_true(k.ak_len > 60);
	vd_rekey_free(&k);
	assert_null(k.ak_der);
	free(body);
	assert_true(asprintf(&body, "{\"ak_pub\":\"%s\",\"interval\":60}", esc) > 0);
	assert_int_equal(rekey(body, &k), UIE_E_FORMAT); /* only the key changes */
	free(body);
	assert_int_equal(rekey("{}", &k), UIE_E_FORMAT);
	assert_int_equal(rekey("{\"ak_pub\":1}", &k), UIE_E_FORMAT);
	assert_int_equal(rekey("{\"ak_pub\":\"not a key\"}", &k), UIE_E_RANGE);
	free(esc);
}

static void test_attest(void **state)
{
	char why[VD_WHY_LEN];
	struct vd_attest a;
	char body[256];

	(void)state;
	snprintf(body, sizeof(body), "{\"nonce\":\"%064d\",\"evidence\":\"Zm9v\"}", 0);
	assert_int_equal(vd_attest_parse_alloc(body, strlen(body), &a, why), UIE_OK);
	assert_int_equal(a.ae_len, 3);
	assert_memory_equal(a.ae, "foo", 3);
	vd_attest_free(&a);
	snprintf(body, sizeof(body), "{\"nonce\":\"%062d\",\"evidence\":\"Zm9v\"}", 0);
	assert_int_equal(vd_attest_parse_alloc(body, strlen(body), &a, why), UIE_E_RANGE);
	snprintf(body, sizeof(body), "{\"nonce\":\"%064d\",\"evidence\":\"Zm9\"}", 0);
	assert_int_equal(vd_attest_parse_alloc(body, strlen(body), &a, why), UIE_E_RANGE);
	assert_null(a.ae);
	snprintf(body, sizeof(body), "{\"nonce\":\"%064d\"}", 0);
	assert_int_equal(vd_attest_parse_alloc(body, strlen(body), &a, why), UIE_E_FORMAT);
}

static void test_ids(void **state)
{
	(void)state;
	assert_true(uie_machine_id_ok("vm-0001.example_a"));
	assert_false(uie_machine_id_ok(""));
	assert_false(uie_machine_id_ok("a/b"));
	assert_false(uie_machine_id_ok("a b"));
	assert_false(uie_machine_id_ok("é"));
	assert_true(uie_machine_id_ok("0123456789012345678901234567890123456789012345678901234567890123"));
	assert_false(uie_machine_id_ok("01234567890123456789012345678901234567890123456789012345678901234"));
}

TC_MAIN(NULL, NULL, cmocka_unit_test(test_b64_vectors), cmocka_unit_test(test_b64_refusals),
	cmocka_unit_test(test_enrol), cmocka_unit_test(test_attest), cmocka_unit_test(test_rekey),
	cmocka_unit_test(test_ids))
