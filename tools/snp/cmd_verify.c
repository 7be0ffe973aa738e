/* SPDX-License-Identifier: Apache-2.0 */
/*
 * `uie snp verify REPORT --vcek FILE`: an SEV-SNP attestation report
 * verified and appraised (uie-snp-verify(1)).  Exit 0 only when the
 * signature, the chain and the appraisal hold; 1 when it is refused or
 * cannot be read; 2 for a bad command line.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/pem.h>

#include "uie/err.h"

#include "cmd.h"
#include "fileio.h"
#include "hex.h"
#include "json.h"
#include "opts.h"
#include "snp_check.h"
#include "subcmds.h"
#include "tpm_public.h"
#include "snp_json.h"
#include "snp_tsm.h"
#include "snp_verify.h"

#define PROG "uie snp verify"

struct args {
	struct snp_check c;
	const char *configfs, *nonce, *ek_out;
	uint8_t nonce_bytes[UIE_SNP_NONCE_LEN];
	bool json;
};

static void usage(FILE *f)
{
	fprintf(f, "usage: uie snp verify REPORT --vcek FILE [--ask FILE --ark FILE [--simulated]]\n"
		   "       uie snp verify --configfs DIR --nonce HEX128 [--ek-out FILE] [--vcek FILE] ...\n"
		   "         [--product milan|genoa|turin] [--crl FILE] [--json]\n"
		   "         [--allow-debug] [--allow-migration-agent] [--vmpl N] [--min-abi MAJOR.MINOR]\n"
		   "         [--min-tcb HEX16] [--measurement HEX96]... [--report-data HEX128]\n"
		   "  verifies an SEV-SNP attestation report: its VCEK chained to AMD's pinned roots,\n"
		   "  its signature, the VCEK's hwID and TCB against it, then the appraisal\n");
}

/* The verdict on stdout (JSON, with the vTPM's EK when bound) or in words; the exit status. */
static int report(const struct args *a, const char *path, const struct uie_snp_verdict *v, const uint8_t *ek,
		  size_t ek_len)
{
	char *hex = ek ? malloc(2 * ek_len + 1) : NULL;
	json_t *j = a->json ? uie_snp_verdict_json(v) : NULL;

	if (hex)
		uie_hex_encode(hex, ek, ek_len);
	if (a->json && (!j || (hex && json_object_set_new(j, "vtpm_ek", json_string(hex)) != 0) ||
			uie_json_print(j) != UIE_OK)) {
		free(hex);
		fprintf(stderr, PROG ": out of memory\n");
		return UIE_EXIT_FAIL;
	}
	free(hex);
	if (v->err == UIE_OK) {
		if (!a->json)
			printf("%s: %s%s\n", path, v->why.msg, ek ? ", bound to the vTPM's EK" : "");
		return UIE_EXIT_OK;
	}
	fprintf(stderr, PROG ": %s: %srefused: %s (%s)\n", path, v->simulated ? "SIMULATED root, " : "",
		v->why.msg, uie_err_str(v->err));
	return UIE_EXIT_FAIL;
}

/*
 * --ek-out: the EK as a TPM2B_PUBLIC, the form `uie ek show --ek-out` writes
 * and `uie credential make --ek` reads (the manifest holds its TPMT_PUBLIC).
 */
static int write_tpm2b(const char *path, const uint8_t *tpmt, size_t n)
{
	TPMT_PUBLIC pub;
	uint8_t *p = NULL;
	size_t len = 0;
	int r;

	if ((r = uie_tpm_tpmt_parse(tpmt, n, &pub)) == UIE_OK &&
	    (r = uie_tpm_public_alloc(&pub, &p, &len)) == UIE_OK)
		r = uie_file_write_output(path, p, len, 0644);
	free(p);
	return r;
}

/* The vTPM's EK the report binds, after it verified; into --ek-out when asked. */
static int save_ek(const struct args *a, const uint8_t *ek, size_t ek_len)
{
	int r;

	if (!a->ek_out)
		return UIE_OK;
	if ((r = write_tpm2b(a->ek_out, ek, ek_len)) != UIE_OK)
		fprintf(stderr, PROG ": %s: %s\n", a->ek_out, uie_file_err_str(r));
	return r;
}

static int run(struct args *a, const char *name)
{
	struct snp_input in = { .prog = PROG, .name = name, .ev = { .simulated_root = a->c.simulated } };
	const uint8_t *ek = NULL;
	struct uie_snp_verdict v;
	size_t ek_len = 0;
	int rc = UIE_EXIT_FAIL;

	if (a->configfs) {
		if (snp_check_configfs(&a->c, name, a->nonce_bytes, &in, &v, &ek, &ek_len) == UIE_OK)
			rc = v.err != UIE_OK || save_ek(a, ek, ek_len) == UIE_OK
				     ? report(a, name, &v, ek, ek_len)
				     : UIE_EXIT_FAIL;
	} else if (snp_check_gather(&a->c, false, &in) == UIE_OK) {
		uie_snp_verify(&in.ev, &a->c.pol, &v);
		rc = report(a, name, &v, NULL, 0);
	}
	snp_check_input_free(&in);
	return rc;
}

int uie_cmd_snp_verify(int argc, char **argv)
{
	static struct args a;
	const struct uie_opt t[] = {
		SNP_CHECK_OPTS(&a.c),
		UIE_OPT_FLAG("json", 0, UIE_OPTK_SET, &a.json),
		UIE_OPT_STRING("configfs", 0, &a.configfs),
		UIE_OPT_STRING("nonce", 0, &a.nonce),
		UIE_OPT_STRING("ek-out", 0, &a.ek_out),
		UIE_OPT_END,
	};
	const struct uie_opts spec = {
		.prog = PROG, .opt = t, .usage = usage, .min_operands = 0, .max_operands = 1
	};
	int r;

	memset(&a, 0, sizeof(a));
	snp_check_init(&a.c, PROG);
	if ((r = uie_opts_parse(&spec, argc, argv)) != UIE_OPTS_GO)
		return r;
	if ((optind < argc) == !!a.configfs || !a.configfs != !a.nonce || (a.ek_out && !a.configfs) ||
	    (!a.configfs && !a.c.vcek)) {
		fprintf(stderr, PROG ": give REPORT --vcek, or --configfs DIR --nonce HEX\n");
		return uie_opts_usage(&spec);
	}
	if (a.nonce &&
	    uie_hex_decode(a.nonce, strlen(a.nonce), a.nonce_bytes, sizeof(a.nonce_bytes)) != UIE_OK) {
		fprintf(stderr, PROG ": --nonce: want the 128 hex digits of the 64-byte nonce\n");
		return UIE_OPTS_EXIT_USAGE;
	}
	if (snp_check_finish(&a.c) != UIE_OPTS_GO)
		return uie_opts_usage(&spec);
	return run(&a, a.configfs ? a.configfs : argv[optind]);
}
