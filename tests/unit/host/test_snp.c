/* SPDX-License-Identifier: Apache-2.0 */
/*
 * lib/host snp_*.c on real AMD material (../shared/snp beside the source
 * tree, or $UIE_SNP_DATA): a Milan report and its VCEK verify against the
 * built-in Milan roots and decode to the fields ../shared/snp/README.md
 * states; every single-bit flip of the signed bytes and of the signature
 * is refused; the report is refused, with the reason named, against the
 * Genoa and Turin roots, with a VCEK whose hwID or TCB differs (made under
 * a simulated chain), and under an unpinned ARK.  A simulated chain
 * verifies only when given explicitly, and then says so; the appraisal
 * refuses each policy field on its own.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>
#include <openssl/x509.h>

#include "fileio.h"
#include "hex.h"
#include "snp_cert.h"
#include "snp_roots.h"
#include "snp_sim.h"
#include "snp_verify.h"
#include "tcommon.h"
#include "uie/err.h"

#ifndef UIE_SNP_DATA
#error "UIE_SNP_DATA must name ../shared/snp"
#endif

struct fixture {
	uint8_t *report; /* milan-report.bin */
	size_t report_len;
	X509 *vcek;
	char *readme;
	struct uie_snp_report rep;
	struct uie_snp_sim sim; /* Milan names, simulated keys */
};

static const char *data_dir(void)
{
	const char *d = getenv("UIE_SNP_DATA");

	return d && *d ? d : UIE_SNP_DATA;
}

static uint8_t *load(const char *name, size_t *len)
{
	char path[4096];
	uint8_t *buf;

	snprintf(path, sizeof(path), "%s/%s", data_dir(), name);
	if (uie_file_read_alloc(path, 1u << 20, &buf, len) != UIE_OK)
		fail_msg("%s: %s (the AMD material of ../shared/snp)", path, uie_file_err_str(UIE_E_IO));
	return buf;
}

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));
	uint8_t *der, *readme;
	size_t n;

	assert_non_null(f);
	f->report = load("milan-report.bin", &f->report_len);
	der = load("milan-vcek.der", &n);
	assert_int_equal(uie_snp_cert_parse_alloc(der, n, &f->vcek), UIE_OK);
	free(der);
	readme = load("README.md", &n);
	f->readme = realloc(readme, n + 1);
	assert_non_null(f->readme);
	f->readme[n] = '\0';
	assert_int_equal(uie_snp_report_parse(f->report, f->report_len, &f->rep, NULL), UIE_OK);
	assert_int_equal(uie_snp_sim_roots(UIE_SNP_MILAN, &f->sim), UIE_OK);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;

	if (!f) /* setup failed */
		return 0;
	free(f->report);
	free(f->readme);
	X509_free(f->vcek);
	uie_snp_sim_free(&f->sim);
	free(f);
	return 0;
}

static const struct uie_snp_policy any = { .min_abi_major = 0 };

/* Verifies report (len bytes) with vcek under roots ask/ark (NULL: built in); the verdict. */
static int judge(const uint8_t *report, size_t len, X509 *vcek, X509 *ask, X509 *ark, bool simulated,
		 const struct uie_snp_policy *pol, struct uie_snp_verdict *v)
{
	struct uie_snp_evidence ev = { .report = report,
				       .report_len = len,
				       .vcek = vcek,
				       .ask = ask,
				       .ark = ark,
				       .simulated_root = simulated };

	return uie_snp_verify(&ev, pol, v);
}

/* Asserts that v refused with err and a reason containing words. */
static void refused(const struct uie_snp_verdict *v, int err, const char *words)
{
	if (v->err != err || !strstr(v->why.msg, words))
		fail_msg("want %s with '%s'; got %s: %s", uie_err_str(err), words, uie_err_str(v->err),
			 v->why.msg);
}

/* The hex in backquotes after the first occurrence of key in the README. */
static size_t readme_hex(const char *readme, const char *key, uint8_t *out, size_t cap)
{
	const char *p = strstr(readme, key), *q;
	char hex[256];

	assert_non_null(p);
	assert_non_null(p = strchr(p, '`'));
	assert_non_null(q = strchr(++p, '`'));
	assert_true((size_t)(q - p) < sizeof(hex));
	memcpy(hex, p, (size_t)(q - p));
	hex[q - p] = '\0';
	return tc_hex(hex, out, cap);
}

static void test_real_report_verifies(void **state)
{
	struct fixture *f = *state;
	struct uie_snp_roots milan;
	struct uie_snp_verdict v;

	/* The built-in roots, found by the VCEK's issuer. */
	assert_int_equal(judge(f->report, f->report_len, f->vcek, NULL, NULL, false, &any, &v), UIE_OK);
	assert_false(v.simulated);
	assert_string_equal(v.why.msg, "ok");
	assert_string_equal(v.ext.product, "Milan-B0");
	/* The same roots given explicitly; a pinned ARK stays AMD's even when called simulated. */
	assert_int_equal(uie_snp_roots_builtin(UIE_SNP_MILAN, &milan), UIE_OK);
	assert_int_equal(judge(f->report, f->report_len, f->vcek, milan.ask, milan.ark, true, &any, &v),
			 UIE_OK);
	assert_false(v.simulated);
	uie_snp_roots_free(&milan);
}

static void test_fields_equal_readme(void **state)
{
	struct fixture *f = *state;
	uint8_t want[64], tcb[8], buf[UIE_SNP_REPORT_LEN];
	struct uie_snp_tcb t;
	struct uie_wbuf w;

	assert_int_equal(readme_hex(f->readme, "measurement (48 bytes at 0x90)", want, sizeof(want)), 48);
	assert_memory_equal(f->rep.measurement, want, 48);
	assert_int_equal(readme_hex(f->readme, "reported TCB (8 bytes at 0x180)", tcb, sizeof(tcb)), 8);
	assert_true(f->rep.reported_tcb == uie_le64(tcb));
	/* "version 2, VMPL 0, policy 0x30000, signature algorithm 1" (the README's table) */
	assert_non_null(strstr(f->readme, "version 2, VMPL 0, policy 0x30000, signature algorithm 1"));
	assert_int_equal(f->rep.version, 2);
	assert_int_equal(f->rep.vmpl, 0);
	assert_true(f->rep.policy == 0x30000);
	assert_int_equal(f->rep.sig_algo, 1);
	uie_snp_tcb_decode(f->rep.reported_tcb, uie_snp_report_turin(&f->rep), &t);
	assert_int_equal(t.bootloader, 3);
	assert_int_equal(t.snp, 8);
	assert_int_equal(t.ucode, 0x73);
	/* The encoder writes back the same 1,184 bytes. */
	uie_wbuf_init(&w, buf, sizeof(buf));
	uie_snp_report_put(&w, &f->rep);
	assert_int_equal(w.err, UIE_OK);
	assert_int_equal(w.len, f->report_len);
	assert_memory_equal(buf, f->report, f->report_len);
}

/* The pinned fingerprints are the README's, and those of the ARK files. */
static void test_pins_equal_readme(void **state)
{
	struct fixture *f = *state;
	static const char *const files[] = { "milan-ark.pem", "genoa-ark.pem", "turin-ark.pem" };
	static const char *const keys[] = { "Milan `", "Genoa `", "Turin `" };
	uint8_t want[32], md[32], pin[32], *pem;
	unsigned mdlen;
	size_t n;
	X509 *ark;

	for (int p = 0; p < UIE_SNP_PRODUCT__MAX; p++) {
		assert_int_equal(readme_hex(f->readme, keys[p], want, sizeof(want)), 32);
		assert_int_equal(uie_hex_decode(uie_snp_builtin[p].ark_sha256, 64, pin, sizeof(pin)), UIE_OK);
		assert_memory_equal(pin, want, 32);
		pem = load(files[p], &n);
		assert_int_equal(uie_snp_cert_parse_alloc(pem, n, &ark), UIE_OK);
		assert_int_equal(X509_digest(ark, EVP_sha256(), md, &mdlen), 1);
		assert_memory_equal(md, want, 32);
		assert_true(uie_snp_ark_pinned(ark));
		X509_free(ark);
		free(pem);
	}
}

/* Whether the verifier's format and signature steps refuse r. */
static bool refuses(const uint8_t *r, X509 *vcek)
{
	struct uie_snp_report rep;

	return uie_snp_report_parse(r, UIE_SNP_REPORT_LEN, &rep, NULL) != UIE_OK ||
	       uie_snp_report_verify_sig(r, vcek, NULL) != UIE_OK;
}

static void test_every_bit_flip_refused(void **state)
{
	struct fixture *f = *state;
	uint8_t r[UIE_SNP_REPORT_LEN];
	size_t bad = 0;

	memcpy(r, f->report, sizeof(r));
	assert_false(refuses(r, f->vcek));
	for (size_t bit = 0; bit < 8 * (size_t)UIE_SNP_REPORT_LEN; bit++) {
		r[bit / 8] ^= (uint8_t)(1u << (bit % 8));
		if (!refuses(r, f->vcek)) {
			print_error("bit %zu (byte 0x%03zx) flipped verifies\n", bit % 8, bit / 8);
			bad++;
		}
		r[bit / 8] ^= (uint8_t)(1u << (bit % 8));
	}
	assert_int_equal(bad, 0);
}

static void test_other_products_roots_refused(void **state)
{
	struct fixture *f = *state;
	struct uie_snp_roots roots;
	struct uie_snp_verdict v;

	for (int p = UIE_SNP_GENOA; p <= UIE_SNP_TURIN; p++) {
		assert_int_equal(uie_snp_roots_builtin((enum uie_snp_product)p, &roots), UIE_OK);
		judge(f->report, f->report_len, f->vcek, roots.ask, roots.ark, false, &any, &v);
		refused(&v, UIE_E_SIGNATURE, "VCEK: ");
		uie_snp_roots_free(&roots);
	}
	/* The Milan ASK under the Genoa ARK: the ASK is named. */
	assert_int_equal(uie_snp_roots_builtin(UIE_SNP_GENOA, &roots), UIE_OK);
	{
		struct uie_snp_roots milan;

		assert_int_equal(uie_snp_roots_builtin(UIE_SNP_MILAN, &milan), UIE_OK);
		judge(f->report, f->report_len, f->vcek, milan.ask, roots.ark, false, &any, &v);
		refused(&v, UIE_E_SIGNATURE, "ASK: ");
		uie_snp_roots_free(&milan);
	}
	uie_snp_roots_free(&roots);
}

static void test_unpinned_ark_refused(void **state)
{
	struct fixture *f = *state;
	struct uie_snp_verdict v;

	judge(f->report, f->report_len, f->vcek, f->sim.ask, f->sim.ark, false, &any, &v);
	refused(&v, UIE_E_KEY, "ARK: SHA-256 fingerprint");
	assert_false(uie_snp_ark_pinned(f->sim.ark));
}

/* The real report re-signed by a simulated VCEK for chip with tcb, judged under the simulated roots. */
static void resigned(struct fixture *f, const uint8_t chip[64], uint64_t tcb, uint8_t out[UIE_SNP_REPORT_LEN],
		     struct uie_snp_verdict *v)
{
	assert_int_equal(uie_snp_sim_vcek(&f->sim, chip, tcb, false), UIE_OK);
	memcpy(out, f->report, UIE_SNP_REPORT_LEN);
	assert_int_equal(uie_snp_sim_sign(out, f->sim.vcek_key), UIE_OK);
	judge(out, UIE_SNP_REPORT_LEN, f->sim.vcek, f->sim.ask, f->sim.ark, true, &any, v);
}

static void test_vcek_hwid_or_tcb_differs(void **state)
{
	struct fixture *f = *state;
	uint8_t chip[64], r[UIE_SNP_REPORT_LEN];
	struct uie_snp_verdict v;

	resigned(f, f->rep.chip_id, f->rep.reported_tcb, r, &v);
	assert_int_equal(v.err, UIE_OK);
	assert_true(v.simulated);
	assert_string_equal(v.why.msg, "ok (simulated root)");
	memcpy(chip, f->rep.chip_id, sizeof(chip));
	chip[63] ^= 1;
	resigned(f, chip, f->rep.reported_tcb, r, &v);
	refused(&v, UIE_E_BINDING, "hwID differs from the report's CHIP_ID");
	/* SNP 9 in the certificate, 8 in the report (byte 6 of the Milan layout) */
	resigned(f, f->rep.chip_id, f->rep.reported_tcb + (1ull << 48), r, &v);
	refused(&v, UIE_E_BINDING, "snpSPL 9 differs from REPORTED_TCB.SNP 8");
	resigned(f, f->rep.chip_id, f->rep.reported_tcb + 1, r, &v);
	refused(&v, UIE_E_BINDING, "blSPL 4 differs from REPORTED_TCB.BOOT_LOADER 3");
}

static void test_simulated_needs_explicit_root(void **state)
{
	struct fixture *f = *state;
	uint8_t r[UIE_SNP_REPORT_LEN];
	struct uie_snp_verdict v;

	resigned(f, f->rep.chip_id, f->rep.reported_tcb, r, &v);
	assert_int_equal(v.err, UIE_OK);
	/* Against the built-in roots (its issuer names SEV-Milan): the real ASK did not sign it. */
	judge(r, sizeof(r), f->sim.vcek, NULL, NULL, false, &any, &v);
	refused(&v, UIE_E_SIGNATURE, "VCEK: ");
	/* "simulated" without the root */
	judge(r, sizeof(r), f->sim.vcek, NULL, NULL, true, &any, &v);
	refused(&v, UIE_E_INVAL, "simulated root must be given explicitly");
	/* the simulated root given, but not said to be simulated */
	judge(r, sizeof(r), f->sim.vcek, f->sim.ask, f->sim.ark, false, &any, &v);
	refused(&v, UIE_E_KEY, "ARK: ");
	/* the real VCEK (real report) under the simulated roots, even when explicitly simulated */
	judge(f->report, f->report_len, f->vcek, f->sim.ask, f->sim.ark, true, &any, &v);
	refused(&v, UIE_E_SIGNATURE, "VCEK: ");
	/* the simulated VCEK under the real Milan roots given explicitly */
	{
		struct uie_snp_roots milan;

		assert_int_equal(uie_snp_roots_builtin(UIE_SNP_MILAN, &milan), UIE_OK);
		judge(r, sizeof(r), f->sim.vcek, milan.ask, milan.ark, true, &any, &v);
		refused(&v, UIE_E_SIGNATURE, "VCEK: ");
		uie_snp_roots_free(&milan);
	}
}

/* The appraisal: each field refused on its own, the rest of the report as it is. */
static void test_appraisal(void **state)
{
	struct fixture *f = *state;
	uint8_t r[UIE_SNP_REPORT_LEN], other[1][48] = { { 1 } }, data[64] = { 0 };
	struct uie_snp_report rep = f->rep;
	struct uie_snp_policy pol = any;
	struct uie_snp_verdict v;
	struct uie_wbuf w;

	assert_int_equal(uie_snp_sim_vcek(&f->sim, f->rep.chip_id, f->rep.reported_tcb, false), UIE_OK);
	rep.policy |= UIE_SNP_POLICY_DEBUG | UIE_SNP_POLICY_MIGRATE_MA;
	rep.vmpl = 1;
	uie_wbuf_init(&w, r, sizeof(r));
	uie_snp_report_put(&w, &rep);
	assert_int_equal(uie_snp_sim_sign(r, f->sim.vcek_key), UIE_OK);
#define JUDGE() judge(r, sizeof(r), f->sim.vcek, f->sim.ask, f->sim.ark, true, &pol, &v)
	JUDGE();
	refused(&v, UIE_E_DENIED, "POLICY.DEBUG");
	pol.allow_debug = true;
	JUDGE();
	refused(&v, UIE_E_DENIED, "POLICY.MIGRATE_MA");
	pol.allow_migration_agent = true;
	pol.check_vmpl = true;
	JUDGE();
	refused(&v, UIE_E_DENIED, "VMPL 1, not 0");
	pol.vmpl = 1;
	pol.min_abi_major = 1;
	pol.min_abi_minor = 53;
	JUDGE();
	refused(&v, UIE_E_DENIED, "CURRENT_MAJOR.CURRENT_MINOR 1.52 is below 1.53");
	pol.min_abi_minor = 52;
	pol.check_min_tcb = true;
	pol.min_tcb = f->rep.reported_tcb + (1ull << 56); /* MICROCODE 0x74 */
	JUDGE();
	refused(&v, UIE_E_DENIED, "REPORTED_TCB.MICROCODE 115 is below the minimum 116");
	pol.min_tcb = f->rep.reported_tcb;
	pol.measurements = (const uint8_t(*)[48])other;
	pol.nmeasurements = 1;
	JUDGE();
	refused(&v, UIE_E_DENIED, "MEASUREMENT is not in the allow list");
	pol.measurements = (const uint8_t(*)[48])f->rep.measurement;
	pol.report_data = data;
	JUDGE();
	refused(&v, UIE_E_NONCE, "REPORT_DATA");
	pol.report_data = f->rep.report_data;
	JUDGE();
	assert_int_equal(v.err, UIE_OK);
#undef JUDGE
}

static void test_format_refusals(void **state)
{
	struct fixture *f = *state;
	uint8_t r[UIE_SNP_REPORT_LEN];
	struct uie_snp_report rep;
	struct uie_snp_why why;

	assert_int_equal(uie_snp_report_parse(f->report, f->report_len - 1, &rep, &why), UIE_E_TRUNCATED);
	memcpy(r, f->report, sizeof(r));
	r[0] = 4;
	assert_int_equal(uie_snp_report_parse(r, sizeof(r), &rep, &why), UIE_E_VERSION);
	assert_non_null(strstr(why.msg, "VERSION 4"));
	r[0] = 2;
	r[0x34] = 2;
	assert_int_equal(uie_snp_report_parse(r, sizeof(r), &rep, &why), UIE_E_ALG);
	assert_non_null(strstr(why.msg, "SIGNATURE_ALGO 2"));
	r[0x34] = 1;
	r[0x19f] = 1;
	assert_int_equal(uie_snp_report_parse(r, sizeof(r), &rep, &why), UIE_E_FORMAT);
	assert_non_null(strstr(why.msg, "0x188-0x19f"));
	assert_int_equal(rep.version, 0); /* cleared on error */
	r[0x19f] = 0;
	r[0x2A0 + 48] = 1;
	assert_int_equal(uie_snp_report_parse(r, sizeof(r), &rep, &why), UIE_E_FORMAT);
	assert_non_null(strstr(why.msg, "SIGNATURE R"));
}

/* A CRL issued by key under ark's name, listing serial (or nothing when 0). */
static X509_CRL *crl_new(X509 *ark, EVP_PKEY *key, ASN1_INTEGER *serial)
{
	X509_CRL *crl = X509_CRL_new();
	ASN1_TIME *now = ASN1_TIME_adj(NULL, time(NULL), -1, 0),
		  *next = ASN1_TIME_adj(NULL, time(NULL), 30, 0);
	X509_REVOKED *rev;

	assert_non_null(crl);
	assert_int_equal(X509_CRL_set_version(crl, X509_CRL_VERSION_2), 1);
	assert_int_equal(X509_CRL_set_issuer_name(crl, X509_get_subject_name(ark)), 1);
	assert_int_equal(X509_CRL_set1_lastUpdate(crl, now), 1);
	assert_int_equal(X509_CRL_set1_nextUpdate(crl, next), 1);
	if (serial) {
		assert_non_null(rev = X509_REVOKED_new());
		assert_int_equal(X509_REVOKED_set_serialNumber(rev, serial), 1);
		assert_int_equal(X509_REVOKED_set_revocationDate(rev, now), 1);
		assert_int_equal(X509_CRL_add0_revoked(crl, rev), 1);
	}
	assert_true(X509_CRL_sign(crl, key, EVP_sha384()) > 0);
	ASN1_TIME_free(now);
	ASN1_TIME_free(next);
	return crl;
}

/* A CRL by the ARK that revokes the ASK refuses; one that does not passes; one not by the ARK refuses. */
static void test_crl(void **state)
{
	struct fixture *f = *state;
	struct uie_snp_evidence ev = { .report_len = UIE_SNP_REPORT_LEN, .simulated_root = true };
	uint8_t r[UIE_SNP_REPORT_LEN];
	struct uie_snp_verdict v;
	EVP_PKEY *other = EVP_EC_gen("P-384");

	resigned(f, f->rep.chip_id, f->rep.reported_tcb, r, &v);
	assert_int_equal(v.err, UIE_OK);
	ev.report = r;
	ev.vcek = f->sim.vcek;
	ev.ask = f->sim.ask;
	ev.ark = f->sim.ark;
	ev.crl = crl_new(f->sim.ark, f->sim.ark_key, X509_get_serialNumber(f->sim.ask));
	uie_snp_verify(&ev, &any, &v);
	refused(&v, UIE_E_DENIED, "ASK: revoked by the CRL");
	X509_CRL_free(ev.crl);
	ev.crl = crl_new(f->sim.ark, f->sim.ark_key, NULL);
	assert_int_equal(uie_snp_verify(&ev, &any, &v), UIE_OK);
	X509_CRL_free(ev.crl);
	assert_non_null(other);
	ev.crl = crl_new(f->sim.ark, other, NULL);
	uie_snp_verify(&ev, &any, &v);
	refused(&v, UIE_E_SIGNATURE, "CRL: not issued and signed by the ARK");
	X509_CRL_free(ev.crl);
	EVP_PKEY_free(other);
}

TC_MAIN(setup, teardown, cmocka_unit_test(test_real_report_verifies),
	cmocka_unit_test(test_fields_equal_readme), cmocka_unit_test(test_pins_equal_readme),
	cmocka_unit_test(test_every_bit_flip_refused), cmocka_unit_test(test_other_products_roots_refused),
	cmocka_unit_test(test_unpinned_ark_refused), cmocka_unit_test(test_vcek_hwid_or_tcb_differs),
	cmocka_unit_test(test_simulated_needs_explicit_root), cmocka_unit_test(test_appraisal),
	cmocka_unit_test(test_format_refusals), cmocka_unit_test(test_crl))
