/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The tpm2-tss backend against a real swtpm started here: a log generated
 * by the core is extended into PCR 16, quoted, accepted by tpm2_checkquote
 * and by the verifier, and a stale quote is refused.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "ev_helpers.h"
#include "uie/err.h"
#include "tcommon.h"

struct fx {
	char *dir;
	struct ev_swtpm sw;
	char spec[4200];
};

/*
 * How setup reaches swtpm, cmocka's initial state for it: the private unix
 * socket a deployment uses (docs/THREAT-MODEL-evidence.md), or TCP.
 */
static bool over_unix = true, over_tcp = false;

static int setup(void **state)
{
	bool unix_socket = *(bool *)*state;
	struct fx *f = calloc(1, sizeof(*f));

	if (!f || !(f->dir = ev_mkdtemp()) || ev_swtpm_start(f->dir, unix_socket, &f->sw) != UIE_OK) {
		fprintf(stderr, "cannot start swtpm\n");
		return -1;
	}
	if (unix_socket)
		snprintf(f->spec, sizeof(f->spec), "swtpm:%s", f->sw.path);
	else
		snprintf(f->spec, sizeof(f->spec), "swtpm:127.0.0.1:%d", f->sw.port);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fx *f = *state;

	ev_swtpm_stop(&f->sw);
	ev_rmdir(f->dir);
	free(f);
	return 0;
}

static void hexstr(char *out, const uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		sprintf(out + 2 * i, "%02x", p[i]);
}

static void test_quote_checkquote_verify(void **state)
{
	struct fx *f = *state;
	static const uint8_t nonce[32] = "swtpm-e2e-nonce-0123456789abcdef";
	struct uie_vtpm *t;
	struct ev_log log;
	struct uie_ae a;
	struct uie_verify_input in;
	struct uie_verify_report rep;
	uint8_t *ae, *der, pcr[32];
	size_t len, dl;
	char *fa = ev_path(f->dir, "attest"), *fs = ev_path(f->dir, "sig"), *fp = ev_path(f->dir, "pcr16"),
	     *fk = ev_path(f->dir, "ak.pub.pem"), hex[65];

	assert_int_equal(uie_vtpm_open(f->spec, &t), UIE_OK);
	assert_int_equal(ev_log_init(&log, t), UIE_OK);
	assert_int_equal(ev_log_scenario(&log), UIE_OK);
	/* The TPM's PCR 16 follows the core's mirror record by record. */
	assert_int_equal(uie_vtpm_read_pcr16(t, pcr), UIE_OK);
	assert_memory_equal(pcr, log.core.vpcr, 32);
	assert_int_equal(ev_export(&log, t, nonce, sizeof(nonce), 0, &ae, &len), UIE_OK);
	assert_int_equal(uie_vtpm_pubkey_alloc(t, &der, &dl), UIE_OK);

	assert_int_equal(uie_ae_parse(ae, len, &a), UIE_OK);
	assert_int_equal(ev_write_file(fa, a.attest, a.attest_len), UIE_OK);
	assert_int_equal(ev_write_file(fs, a.sig, a.sig_len), UIE_OK);
	assert_int_equal(ev_write_file(fp, a.vpcr, 32), UIE_OK);
	assert_int_equal(ev_write_pubkey_pem(fk, der, dl), UIE_OK);
	hexstr(hex, nonce, sizeof(nonce));
	char *argv[] = { "tpm2_checkquote", "-u", fk,       "-m", fa,  "-s", fs, "-f", fp, "-l",
			 "sha256:16",       "-g", "sha256", "-q", hex, NULL };
	assert_int_equal(ev_run(argv, false), 0);

	memset(&in, 0, sizeof(in));
	in.ae = ae;
	in.ae_len = len;
	in.nonce = nonce;
	in.nonce_len = sizeof(nonce);
	in.ak_der = der;
	in.ak_der_len = dl;
	in.pols = &log.pol;
	in.npols = 1;
	assert_int_equal(uie_verify_ae(&log.hp.pl, &in, &rep), UIE_V_OK);
	assert_int_equal(rep.decisions_checked, 3);
	/* A later verifier with another nonce does not take this quote. */
	in.nonce = (const uint8_t *)"another-nonce";
	in.nonce_len = 13;
	assert_int_equal(uie_verify_ae(&log.hp.pl, &in, &rep), UIE_V_NONCE);
	free(ae);
	free(der);
	ev_log_fini(&log);
	uie_vtpm_free(t);
	free(fa);
	free(fs);
	free(fp);
	free(fk);
}

/* The same key comes back at every open, and PCR 16 starts over at zero. */
static void test_reopen(void **state)
{
	struct fx *f = *state;
	struct uie_vtpm *t;
	uint8_t *d1, pcr[32], zero[32] = { 0 }, lrh[32];
	size_t l1;

	assert_int_equal(uie_vtpm_open(f->spec, &t), UIE_OK);
	memset(lrh, 7, 32);
	assert_int_equal(uie_vtpm_extend(t, lrh), UIE_OK);
	assert_int_equal(uie_vtpm_read_pcr16(t, pcr), UIE_OK);
	assert_memory_not_equal(pcr, zero, 32);
	assert_int_equal(uie_vtpm_pubkey_alloc(t, &d1, &l1), UIE_OK);
	uie_vtpm_free(t);
	assert_int_equal(uie_vtpm_open(f->spec, &t), UIE_OK);
	assert_int_equal(uie_vtpm_read_pcr16(t, pcr), UIE_OK);
	assert_memory_equal(pcr, zero, 32);
	assert_true(ev_same_pubkey(t, d1, l1));
	free(d1);
	uie_vtpm_free(t);
}

static void test_unreachable(void **state)
{
	struct uie_vtpm *t = NULL;

	(void)state;
	/* Port 1 on loopback: nothing listens, the backend reports a TPM error. */
	assert_int_equal(uie_vtpm_open("swtpm:127.0.0.1:1", &t), UIE_E_TPM);
	assert_null(t);
}

TC_MAIN(NULL, NULL,
	cmocka_unit_test_prestate_setup_teardown(test_quote_checkquote_verify, setup, teardown, &over_tcp),
	cmocka_unit_test_prestate_setup_teardown(test_quote_checkquote_verify, setup, teardown, &over_unix),
	cmocka_unit_test_prestate_setup_teardown(test_reopen, setup, teardown, &over_unix),
	cmocka_unit_test(test_unreachable))
