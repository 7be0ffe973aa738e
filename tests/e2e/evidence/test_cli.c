/* SPDX-License-Identifier: Apache-2.0 */
/*
 * `uie verify` as a program: a log from the real core with a policy
 * package made by `uie key gen`/`policy compile`/`policy sign` and
 * installed through uie_package_install, quoted by the built-in vTPM;
 * the command accepts it and answers each tampering with its exit code.
 *
 *   test_ev_cli PATH-TO-uie
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

#include "ev_helpers.h"
#include "hex.h"
#include "tcommon.h"
#include "uie/err.h"
#include "uie/package.h"
#include "vtpm_impl.h"

static const char *uie;
static const uint8_t nonce[24] = "cli-verifier-nonce-00001";

struct fx {
	char *dir;
	struct uie_vtpm *tpm;
	struct ev_log log;
	char nonce_hex[49];
	char *ae, *ak, *ref, *pkg, *pkg2, *state, *out;
};

static char *p(struct fx *f, const char *name)
{
	return ev_path(f->dir, name);
}

static int pcr_at(void *ctx, uint64_t seq, uint8_t pcr[UIE_PCR_LEN])
{
	return ev_pcr_at(ctx, seq, pcr);
}

/* `uie policy compile` + `uie policy sign` of a policy allowing the given objects. */
static void make_package(struct fx *f, const char *letters, const char *out, uint64_t bind_seq)
{
	char *txt = p(f, "policy.txt"), *table = p(f, "table"), *priv = p(f, "priv.pem"), seq[24], pcrhex[65],
	     dhex[65];
	uint8_t pcr[32];
	struct uie_digest d;
	FILE *fp = fopen(txt, "w");
	static const char *const ops[] = { "EXECVE role=MAIN", "EXECVE role=INTERP", "MMAP_EXEC role=DSO" };

	assert_non_null(fp);
	fprintf(fp, "policy_name=cli policy_version=1.0.0\nmode=ENFORCE\nDEFAULT action=DENY\n");
	for (const char *c = letters; *c; c++) {
		ev_digest(*c, &d);
		uie_hex_encode(dhex, d.bytes, 32);
		fprintf(fp, "op=%s digest=sha256:%s action=ALLOW\n", ops[(*c - 'A') % 3], dhex);
	}
	fclose(fp);
	char *compile[] = { (char *)uie, "policy", "compile", txt, "-o", table, NULL };
	assert_int_equal(ev_run(compile, false), 0);
	assert_int_equal(ev_pcr_at(&f->log, bind_seq, pcr), UIE_OK);
	uie_hex_encode(pcrhex, pcr, 32);
	snprintf(seq, sizeof(seq), "%llu", (unsigned long long)bind_seq);
	char *sign[] = { (char *)uie, "policy",     "sign", "--key", priv, "--epoch",   "1", "--bind-seq",
			 seq,         "--bind-pcr", pcrhex, table,   "-o", (char *)out, NULL };
	assert_int_equal(ev_run(sign, false), 0);
	free(txt);
	free(table);
	free(priv);
}

static int setup(void **state)
{
	struct fx *f = calloc(1, sizeof(*f));
	char *key = NULL, *priv, *pub, *m;
	uint8_t *pkg, *ae, *der;
	size_t len, dl;

	if (!f || !(f->dir = ev_mkdtemp()))
		return -1;
	key = p(f, "ak.pem");
	priv = p(f, "priv.pem");
	pub = p(f, "pub.pem");
	f->ae = p(f, "evidence.ae");
	f->ak = p(f, "ak.pub.pem");
	f->ref = p(f, "reference.manifest");
	f->pkg = p(f, "policy.pkg");
	f->pkg2 = p(f, "other.pkg");
	f->state = p(f, "verifier-state.json");
	f->out = p(f, "stdout");
	uie_hex_encode(f->nonce_hex, nonce, sizeof(nonce));
	char *keygen[] = { (char *)uie, "key", "gen", "-o", priv, "--pub", pub, NULL };
	if (ev_run(keygen, false) != 0 || uie_vtpm_builtin_open(key, &f->tpm) != UIE_OK ||
	    ev_log_init(&f->log, f->tpm) != UIE_OK ||
	    uie_host_platform_add_key_file(&f->log.hp, pub, NULL) != UIE_OK ||
	    ev_log_decide(&f->log, UIE_EV_EXECVE, UIE_ROLE_MAIN, 'A') != UIE_OK ||
	    ev_log_decide(&f->log, UIE_EV_EXECVE, UIE_ROLE_INTERP, 'B') != UIE_OK)
		return -1;
	/* The TTP binds the package to the bootstrap log it validated: 3 records. */
	make_package(f, "ABC", f->pkg, 3);
	make_package(f, "AB", f->pkg2, 3);
	if (!(pkg = ev_read_file(f->pkg, &len)) ||
	    uie_package_install(&f->log.core, pkg, len, pcr_at, &f->log) != UIE_OK ||
	    ev_log_decide(&f->log, UIE_EV_EXECVE, UIE_ROLE_MAIN, 'A') != UIE_OK ||
	    ev_log_decide(&f->log, UIE_EV_MMAP_EXEC, UIE_ROLE_DSO, 'C') != UIE_OK ||
	    ev_log_decide(&f->log, UIE_EV_MMAP_EXEC, UIE_ROLE_DSO, 'D') != UIE_OK ||
	    ev_log_decide(&f->log, UIE_EV_MPROTECT_EXEC, UIE_ROLE_ANON, 'x') != UIE_OK)
		return -1;
	f->log.table = pkg; /* must outlive the installation; freed with the log */
	if (ev_export(&f->log, f->tpm, nonce, sizeof(nonce), 0, &ae, &len) != UIE_OK ||
	    ev_write_file(f->ae, ae, len) != UIE_OK || uie_vtpm_pubkey_alloc(f->tpm, &der, &dl) != UIE_OK ||
	    ev_write_pubkey_pem(f->ak, der, dl) != UIE_OK || !(m = ev_manifest("ABC")) ||
	    ev_write_file(f->ref, m, strlen(m)) != UIE_OK)
		return -1;
	free(m);
	free(ae);
	free(der);
	free(key);
	free(priv);
	free(pub);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fx *f = *state;

	ev_log_fini(&f->log);
	uie_vtpm_free(f->tpm);
	free(f->ae);
	free(f->ak);
	free(f->ref);
	free(f->pkg);
	free(f->pkg2);
	free(f->state);
	free(f->out);
	ev_rmdir(f->dir);
	free(f);
	return 0;
}

/* uie verify AE --nonce N --ak-pub AK --reference REF --policy PKG [extra...] */
static int verify(struct fx *f, const char *ae, const char *nonce_hex, const char *ref, const char *pkg,
		  const char *extra1, const char *extra2)
{
	char *argv[16] = {
		(char *)uie, "verify", (char *)ae, "--nonce", (char *)nonce_hex, "--ak-pub", f->ak
	};
	int n = 7;

	if (ref) {
		argv[n++] = "--reference";
		argv[n++] = (char *)ref;
	}
	if (pkg) {
		argv[n++] = "--policy";
		argv[n++] = (char *)pkg;
	}
	if (extra1)
		argv[n++] = (char *)extra1;
	if (extra2)
		argv[n++] = (char *)extra2;
	argv[n] = NULL;
	return ev_run_out(argv, f->out);
}

static void test_accept_json_state(void **state)
{
	struct fx *f = *state;
	json_error_t jerr;
	json_t *j;

	assert_int_equal(verify(f, f->ae, f->nonce_hex, f->ref, f->pkg, "--json", NULL), 0);
	assert_non_null(j = json_load_file(f->out, 0, &jerr));
	assert_true(json_is_true(json_object_get(j, "accepted")));
	assert_int_equal(json_integer_value(json_object_get(j, "decisions_checked")), 3);
	assert_int_equal(json_integer_value(json_object_get(j, "nrecords")), f->log.n);
	json_decref(j);
	/* The state file is written on success and the same evidence passes again. */
	assert_int_equal(verify(f, f->ae, f->nonce_hex, f->ref, f->pkg, "--state", f->state), 0);
	assert_int_equal(verify(f, f->ae, f->nonce_hex, f->ref, f->pkg, "--state", f->state), 0);
}

static void test_exit_codes(void **state)
{
	struct fx *f = *state;
	char *bad = p(f, "tampered.ae"), *ref2 = p(f, "ab.manifest"), *m = ev_manifest("AB"),
	     *garbage = p(f, "garbage.ae");
	uint8_t *ae;
	size_t len;
	struct uie_ae a;

	/* A record modified in transit: replay. */
	assert_non_null(ae = ev_read_file(f->ae, &len));
	assert_int_equal(uie_ae_parse(ae, len, &a), UIE_OK);
	ae[a.records - ae + 5 * UIE_LOG_RECORD_LEN + UIE_LOG_EM_LEN + 4] ^= 1;
	assert_int_equal(ev_write_file(bad, ae, len), UIE_OK);
	assert_int_equal(verify(f, bad, f->nonce_hex, f->ref, f->pkg, NULL, NULL), UIE_V_REPLAY);
	/* Another nonce: stale evidence. */
	assert_int_equal(verify(f, f->ae, "00112233", f->ref, f->pkg, NULL, NULL), UIE_V_NONCE);
	/* C is not a reference value. */
	assert_int_equal(ev_write_file(ref2, m, strlen(m)), UIE_OK);
	assert_int_equal(verify(f, f->ae, f->nonce_hex, ref2, f->pkg, NULL, NULL), UIE_V_REFERENCE);
	/* A package other than the one the log installed: its decisions differ. */
	assert_int_equal(verify(f, f->ae, f->nonce_hex, f->ref, f->pkg2, NULL, NULL), UIE_V_POLICY);
	/* Garbage, a missing file, bad usage. */
	assert_int_equal(ev_write_file(garbage, "UIEA", 4), UIE_OK);
	assert_int_equal(verify(f, garbage, f->nonce_hex, f->ref, f->pkg, NULL, NULL), UIE_V_PARSE);
	assert_int_equal(verify(f, "/nonexistent.ae", f->nonce_hex, NULL, NULL, NULL, NULL), 1);
	assert_int_equal(verify(f, f->ae, "xyz", NULL, NULL, NULL, NULL), 2);
	char *noargs[] = { (char *)uie, "verify", f->ae, NULL };
	assert_int_equal(ev_run(noargs, false), 2);
	/* No monitor behind the socket: export fails cleanly. */
	char *exp[] = { (char *)uie, "evidence", "export", "--socket", "/nonexistent.sock", "-o", bad, NULL };
	assert_int_equal(ev_run(exp, false), 1);
	free(ae);
	free(bad);
	free(ref2);
	free(m);
	free(garbage);
}

static void test_state_clock(void **state)
{
	struct fx *f = *state;
	struct uie_verify_state st;

	assert_int_equal(verify(f, f->ae, f->nonce_hex, f->ref, f->pkg, "--state", f->state), 0);
	assert_int_equal(uie_verify_state_load(f->state, &st), UIE_OK);
	assert_true(st.valid);
	assert_int_equal(st.next_seq, f->log.n);
	/* A verifier that saw a later TPM boot refuses evidence from an earlier one. */
	st.reset_count++;
	assert_int_equal(uie_verify_state_save(f->state, &st), UIE_OK);
	assert_int_equal(verify(f, f->ae, f->nonce_hex, f->ref, f->pkg, "--state", f->state), UIE_V_CLOCK);
}

TC_MAIN_ARGS("PATH-TO-uie", (&uie), NULL, NULL,
	     cmocka_unit_test_setup_teardown(test_accept_json_state, setup, teardown),
	     cmocka_unit_test_setup_teardown(test_exit_codes, setup, teardown),
	     cmocka_unit_test_setup_teardown(test_state_clock, setup, teardown))
