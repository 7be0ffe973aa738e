/* SPDX-License-Identifier: Apache-2.0 */
/*
 * `uie snp sim-attest --chain DIR --nonce HEX --ek FILE -o OUT`: what an
 * SVSM with a vTPM whose EK is FILE (a TPMT_PUBLIC) answers a guest
 * asking with the nonce, as configfs-tsm's directory OUT, signed by the
 * simulated chain's VCEK (uie-snp-sim-attest(1)).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "uie/err.h"

#include "cmd.h"
#include "fileio.h"
#include "hex.h"
#include "opts.h"
#include "simfiles.h"
#include "snp_cmds.h"

#define PROG "uie snp sim-attest"

static void usage(FILE *f)
{
	fprintf(f, "usage: uie snp sim-attest --chain DIR --nonce HEX128 --ek FILE [--single]\n"
		   "         [--measurement HEX96] -o OUT\n"
		   "  writes OUT/{outblob,manifestblob,auxblob,service_guid} as a simulated SVSM answers\n");
}

/* The report's fields that the VCEK fixes (CHIP_ID, REPORTED_TCB) and the usual rest. */
static int template(const struct uie_snp_sim *s, const char *meas, struct uie_snp_report *r)
{
	bool turin = s->product == UIE_SNP_TURIN;
	struct uie_snp_cert_ext e;
	int rc;

	memset(r, 0, sizeof(*r));
	if ((rc = uie_snp_cert_ext_parse(s->vcek, &e, NULL)) != UIE_OK || !e.has_hwid)
		return rc != UIE_OK ? rc : UIE_E_FORMAT;
	r->version = 3;
	r->sig_algo = UIE_SNP_SIG_ALGO_ECDSA_P384_SHA384;
	r->policy = 0x30000; /* SMT allowed, the reserved bit 17 set; no debug, no migration agent */
	r->cpuid_fam_id = turin ? 0x1a : 0x19;
	memcpy(r->chip_id, e.hwid, sizeof(r->chip_id));
	r->reported_tcb = r->current_tcb = r->committed_tcb = r->launch_tcb = uie_snp_tcb_encode(&e.tcb,
												 turin);
	r->current_major = r->committed_major = 1;
	r->current_minor = r->committed_minor = 55;
	if (meas && uie_hex_decode(meas, strlen(meas), r->measurement, sizeof(r->measurement)) != UIE_OK)
		return UIE_E_FORMAT;
	return UIE_OK;
}

int uie_cmd_snp_sim_attest(int argc, char **argv)
{
	const char *chain = NULL, *nonce_hex = NULL, *ek_path = NULL, *out = NULL, *meas = NULL;
	bool single = false;
	const struct uie_opt t[] = {
		UIE_OPT_STRING("chain", 0, &chain),
		UIE_OPT_STRING("nonce", 0, &nonce_hex),
		UIE_OPT_STRING("ek", 0, &ek_path),
		UIE_OPT_FLAG("single", 0, UIE_OPTK_SET, &single),
		UIE_OPT_STRING("measurement", 0, &meas),
		UIE_OPT_STRING("output", 'o', &out),
		UIE_OPT_HELP,
		UIE_OPT_END,
	};
	const struct uie_opts spec = { .prog = PROG, .opt = t, .usage = usage };
	uint8_t nonce[UIE_SNP_NONCE_LEN], *ek = NULL;
	struct uie_snp_report tmpl;
	struct uie_snp_sim s;
	struct uie_snp_tsm tsm;
	size_t ek_len;
	int r;

	if ((r = uie_opts_parse(&spec, argc, argv)) != UIE_OPTS_GO)
		return r;
	if (!chain || !nonce_hex || !ek_path || !out ||
	    uie_hex_decode(nonce_hex, strlen(nonce_hex), nonce, sizeof(nonce)) != UIE_OK)
		return uie_opts_usage(&spec);
	if ((r = uie_file_read_alloc(ek_path, UIE_SNP_MANIFEST_MAX / 2, &ek, &ek_len)) != UIE_OK) {
		fprintf(stderr, PROG ": %s: %s\n", ek_path, uie_file_err_str(r));
		return UIE_EXIT_FAIL;
	}
	if (simfiles_load(PROG, chain, &s) != UIE_OK) {
		free(ek);
		return UIE_EXIT_FAIL;
	}
	if ((r = template(&s, meas, &tmpl)) != UIE_OK)
		fprintf(stderr, PROG ": %s\n",
			r == UIE_E_FORMAT && meas ? "--measurement: want 96 hex digits"
						  : "the VCEK has no hwID or TCB");
	else if ((r = uie_snp_sim_attest(&s, &tmpl, nonce, ek, ek_len, single, &tsm)) != UIE_OK)
		fprintf(stderr, PROG ": %s\n", uie_err_str(r));
	else {
		if ((mkdir(out, 0755) != 0 && errno != EEXIST) ||
		    (r = uie_snp_tsm_write(out, &tsm)) != UIE_OK) {
			fprintf(stderr, PROG ": %s: %s\n", out, strerror(errno));
			r = UIE_E_IO;
		}
		uie_snp_tsm_free(&tsm);
	}
	uie_snp_sim_free(&s);
	free(ek);
	return r == UIE_OK ? UIE_EXIT_OK : UIE_EXIT_FAIL;
}
