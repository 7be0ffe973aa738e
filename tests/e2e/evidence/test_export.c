/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Export through the real monitor: uie-monitord with the built-in vTPM on
 * a private socket, `uie evidence export` over the bridge (AE, CEL-JSON,
 * public key), tpm2_checkquote on the exported quote with the exported
 * key, `uie verify` on the AE, an incremental export, a stale nonce.
 *
 *   test_ev_export PATH-TO-uie PATH-TO-uie-monitord
 */
#include <poll.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>
#include <jansson.h>

#include "ev_helpers.h"
#include "tcommon.h"
#include "uie/err.h"

static const char *uie, *monitord;

struct fx {
	char *dir, *sock, *ak, *ae, *ae2, *cel, *state;
	pid_t mon;
};

static int setup(void **state)
{
	struct fx *f = calloc(1, sizeof(*f));
	char vtpm[4200], ready[8] = { 0 };
	struct pollfd pfd;
	int pp[2];

	if (!f || !(f->dir = ev_mkdtemp()) || pipe(pp) != 0)
		return -1;
	f->sock = ev_path(f->dir, "monitor.sock");
	f->ak = ev_path(f->dir, "ak.pub.pem");
	f->ae = ev_path(f->dir, "evidence.ae");
	f->ae2 = ev_path(f->dir, "evidence2.ae");
	f->cel = ev_path(f->dir, "log.cel.json");
	f->state = ev_path(f->dir, "state.json");
	snprintf(vtpm, sizeof(vtpm), "builtin:%s/ak.pem", f->dir);
	f->mon = fork();
	if (f->mon < 0)
		return -1;
	if (f->mon == 0) {
		char *argv[] = { (char *)monitord,
				 "--socket",
				 f->sock,
				 "--vtpm",
				 vtpm,
				 "--state-dir",
				 "none",
				 "--foreground",
				 "--ready-fd",
				 "3",
				 geteuid() == 0 ? "--user" : NULL,
				 "root",
				 NULL };

		close(pp[0]);
		if (dup2(pp[1], 3) != 3)
			_exit(126);
		execv(argv[0], argv);
		_exit(127);
	}
	close(pp[1]);
	pfd = (struct pollfd){ .fd = pp[0], .events = POLLIN };
	if (poll(&pfd, 1, 20000) != 1 || read(pp[0], ready, 6) != 6 || strcmp(ready, "READY\n") != 0) {
		fprintf(stderr, "uie-monitord did not become ready\n");
		close(pp[0]);
		return -1;
	}
	close(pp[0]);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fx *f = *state;

	if (f->mon > 0) {
		kill(f->mon, SIGTERM);
		waitpid(f->mon, NULL, 0);
	}
	free(f->sock);
	free(f->ak);
	free(f->ae);
	free(f->ae2);
	free(f->cel);
	free(f->state);
	ev_rmdir(f->dir);
	free(f);
	return 0;
}

static int export(struct fx *f, const char *nonce, const char *since, const char *out, bool extras)
{
	char *argv[16] = { (char *)uie,   "evidence", "export",      "--socket", f->sock,    "--nonce",
			   (char *)nonce, "--since",  (char *)since, "-o",       (char *)out };
	int n = 11;

	if (extras) {
		argv[n++] = "--cel";
		argv[n++] = f->cel;
		argv[n++] = "--pubkey-out";
		argv[n++] = f->ak;
	}
	argv[n] = NULL;
	return ev_run(argv, false);
}

static int verify(struct fx *f, const char *ae, const char *nonce)
{
	char *argv[] = { (char *)uie, "verify", (char *)ae, "--nonce", (char *)nonce,
			 "--ak-pub",  f->ak,    "--state",  f->state,  NULL };

	return ev_run(argv, false);
}

static void test_export_checkquote_verify(void **state)
{
	struct fx *f = *state;
	const char *n1 = "6e6f6e63652d6f6e652d666f722d7468652d6d6f6e69746f72", *n2 = "0a0b0c0d";
	char *fa = ev_path(f->dir, "attest"), *fs = ev_path(f->dir, "sig"), *fp = ev_path(f->dir, "pcr16");
	struct uie_ae a;
	uint8_t *ae;
	size_t len;
	json_error_t jerr;
	json_t *cel;

	assert_int_equal(export(f, n1, "0", f->ae, true), 0);
	assert_non_null(ae = ev_read_file(f->ae, &len));
	assert_int_equal(uie_ae_parse(ae, len, &a), UIE_OK);
	assert_true(a.nrecords >= 1); /* at least MONITOR_START */
	assert_int_equal(ev_write_file(fa, a.attest, a.attest_len), UIE_OK);
	assert_int_equal(ev_write_file(fs, a.sig, a.sig_len), UIE_OK);
	assert_int_equal(ev_write_file(fp, a.vpcr, 32), UIE_OK);
	char *cq[] = { "tpm2_checkquote", "-u", f->ak,    "-m", fa,         "-s", fs, "-f", fp, "-l",
		       "sha256:16",       "-g", "sha256", "-q", (char *)n1, NULL };
	assert_int_equal(ev_run(cq, false), 0);
	assert_int_equal(verify(f, f->ae, n1), 0);

	assert_non_null(cel = json_load_file(f->cel, 0, &jerr));
	assert_int_equal(json_array_size(cel), a.nrecords);
	assert_int_equal(json_integer_value(json_object_get(json_array_get(cel, 0), "recnum")), 0);
	json_decref(cel);

	/* A poll for what is new since the last export continues the verified prefix. */
	char since[24];
	snprintf(since, sizeof(since), "%llu", (unsigned long long)(a.first_seq + a.nrecords));
	assert_int_equal(export(f, n2, since, f->ae2, false), 0);
	assert_int_equal(verify(f, f->ae2, n2), 0);
	/* The first AE offered again against the new nonce is stale. */
	assert_int_equal(verify(f, f->ae, n2), UIE_V_NONCE);
	free(ae);
	free(fa);
	free(fs);
	free(fp);
}

TC_MAIN_ARGS("PATH-TO-uie PATH-TO-uie-monitord", (&uie, &monitord), NULL, NULL,
	     cmocka_unit_test_setup_teardown(test_export_checkquote_verify, setup, teardown))
