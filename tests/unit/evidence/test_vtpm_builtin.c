/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The built-in vTPM: key file handling, PCR 16 extend, quotes that
 * tpm2-tss unmarshals and tpm2_checkquote accepts.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <linux/filter.h>
#include <linux/seccomp.h>

#include <cmocka.h>
#include <openssl/sha.h>
#include <tss2/tss2_mu.h>

#include "ev_helpers.h"
#include "tpm_marshal.h"
#include "vtpm_impl.h"
#include "uie/err.h"
#include "tcommon.h"

static const uint8_t nonce[20] = "fresh-verifier-nonce";

static void hexstr(char *out, const uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		sprintf(out + 2 * i, "%02x", p[i]);
}

static void test_open_specs(void **state)
{
	struct uie_vtpm *t = (void *)1;

	(void)state;
	assert_int_equal(uie_vtpm_open("builtin:", &t), UIE_E_INVAL);
	assert_null(t);
	assert_int_equal(uie_vtpm_open("nonsense", &t), UIE_E_INVAL);
	assert_int_equal(uie_vtpm_open("swtpm:127.0.0.1:0", &t), UIE_E_INVAL);
	assert_int_equal(uie_vtpm_open("swtpm:h,x=1:2321", &t), UIE_E_INVAL);
	assert_int_equal(uie_vtpm_open("swtpm:127.0.0.1:99999", &t), UIE_E_INVAL);
	assert_int_equal(uie_vtpm_open("swtpm:relative-path", &t), UIE_E_INVAL);
	assert_int_equal(uie_vtpm_open("swtpm:/run/tpm.sock,port=1", &t), UIE_E_INVAL);
	assert_int_equal(uie_vtpm_open("device:", &t), UIE_E_INVAL);
	assert_int_equal(uie_vtpm_open("builtin:/nonexistent-dir/ak.pem", &t), UIE_E_IO);
	assert_null(t);
	uie_vtpm_free(NULL);
}

static void test_key_file(void **state)
{
	char *dir = ev_mkdtemp(), *key = ev_path(dir, "ak.pem"), spec[4200];
	struct uie_vtpm *t1, *t2;
	uint8_t *d1;
	size_t l1;
	struct stat st;

	(void)state;
	snprintf(spec, sizeof(spec), "builtin:%s", key);
	assert_int_equal(uie_vtpm_open(spec, &t1), UIE_OK);
	assert_int_equal(stat(key, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0600);
	assert_int_equal(uie_vtpm_open(spec, &t2), UIE_OK);
	assert_int_equal(uie_vtpm_pubkey_alloc(t1, &d1, &l1), UIE_OK);
	assert_true(ev_same_pubkey(t2, d1, l1));
	free(d1);
	uie_vtpm_free(t1);
	uie_vtpm_free(t2);
	/* A key file that is not a P-256 private key is refused. */
	assert_int_equal(ev_write_file(key, "garbage\n", 8), UIE_OK);
	assert_int_equal(uie_vtpm_open(spec, &t1), UIE_E_KEY);
	free(key);
	ev_rmdir(dir);
}

static void test_extend(void **state)
{
	char *dir = ev_mkdtemp(), *key = ev_path(dir, "ak.pem");
	struct uie_vtpm *t;
	uint8_t pcr[32], want[32], cat[64], lrh[32];

	(void)state;
	assert_int_equal(uie_vtpm_builtin_open(key, &t), UIE_OK);
	assert_int_equal(uie_vtpm_read_pcr16(t, pcr), UIE_OK);
	memset(want, 0, 32);
	assert_memory_equal(pcr, want, 32);
	memset(lrh, 0xab, 32);
	assert_int_equal(uie_vtpm_extend(t, lrh), UIE_OK);
	memcpy(cat, want, 32);
	memcpy(cat + 32, lrh, 32);
	SHA256(cat, 64, want);
	assert_int_equal(uie_vtpm_read_pcr16(t, pcr), UIE_OK);
	assert_memory_equal(pcr, want, 32);
	uie_vtpm_free(t);
	free(key);
	ev_rmdir(dir);
}

static int checkquote(const char *dir, const uint8_t *att, size_t al, const uint8_t *sig, size_t sl,
		      const uint8_t *pcr, const uint8_t *der, size_t dl, const uint8_t *n, size_t nl)
{
	char *fa = ev_path(dir, "attest"), *fs = ev_path(dir, "sig"), *fp = ev_path(dir, "pcr16"),
	     *fk = ev_path(dir, "ak.pub.pem"), hex[2 * 64 + 1];
	int rc;

	hexstr(hex, n, nl);
	assert_int_equal(ev_write_file(fa, att, al), UIE_OK);
	assert_int_equal(ev_write_file(fs, sig, sl), UIE_OK);
	assert_int_equal(ev_write_file(fp, pcr, 32), UIE_OK);
	assert_int_equal(ev_write_pubkey_pem(fk, der, dl), UIE_OK);
	char *argv[] = { "tpm2_checkquote", "-u", fk,       "-m", fa,  "-s", fs, "-f", fp, "-l",
			 "sha256:16",       "-g", "sha256", "-q", hex, NULL };
	rc = ev_run(argv, false);
	free(fa);
	free(fs);
	free(fp);
	free(fk);
	return rc;
}

static void test_quote(void **state)
{
	char *dir = ev_mkdtemp(), *key = ev_path(dir, "ak.pem");
	struct uie_vtpm *t;
	uint8_t *att, *sig, *der, pcr[32], lrh[32], dg[32], bad_nonce[20];
	size_t al, sl, dl, off = 0;
	struct uie_tpm_quote q;
	struct uie_tpm_ecdsa_sig s;
	TPMS_ATTEST ta;
	TPMT_SIGNATURE ts;

	(void)state;
	assert_int_equal(uie_vtpm_builtin_open(key, &t), UIE_OK);
	for (int i = 0; i < 5; i++) {
		memset(lrh, i, 32);
		assert_int_equal(uie_vtpm_extend(t, lrh), UIE_OK);
	}
	assert_int_equal(uie_vtpm_quote_alloc(t, nonce, 0, &att, &al, &sig, &sl), UIE_E_INVAL);
	assert_int_equal(uie_vtpm_quote_alloc(t, nonce, sizeof(nonce), &att, &al, &sig, &sl), UIE_OK);
	assert_int_equal(uie_vtpm_read_pcr16(t, pcr), UIE_OK);
	assert_int_equal(uie_vtpm_pubkey_alloc(t, &der, &dl), UIE_OK);

	/* Our parser and tpm2-tss's unmarshaller agree on every field. */
	assert_int_equal(uie_tpm_quote_parse(att, al, &q), UIE_OK);
	assert_int_equal(Tss2_MU_TPMS_ATTEST_Unmarshal(att, al, &off, &ta), TSS2_RC_SUCCESS);
	assert_int_equal(off, al);
	assert_int_equal(ta.magic, TPM2_GENERATED_VALUE);
	assert_int_equal(ta.type, TPM2_ST_ATTEST_QUOTE);
	assert_int_equal(ta.extraData.size, sizeof(nonce));
	assert_memory_equal(ta.extraData.buffer, nonce, sizeof(nonce));
	assert_int_equal(ta.qualifiedSigner.size, 34);
	assert_int_equal(ta.clockInfo.resetCount, q.reset_count);
	assert_int_equal(ta.clockInfo.safe, 1);
	assert_int_equal(ta.attested.quote.pcrSelect.count, 1);
	assert_int_equal(ta.attested.quote.pcrSelect.pcrSelections[0].hash, TPM2_ALG_SHA256);
	assert_int_equal(ta.attested.quote.pcrSelect.pcrSelections[0].pcrSelect[2], 1);
	SHA256(pcr, 32, dg);
	assert_int_equal(ta.attested.quote.pcrDigest.size, 32);
	assert_memory_equal(ta.attested.quote.pcrDigest.buffer, dg, 32);
	off = 0;
	assert_int_equal(Tss2_MU_TPMT_SIGNATURE_Unmarshal(sig, sl, &off, &ts), TSS2_RC_SUCCESS);
	assert_int_equal(off, sl);
	assert_int_equal(ts.sigAlg, TPM2_ALG_ECDSA);
	assert_int_equal(uie_tpm_sig_parse(sig, sl, &s), UIE_OK);

	/* tpm2_checkquote accepts it, and rejects another nonce or PCR value. */
	assert_int_equal(checkquote(dir, att, al, sig, sl, pcr, der, dl, nonce, sizeof(nonce)), 0);
	memcpy(bad_nonce, nonce, sizeof(nonce));
	bad_nonce[0] ^= 1;
	assert_int_not_equal(checkquote(dir, att, al, sig, sl, pcr, der, dl, bad_nonce, sizeof(nonce)), 0);
	pcr[0] ^= 1;
	assert_int_not_equal(checkquote(dir, att, al, sig, sl, pcr, der, dl, nonce, sizeof(nonce)), 0);
	free(att);
	free(sig);
	free(der);
	uie_vtpm_free(t);
	free(key);
	ev_rmdir(dir);
}

/* Opens the builtin vTPM with key, takes one quote and closes it again: the quote's fields. */
static struct uie_tpm_quote quote_after_open(const char *key)
{
	struct uie_tpm_quote q;
	struct uie_vtpm *t;
	uint8_t *att, *sig;
	size_t al, sl;

	assert_int_equal(uie_vtpm_builtin_open(key, &t), UIE_OK);
	assert_int_equal(uie_vtpm_quote_alloc(t, nonce, 8, &att, &al, &sig, &sl), UIE_OK);
	assert_int_equal(uie_tpm_quote_parse(att, al, &q), UIE_OK);
	free(att);
	free(sig);
	uie_vtpm_free(t);
	return q;
}

static void test_clock_counters(void **state)
{
	char *dir = ev_mkdtemp(), *key = ev_path(dir, "ak.pem"), *clk = ev_path(dir, "ak.pem.clock");
	struct uie_vtpm *t;
	struct uie_tpm_quote q1, q2;

	(void)state;
	q1 = quote_after_open(key);
	/* Every open is a TPM Reset: resetCount grows, the clock does not go back. */
	q2 = quote_after_open(key);
	assert_int_equal(q2.reset_count, q1.reset_count + 1);
	assert_int_equal(q2.restart_count, 0);
	assert_true(q2.clock >= q1.clock);
	/* A corrupt clock file refuses to open rather than restart counting. */
	assert_int_equal(ev_write_file(clk, "UIECLK01short", 13), UIE_OK);
	assert_int_equal(uie_vtpm_builtin_open(key, &t), UIE_E_FORMAT);
	free(clk);
	free(key);
	ev_rmdir(dir);
}

/*
 * Quotes keep working in a process that may no longer open, rename, sync
 * or unlink files (the monitor's seccomp sandbox): the clock update uses
 * the descriptor opened before, and the quote stays `safe`.
 */
static void test_quote_in_sandbox(void **state)
{
	char *dir = ev_mkdtemp(), *key = ev_path(dir, "ak.pem");
	struct uie_vtpm *t;
	int st;
	pid_t pid;

	(void)state;
	assert_int_equal(uie_vtpm_builtin_open(key, &t), UIE_OK);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		static const int denied[] = { SYS_open,     SYS_openat,    SYS_rename,
					      SYS_renameat, SYS_renameat2, SYS_unlink,
					      SYS_unlinkat, SYS_fsync,     SYS_fdatasync };
		struct sock_filter prog[2 + 2 * 9];
		struct sock_fprog fp = { .len = 0, .filter = prog };
		struct uie_tpm_quote q;
		uint8_t *att, *sig;
		size_t al, sl;

		prog[fp.len++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
							      offsetof(struct seccomp_data, nr));
		for (int i = 0; i < 9; i++) {
			prog[fp.len++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K,
								      (unsigned)denied[i], 0, 1);
			prog[fp.len++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K,
								      SECCOMP_RET_ERRNO | EPERM);
		}
		prog[fp.len++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
		if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 ||
		    prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &fp) != 0)
			_exit(3);
		if (uie_vtpm_quote_alloc(t, nonce, 8, &att, &al, &sig, &sl) != UIE_OK ||
		    uie_tpm_quote_parse(att, al, &q) != UIE_OK)
			_exit(4);
		_exit(q.safe == 1 ? 0 : 5);
	}
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 0);
	uie_vtpm_free(t);
	free(key);
	ev_rmdir(dir);
}

TC_MAIN(NULL, NULL, cmocka_unit_test(test_open_specs), cmocka_unit_test(test_key_file),
	cmocka_unit_test(test_extend), cmocka_unit_test(test_quote), cmocka_unit_test(test_clock_counters),
	cmocka_unit_test(test_quote_in_sandbox))
