/* SPDX-License-Identifier: Apache-2.0 */
/*
 * lib/host snp_manifest.c, snp_tsm.c, snp_sim_attest.c: the SVSM's
 * services manifest and its binding REPORT_DATA = SHA-512(nonce ||
 * manifest), configfs-tsm's directory and the GHCB certificate table.
 * A simulated SVSM answer read back from its directory verifies under
 * the simulated root given explicitly and yields the vTPM's EK; another
 * nonce, a manifest naming another EK, and the built-in AMD roots are
 * refused at the step that catches them.  The vectors are those of
 * docs/FORMATS.md section 7.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <openssl/rand.h>
#include <tss2/tss2_mu.h>

#include "snp_manifest.h"
#include "snp_sim.h"
#include "snp_tsm.h"
#include "snp_verify.h"
#include "tcommon.h"
#include "uie/err.h"

#ifndef UIE_SRCDIR
#error "UIE_SRCDIR must name the source tree"
#endif

/* docs/FORMATS.md 7.5: the vTPM GUID on the wire, and a manifest of the vTPM with 4 bytes of data. */
static const char guid_vtpm_hex[] = "ebf176c42301a5459641b4e7dde5bfe3";
static const char manifest_hex[] = "bb9e8463923d7046a1ff58f9c94b87bb"
				   "34000000"
				   "01000000"
				   "ebf176c42301a5459641b4e7dde5bfe3"
				   "30000000"
				   "04000000"
				   "00010203";
/* docs/FORMATS.md 7.6: a certificate table with a 3-byte VCEK. */
static const char table_hex[] = "8d75da6364e66445adc5f4b93be8accd"
				"30000000"
				"03000000"
				"00000000000000000000000000000000"
				"00000000"
				"00000000"
				"308100";
/* docs/FORMATS.md 7.8: an SNP bundle (flags 1; report aa, manifest bb, table cc). */
static const char bundle_hex[] = "55534e50010001000100000001000000"
				 "01000000aabbcc";

static void test_guid_and_manifest_vector(void **state)
{
	uint8_t guid[16], want[64], buf[64], data[4] = { 0, 1, 2, 3 };
	struct uie_snp_manifest m = { .n = 1 }, back;
	const uint8_t *d;
	struct uie_wbuf w;
	size_t n, dn;

	(void)state;
	assert_int_equal(uie_guid_parse(UIE_SNP_GUID_VTPM, guid), UIE_OK);
	tc_hex(guid_vtpm_hex, want, sizeof(want));
	assert_memory_equal(guid, want, 16);
	assert_int_equal(uie_guid_parse("c476f1eb-0123-45a5-9641-b4e7dde5bfeX", guid), UIE_E_FORMAT);
	assert_int_equal(uie_guid_parse("c476f1eb+0123-45a5-9641-b4e7dde5bfe3", guid), UIE_E_FORMAT);
	uie_guid_parse(UIE_SNP_GUID_VTPM, m.s[0].guid);
	m.s[0].data = data;
	m.s[0].size = sizeof(data);
	uie_wbuf_init(&w, buf, sizeof(buf));
	uie_snp_manifest_put(&w, &m);
	assert_int_equal(w.err, UIE_OK);
	n = tc_hex(manifest_hex, want, sizeof(want));
	assert_int_equal(w.len, n);
	assert_memory_equal(buf, want, n);
	assert_int_equal(uie_snp_manifest_parse(buf, n, &back, NULL), UIE_OK);
	assert_int_equal(back.n, 1);
	assert_int_equal(uie_snp_manifest_find(&back, m.s[0].guid, &d, &dn), UIE_OK);
	assert_int_equal(dn, 4);
	assert_memory_equal(d, data, 4);
	{
		static const char *const v1[] = { guid_vtpm_hex };
		static const char *const v2[] = { manifest_hex };
		static const char *const v3[] = { table_hex };
		static const char *const v4[] = { bundle_hex };
		static const char *const *const docs[] = { v1, v2, v3, v4 };

		tc_doc_vectors(UIE_SRCDIR "/docs/FORMATS.md", "### 7.7 Vectors", 0, docs, 4);
	}
}

/* Each malformed manifest, refused with the error and words named. */
static void test_manifest_refusals(void **state)
{
	static const struct {
		size_t at;
		uint8_t val;
		int err;
		const char *words;
	} rows[] = {
		{ 0, 0xbc, UIE_E_FORMAT, "header GUID" }, { 16, 0x35, UIE_E_RANGE, "total length" },
		{ 20, 0x11, UIE_E_LIMIT, "17 entries" },  { 20, 0x02, UIE_E_TRUNCATED, "do not fit" },
		{ 40, 0x31, UIE_E_RANGE, "entry 0" },     { 44, 0x03, UIE_E_RANGE, "after the last" },
		{ 44, 0x05, UIE_E_RANGE, "entry 0" },
	};
	uint8_t m[64];
	struct uie_snp_manifest out;
	struct uie_snp_why why;
	size_t n;

	(void)state;
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		n = tc_hex(manifest_hex, m, sizeof(m));
		m[rows[i].at] = rows[i].val;
		assert_int_equal(uie_snp_manifest_parse(m, n, &out, &why), rows[i].err);
		if (!strstr(why.msg, rows[i].words))
			fail_msg("row %zu: '%s' lacks '%s'", i, why.msg, rows[i].words);
		assert_int_equal(out.n, 0);
	}
	n = tc_hex(manifest_hex, m, sizeof(m));
	assert_int_equal(uie_snp_manifest_parse(m, n - 1, &out, &why), UIE_E_RANGE);
	assert_int_equal(uie_snp_manifest_parse(m, 20, &out, &why), UIE_E_TRUNCATED);
}

static void test_cert_table(void **state)
{
	uint8_t t[64], back[64];
	struct uie_snp_cert_table ct;
	struct uie_snp_why why;
	struct uie_wbuf w;
	size_t n;

	(void)state;
	n = tc_hex(table_hex, t, sizeof(t));
	assert_int_equal(uie_snp_cert_table_parse(t, n, &ct, &why), UIE_OK);
	assert_int_equal(ct.len[UIE_SNP_CERT_VCEK], 3);
	assert_ptr_equal(ct.der[UIE_SNP_CERT_VCEK], t + 48);
	assert_null(ct.der[UIE_SNP_CERT_ARK]);
	uie_wbuf_init(&w, back, sizeof(back));
	uie_snp_cert_table_put(&w, &ct);
	assert_int_equal(w.len, n);
	assert_memory_equal(back, t, n);
	t[16] = 0x31; /* the VCEK runs past the end */
	assert_int_equal(uie_snp_cert_table_parse(t, n, &ct, &why), UIE_E_RANGE);
	n = tc_hex(table_hex, t, sizeof(t));
	assert_int_equal(uie_snp_cert_table_parse(t, 10, &ct, &why), UIE_E_TRUNCATED);
	memcpy(t + 24, t, 24); /* a second VCEK, and no end */
	assert_int_equal(uie_snp_cert_table_parse(t, n, &ct, &why), UIE_E_ORDER);
}

/* An RSA-2048 EK's TPMT_PUBLIC by the TCG EK profile's template L-1, with a random modulus. */
static size_t ek_public(uint8_t *out, size_t cap)
{
	static const uint8_t policy_a[32] = { 0x83, 0x71, 0x97, 0x67, 0x44, 0x84, 0xb3, 0xf8,
					      0x1a, 0x90, 0xcc, 0x8d, 0x46, 0xa5, 0xd7, 0x24,
					      0xfd, 0x52, 0xd7, 0x6e, 0x06, 0x52, 0x0b, 0x64,
					      0xf2, 0xa1, 0xda, 0x1b, 0x33, 0x14, 0x69, 0xaa };
	TPMT_PUBLIC p;
	size_t off = 0;

	memset(&p, 0, sizeof(p));
	p.type = TPM2_ALG_RSA;
	p.nameAlg = TPM2_ALG_SHA256;
	p.objectAttributes = 0x000300b2;
	p.authPolicy.size = sizeof(policy_a);
	memcpy(p.authPolicy.buffer, policy_a, sizeof(policy_a));
	p.parameters.rsaDetail.symmetric.algorithm = TPM2_ALG_AES;
	p.parameters.rsaDetail.symmetric.keyBits.aes = 128;
	p.parameters.rsaDetail.symmetric.mode.aes = TPM2_ALG_CFB;
	p.parameters.rsaDetail.scheme.scheme = TPM2_ALG_NULL;
	p.parameters.rsaDetail.keyBits = 2048;
	p.unique.rsa.size = 256;
	assert_int_equal(RAND_bytes(p.unique.rsa.buffer, 256), 1);
	assert_int_equal(Tss2_MU_TPMT_PUBLIC_Marshal(&p, out, cap, &off), TSS2_RC_SUCCESS);
	return off;
}

struct svsm {
	struct uie_snp_sim sim;
	struct uie_snp_report tmpl;
	uint8_t nonce[64], ek[400];
	size_t ek_len;
	char dir[64];
};

static int setup(void **state)
{
	struct svsm *s = calloc(1, sizeof(*s));

	assert_non_null(s);
	assert_int_equal(uie_snp_sim_roots(UIE_SNP_GENOA, &s->sim), UIE_OK);
	s->tmpl.version = 3;
	s->tmpl.sig_algo = 1;
	s->tmpl.policy = 0x30000;
	s->tmpl.cpuid_fam_id = 0x19;
	s->tmpl.cpuid_mod_id = 0x11;
	s->tmpl.reported_tcb = 0x1800000000000004ull; /* bootloader 4, SNP 0, microcode 0x18 */
	s->tmpl.current_major = 1;
	s->tmpl.current_minor = 55;
	assert_int_equal(RAND_bytes(s->tmpl.chip_id, 64), 1);
	assert_int_equal(RAND_bytes(s->tmpl.measurement, 48), 1);
	assert_int_equal(RAND_bytes(s->nonce, 64), 1);
	assert_int_equal(uie_snp_sim_vcek(&s->sim, s->tmpl.chip_id, s->tmpl.reported_tcb, false), UIE_OK);
	s->ek_len = ek_public(s->ek, sizeof(s->ek));
	snprintf(s->dir, sizeof(s->dir), "/tmp/uie-snp-tsm-XXXXXX");
	tc_mkdtemp(s->dir);
	*state = s;
	return 0;
}

static int teardown(void **state)
{
	struct svsm *s = *state;

	tc_rmtree(s->dir);
	uie_snp_sim_free(&s->sim);
	free(s);
	return 0;
}

/* The simulated answer written to s->dir and read back as a verifier reads configfs-tsm. */
static void answer(struct svsm *s, bool single, struct uie_snp_tsm *back)
{
	struct uie_snp_tsm t;
	struct uie_snp_why why;

	assert_int_equal(uie_snp_sim_attest(&s->sim, &s->tmpl, s->nonce, s->ek, s->ek_len, single, &t),
			 UIE_OK);
	assert_int_equal(uie_snp_tsm_write(s->dir, &t), UIE_OK);
	uie_snp_tsm_free(&t);
	if (uie_snp_tsm_read(s->dir, back, &why) != UIE_OK)
		fail_msg("%s", why.msg);
	assert_int_equal(back->single, single);
}

/* Verifies back's report with its auxblob's certificates; roots the auxblob's unless given. */
static int judge(struct uie_snp_tsm *back, X509 *ask, X509 *ark, bool simulated, struct uie_snp_verdict *v)
{
	struct uie_snp_cert_table ct;
	struct uie_snp_evidence ev = { .report = back->report, .report_len = back->report_len };
	struct uie_snp_policy pol = { .check_vmpl = true };
	int r;

	assert_int_equal(uie_snp_cert_table_parse(back->aux, back->aux_len, &ct, NULL), UIE_OK);
	assert_int_equal(
		uie_snp_cert_parse_alloc(ct.der[UIE_SNP_CERT_VCEK], ct.len[UIE_SNP_CERT_VCEK], &ev.vcek),
		UIE_OK);
	ev.ask = ask;
	ev.ark = ark;
	ev.simulated_root = simulated;
	r = uie_snp_verify(&ev, &pol, v);
	X509_free(ev.vcek);
	return r;
}

static void test_simulated_svsm_answer(void **state)
{
	struct svsm *s = *state;
	struct uie_snp_tsm back;
	struct uie_snp_verdict v;
	const uint8_t *ek;
	size_t ek_len;
	uint8_t other[64];

	for (int single = 0; single <= 1; single++) {
		answer(s, single, &back);
		assert_int_equal(judge(&back, s->sim.ask, s->sim.ark, true, &v), UIE_OK);
		assert_true(v.simulated);
		assert_int_equal(uie_snp_vtpm_ek(&v.report, s->nonce, back.manifest, back.manifest_len,
						 back.single, &ek, &ek_len, &v.why),
				 UIE_OK);
		assert_int_equal(ek_len, s->ek_len);
		assert_memory_equal(ek, s->ek, ek_len);
		/* A report for another nonce. */
		memcpy(other, s->nonce, sizeof(other));
		other[0] ^= 1;
		assert_int_equal(uie_snp_vtpm_ek(&v.report, other, back.manifest, back.manifest_len,
						 back.single, &ek, &ek_len, &v.why),
				 UIE_E_NONCE);
		assert_non_null(strstr(v.why.msg, "REPORT_DATA"));
		assert_null(ek);
		/* A manifest naming another EK (its last modulus byte). */
		back.manifest[back.manifest_len - 1] ^= 1;
		assert_int_equal(uie_snp_vtpm_ek(&v.report, s->nonce, back.manifest, back.manifest_len,
						 back.single, &ek, &ek_len, &v.why),
				 UIE_E_NONCE);
		uie_snp_tsm_free(&back);
	}
}

/* docs/FORMATS.md 7.8: the vector, a whole answer's round trip, and every refusal. */
static void test_bundle(void **state)
{
	struct svsm *s = *state;
	uint8_t v[64], bad[64], *packed;
	struct uie_snp_tsm t, back;
	struct uie_snp_why why;
	size_t n, len;

	n = tc_hex(bundle_hex, v, sizeof(v));
	assert_int_equal(uie_snp_tsm_unpack(v, n, &t, &why), UIE_OK);
	assert_true(t.single);
	assert_int_equal(t.report_len, 1);
	assert_int_equal(t.report[0], 0xaa);
	assert_int_equal(t.manifest[0], 0xbb);
	assert_int_equal(t.aux_len, 1);
	assert_int_equal(t.aux[0], 0xcc);
	assert_int_equal(uie_snp_tsm_pack_alloc(&t, &packed, &len), UIE_OK);
	assert_int_equal(len, n);
	assert_memory_equal(packed, v, n);
	free(packed);
	uie_snp_tsm_free(&t);
	/* Refused, naming why, with nothing left in t: each header field, and lengths that do not fill it. */
	static const struct {
		size_t off;
		uint8_t val;
		const char *why;
	} bads[] = { { 0, 'X', "not one" },    { 4, 2, "not one" },      { 6, 2, "unknown flags" },
		     { 8, 0, "do not fill" },  { 8, 2, "do not fill" },  { 9, 5, "do not fill" },
		     { 12, 0, "do not fill" }, { 16, 0, "do not fill" }, { 16, 2, "do not fill" } };
	for (size_t i = 0; i < sizeof(bads) / sizeof(bads[0]); i++) {
		memcpy(bad, v, n);
		bad[bads[i].off] = bads[i].val;
		memset(&t, 0x5a, sizeof(t));
		assert_int_not_equal(uie_snp_tsm_unpack(bad, n, &t, &why), UIE_OK);
		assert_non_null(strstr(why.msg, bads[i].why));
		assert_null(t.report);
		assert_null(t.manifest);
	}
	for (size_t k = 0; k < n; k++)
		assert_int_not_equal(uie_snp_tsm_unpack(v, k, &t, &why), UIE_OK);
	/* A whole simulated answer survives the bundle. */
	assert_int_equal(uie_snp_sim_attest(&s->sim, &s->tmpl, s->nonce, s->ek, s->ek_len, false, &t),
			 UIE_OK);
	assert_int_equal(uie_snp_tsm_pack_alloc(&t, &packed, &len), UIE_OK);
	assert_int_equal(uie_snp_tsm_unpack(packed, len, &back, &why), UIE_OK);
	assert_false(back.single);
	assert_int_equal(back.report_len, t.report_len);
	assert_memory_equal(back.report, t.report, t.report_len);
	assert_memory_equal(back.manifest, t.manifest, t.manifest_len);
	assert_memory_equal(back.aux, t.aux, t.aux_len);
	free(packed);
	uie_snp_tsm_free(&back);
	/* An answer without a certificate table leaves none from an earlier one in the directory. */
	{
		struct uie_snp_tsm noaux = t;

		noaux.aux = NULL;
		noaux.aux_len = 0;
		assert_int_equal(uie_snp_tsm_write(s->dir, &t), UIE_OK);
		assert_int_equal(uie_snp_tsm_write(s->dir, &noaux), UIE_OK);
		assert_int_equal(uie_snp_tsm_read(s->dir, &back, &why), UIE_OK);
		assert_null(back.aux);
		uie_snp_tsm_free(&back);
	}
	uie_snp_tsm_free(&t);
}

static void test_simulated_answer_never_amd(void **state)
{
	struct svsm *s = *state;
	struct uie_snp_tsm back;
	struct uie_snp_roots genoa;
	struct uie_snp_verdict v;
	char path[128];
	FILE *f;

	answer(s, true, &back);
	/* the built-in roots (by the VCEK's issuer, SEV-Genoa) */
	judge(&back, NULL, NULL, false, &v);
	assert_int_equal(v.err, UIE_E_SIGNATURE);
	assert_non_null(strstr(v.why.msg, "VCEK: "));
	/* the real Genoa roots given, even "simulated" */
	assert_int_equal(uie_snp_roots_builtin(UIE_SNP_GENOA, &genoa), UIE_OK);
	judge(&back, genoa.ask, genoa.ark, true, &v);
	assert_int_equal(v.err, UIE_E_SIGNATURE);
	assert_false(v.simulated);
	uie_snp_roots_free(&genoa);
	/* the simulated roots without saying so */
	judge(&back, s->sim.ask, s->sim.ark, false, &v);
	assert_int_equal(v.err, UIE_E_KEY);
	uie_snp_tsm_free(&back);
	/* service_guid naming another service */
	snprintf(path, sizeof(path), "%s/service_guid", s->dir);
	assert_non_null(f = fopen(path, "w"));
	fputs("a4453a59-9e1b-4787-a033-1986d6adbe55\n", f);
	fclose(f);
	assert_int_equal(uie_snp_tsm_read(s->dir, &back, &v.why), UIE_E_NOTFOUND);
	assert_non_null(strstr(v.why.msg, "is not the vTPM"));
	assert_null(back.report);
}

/* A manifest naming a key that is no EK (a signing key): refused even when bound. */
static void test_manifest_key_not_ek(void **state)
{
	struct svsm *s = *state;
	struct uie_snp_report rep;
	struct uie_snp_tsm out;
	struct uie_snp_why why;
	const uint8_t *ek;
	uint8_t key[sizeof(s->ek)];
	size_t ek_len;

	memcpy(key, s->ek, s->ek_len);
	key[5] = 0x04; /* objectAttributes 0x000400b2: sign, not restricted decrypt */
	assert_int_equal(uie_snp_sim_attest(&s->sim, &s->tmpl, s->nonce, key, s->ek_len, false, &out),
			 UIE_OK);
	assert_int_equal(uie_snp_report_parse(out.report, out.report_len, &rep, NULL), UIE_OK);
	assert_int_equal(
		uie_snp_vtpm_ek(&rep, s->nonce, out.manifest, out.manifest_len, false, &ek, &ek_len, &why),
		UIE_E_KEY);
	assert_non_null(strstr(why.msg, "not a restricted decryption key"));
	assert_null(ek);
	uie_snp_tsm_free(&out);
}

/* rep as sim attests it, through the configfs-tsm files in s->dir, judged under sim's roots. */
static void attest_judge(struct svsm *s, struct uie_snp_sim *sim, const struct uie_snp_report *rep,
			 struct uie_snp_verdict *v)
{
	struct uie_snp_tsm out;

	assert_int_equal(uie_snp_sim_attest(sim, rep, s->nonce, s->ek, s->ek_len, false, &out), UIE_OK);
	assert_int_equal(uie_snp_tsm_write(s->dir, &out), UIE_OK);
	uie_snp_tsm_free(&out);
	assert_int_equal(uie_snp_tsm_read(s->dir, &out, NULL), UIE_OK);
	judge(&out, sim->ask, sim->ark, true, v);
	uie_snp_tsm_free(&out);
}

/* Turin's TCB layout (an FMC byte first): the fmcSPL extension is required and compared. */
static void test_turin_fmc(void **state)
{
	struct svsm *s = *state;
	struct uie_snp_tcb t = { .fmc = 1, .bootloader = 2, .tee = 3, .snp = 4, .ucode = 5 }, back;
	struct uie_snp_report rep = s->tmpl;
	struct uie_snp_sim turin;
	struct uie_snp_verdict v;

	rep.cpuid_fam_id = 0x1a;
	rep.reported_tcb = uie_snp_tcb_encode(&t, true);
	assert_true(rep.reported_tcb == 0x0500000004030201ull);
	uie_snp_tcb_decode(rep.reported_tcb, true, &back);
	assert_int_equal(back.fmc, 1);
	assert_int_equal(back.snp, 4);
	assert_int_equal(uie_snp_sim_roots(UIE_SNP_TURIN, &turin), UIE_OK);
	assert_int_equal(uie_snp_sim_vcek(&turin, rep.chip_id, rep.reported_tcb, true), UIE_OK);
	attest_judge(s, &turin, &rep, &v);
	assert_int_equal(v.err, UIE_OK);
	/* the same chip under a VCEK for FMC 2 */
	t.fmc = 2;
	assert_int_equal(uie_snp_sim_vcek(&turin, rep.chip_id, uie_snp_tcb_encode(&t, true), true), UIE_OK);
	attest_judge(s, &turin, &rep, &v);
	assert_int_equal(v.err, UIE_E_BINDING);
	assert_non_null(strstr(v.why.msg, "fmcSPL 2 differs from REPORTED_TCB.FMC 1"));
	uie_snp_sim_free(&turin);
}

/* A VLEK: no hwID to match, but the report must name it (SIGNING_KEY 1) and its TCB must fit. */
static void test_vlek(void **state)
{
	struct svsm *s = *state;
	struct uie_snp_evidence ev = { .report_len = UIE_SNP_REPORT_LEN, .simulated_root = true };
	struct uie_snp_policy any = { .check_vmpl = false };
	struct uie_snp_tsm out;
	struct uie_snp_verdict v;

	assert_int_equal(uie_snp_sim_vlek(&s->sim, s->tmpl.reported_tcb, false), UIE_OK);
	assert_int_equal(uie_snp_sim_attest(&s->sim, &s->tmpl, s->nonce, s->ek, s->ek_len, false, &out),
			 UIE_OK);
	ev.report = out.report;
	ev.vcek = s->sim.vcek;
	ev.ask = s->sim.ask;
	ev.ark = s->sim.ark;
	assert_int_equal(uie_snp_verify(&ev, &any, &v), UIE_OK);
	assert_true(v.ext.vlek);
	assert_false(v.ext.has_hwid);
	assert_int_equal(uie_snp_report_signing_key(&v.report), UIE_SNP_KEY_VLEK);
	/* the same report saying VCEK (SIGNING_KEY 0), signed again */
	out.report[0x48] &= (uint8_t) ~(7u << 2);
	assert_int_equal(uie_snp_sim_sign(out.report, s->sim.vcek_key), UIE_OK);
	uie_snp_verify(&ev, &any, &v);
	assert_int_equal(v.err, UIE_E_BINDING);
	assert_non_null(strstr(v.why.msg, "SIGNING_KEY 0, but the certificate is a VLEK"));
	uie_snp_tsm_free(&out);
	/* back to a VCEK for the tests that follow */
	assert_int_equal(uie_snp_sim_vcek(&s->sim, s->tmpl.chip_id, s->tmpl.reported_tcb, false), UIE_OK);
}

TC_MAIN(setup, teardown, cmocka_unit_test(test_guid_and_manifest_vector),
	cmocka_unit_test(test_manifest_refusals), cmocka_unit_test(test_cert_table),
	cmocka_unit_test(test_simulated_svsm_answer), cmocka_unit_test(test_simulated_answer_never_amd),
	cmocka_unit_test(test_bundle), cmocka_unit_test(test_manifest_key_not_ek),
	cmocka_unit_test(test_turin_fmc), cmocka_unit_test(test_vlek))
