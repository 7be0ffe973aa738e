/* SPDX-License-Identifier: Apache-2.0 */
/*
 * lib/host/enrol.c without a database: the evidence of an enrolment by
 * attestation judged step by step (a built-in vTPM answering as an SVSM
 * would, with a report signed by a simulated chain), each refusal naming
 * its step, and the challenge opened only by the TPM holding both keys.
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

#include "enrol.h"
#include "snp_sim.h"
#include "tcommon.h"
#include "uie/err.h"
#include "vtpm.h"

struct tpm {
	struct uie_vtpm *t;
	uint8_t *ek, *ak;
	size_t ek_len, ak_len;
};

static char dir[] = "/tmp/uie-enrol-check.XXXXXX";
static struct uie_snp_sim sim;
static struct tpm one, two;
static uint8_t meas[UIE_SNP_MEASUREMENT_LEN];

static void tpm_open(struct tpm *t, const char *name)
{
	char spec[128];

	snprintf(spec, sizeof(spec), "builtin:%s/%s.key", dir, name);
	assert_int_equal(uie_vtpm_open(spec, &t->t), UIE_OK);
	assert_int_equal(uie_vtpm_ek_public_alloc(t->t, &t->ek, &t->ek_len), UIE_OK);
	assert_int_equal(uie_vtpm_ak_public_alloc(t->t, &t->ak, &t->ak_len), UIE_OK);
}

static void tpm_close(struct tpm *t)
{
	uie_vtpm_free(t->t);
	free(t->ek);
	free(t->ak);
}

/* What an SVSM over ek_tpm's EK answers for nonce. */
static void svsm(const struct tpm *ek_tpm, const uint8_t nonce[UIE_SNP_NONCE_LEN], struct uie_snp_tsm *out)
{
	struct uie_snp_report r;

	assert_int_equal(uie_snp_sim_template(&sim, meas, &r), UIE_OK);
	assert_int_equal(uie_snp_sim_attest(&sim, &r, nonce, ek_tpm->ek + 2, ek_tpm->ek_len - 2, false, out),
			 UIE_OK);
}

static int check(const struct uie_snp_tsm *tsm, const struct tpm *ek, const struct tpm *ak,
		 const uint8_t nonce[UIE_SNP_NONCE_LEN], bool sim_roots, struct uie_enrol_verdict *v)
{
	const struct uie_snp_policy pol = { .check_vmpl = true, .measurements = &meas, .nmeasurements = 1 };
	const struct uie_enrol_trust t = { .ask = sim_roots ? sim.ask : NULL,
					   .ark = sim_roots ? sim.ark : NULL,
					   .simulated = sim_roots,
					   .pol = &pol };
	const struct uie_enrol_evidence ev = { .report = tsm->report,
					       .report_len = tsm->report_len,
					       .aux = tsm->aux,
					       .aux_len = tsm->aux_len,
					       .manifest = tsm->manifest,
					       .manifest_len = tsm->manifest_len,
					       .ek_pub = ek->ek,
					       .ek_len = ek->ek_len,
					       .ak_pub = ak->ak,
					       .ak_len = ak->ak_len };

	return uie_enrol_check_evidence(&ev, nonce, &t, v);
}

static void refused(int err, const char *step, struct uie_enrol_verdict *v)
{
	if (v->err != err || strncmp(v->why, step, strlen(step)) != 0)
		fail_msg("want %s \"%s...\", got %s \"%s\"", uie_err_str(err), step, uie_err_str(v->err),
			 v->why);
	assert_null(v->ak_der);
	uie_enrol_verdict_free(v);
}

static void test_steps(void **state)
{
	uint8_t nonce[UIE_SNP_NONCE_LEN], other[UIE_SNP_NONCE_LEN];
	struct uie_enrol_verdict v;
	struct uie_snp_tsm tsm, theirs;

	(void)state;
	RAND_bytes(nonce, sizeof(nonce));
	RAND_bytes(other, sizeof(other));
	svsm(&one, nonce, &tsm);
	assert_int_equal(check(&tsm, &one, &one, nonce, true, &v), UIE_OK);
	assert_string_equal(v.why, "ok (simulated root)");
	assert_true(v.snp.simulated);
	assert_memory_equal(v.snp.report.measurement, meas, sizeof(meas));
	assert_non_null(v.ak_der);
	uie_enrol_verdict_free(&v);
	/* Each step's refusal. */
	check(&tsm, &one, &one, nonce, false, &v);
	refused(UIE_E_SIGNATURE, "report: VCEK: ", &v); /* AMD's roots did not sign the simulated VCEK */
	check(&tsm, &one, &one, other, true, &v);
	refused(UIE_E_NONCE, "binding: REPORT_DATA", &v);
	check(&tsm, &two, &one, nonce, true, &v);
	refused(UIE_E_KEY, "manifest: EK differs", &v);
	svsm(&two, nonce, &theirs);
	check(&theirs, &one, &one, nonce, true, &v);
	refused(UIE_E_KEY, "manifest: EK differs", &v);
	uie_snp_tsm_free(&theirs);
	{
		struct tpm ek_as_ak = one;

		ek_as_ak.ak = one.ek; /* a decryption key is no AK */
		ek_as_ak.ak_len = one.ek_len;
		check(&tsm, &one, &ek_as_ak, nonce, true, &v);
		refused(UIE_E_KEY, "AK: ", &v);
	}
	tsm.report[0x50] ^= 1; /* a byte of REPORT_DATA: the signature no longer holds */
	check(&tsm, &one, &one, nonce, true, &v);
	refused(UIE_E_SIGNATURE, "report: SIMULATED root, ", &v);
	tsm.report[0x50] ^= 1;
	tsm.aux_len = 0;
	check(&tsm, &one, &one, nonce, true, &v);
	refused(UIE_E_NOTFOUND, "report: no certificate table", &v);
	uie_snp_tsm_free(&tsm);
}

/* Only the TPM holding both the EK and the AK recovers the secret. */
static void test_challenge(void **state)
{
	uint8_t secret[UIE_ENROL_SECRET_LEN], got[UIE_CRED_MAX], *cred = NULL;
	const uint8_t *blob, *sec;
	size_t cred_len = 0, bl, sl, n = 0;
	const char *why = "";

	(void)state;
	assert_int_equal(uie_enrol_challenge_alloc(one.ek, one.ek_len, one.ak, one.ak_len, secret, &cred,
						   &cred_len, &why),
			 UIE_OK);
	assert_int_equal(uie_credential_file_parse(cred, cred_len, &blob, &bl, &sec, &sl), UIE_OK);
	assert_int_equal(uie_vtpm_activate_credential(one.t, blob, bl, sec, sl, got, &n), UIE_OK);
	assert_int_equal(n, sizeof(secret));
	assert_memory_equal(got, secret, n);
	assert_int_equal(uie_vtpm_activate_credential(two.t, blob, bl, sec, sl, got, &n), UIE_E_KEY);
	free(cred);
	/* Made for another TPM's AK: the EK's TPM cannot open it under its own AK's name. */
	assert_int_equal(uie_enrol_challenge_alloc(one.ek, one.ek_len, two.ak, two.ak_len, secret, &cred,
						   &cred_len, &why),
			 UIE_OK);
	assert_int_equal(uie_credential_file_parse(cred, cred_len, &blob, &bl, &sec, &sl), UIE_OK);
	assert_int_equal(uie_vtpm_activate_credential(one.t, blob, bl, sec, sl, got, &n), UIE_E_SIGNATURE);
	free(cred);
	/* No challenge to a key that is no EK. */
	assert_int_not_equal(uie_enrol_challenge_alloc(one.ak, one.ak_len, one.ak, one.ak_len, secret, &cred,
						       &cred_len, &why),
			     UIE_OK);
	assert_null(cred);
	assert_true(why[0]);
}

static int setup(void **state)
{
	uint8_t chip[UIE_SNP_CHIP_ID_LEN];

	(void)state;
	tc_mkdtemp(dir);
	RAND_bytes(chip, sizeof(chip));
	RAND_bytes(meas, sizeof(meas));
	if (uie_snp_sim_roots(UIE_SNP_MILAN, &sim) != UIE_OK ||
	    uie_snp_sim_vcek(&sim, chip, 0x1500000000000403ull, false) != UIE_OK)
		return -1;
	tpm_open(&one, "one");
	tpm_open(&two, "two");
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	tpm_close(&one);
	tpm_close(&two);
	uie_snp_sim_free(&sim);
	tc_rmtree(dir);
	return 0;
}

TC_MAIN(setup, teardown, cmocka_unit_test(test_steps), cmocka_unit_test(test_challenge))
