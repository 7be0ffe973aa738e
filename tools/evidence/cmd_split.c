/* SPDX-License-Identifier: Apache-2.0 */
/*
 * `uie evidence split AE -o DIR`: the AE's quote as the files
 * tpm2_checkquote takes (docs/FORMATS.md 5.2): DIR/attest (TPMS_ATTEST),
 * DIR/sig (TPMT_SIGNATURE), DIR/pcr16 (the 32 raw bytes of vPCR16) and
 * DIR/nonce (the nonce in hex), and prints the command that checks them.
 * Splitting checks only the AE's format; `uie verify` checks the rest.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "uie/err.h"

#include "cmd.h"
#include "evidence.h"
#include "subcmds.h"
#include "evio.h"
#include "fileio.h"
#include "opts.h"

static void usage(FILE *f)
{
	fprintf(f, "usage: uie evidence split AE -o DIR\n"
		   "  writes DIR/attest, DIR/sig, DIR/pcr16 and DIR/nonce for tpm2_checkquote\n");
}

static int put(const char *dir, const char *name, const void *p, size_t n)
{
	char path[4096];

	if ((size_t)snprintf(path, sizeof(path), "%s/%s", dir, name) >= sizeof(path))
		return UIE_E_LIMIT;
	return uie_file_write_output(path, p, n, 0644);
}

int uie_cmd_evidence_split(int argc, char **argv)
{
	char nonce[2 * UIE_NONCE_MAX + 2];
	const char *dir = NULL;
	const struct uie_opt t[] = { UIE_OPT_STRING("output", 'o', &dir), UIE_OPT_END };
	const struct uie_opts spec = {
		.prog = "uie evidence split", .opt = t, .usage = usage, .min_operands = 1, .max_operands = 1
	};
	struct uie_ae a;
	uint8_t *buf = NULL;
	size_t len;
	int r;

	if ((r = uie_opts_parse(&spec, argc, argv)) != UIE_OPTS_GO)
		return r;
	if (!dir)
		return uie_opts_usage(&spec);
	if ((r = evio_read_alloc(argv[optind], &buf, &len)) != UIE_OK ||
	    (r = uie_ae_parse(buf, len, &a)) != UIE_OK) {
		fprintf(stderr, "uie evidence split: %s: %s\n", argv[optind], uie_file_err_str(r));
		free(buf);
		return UIE_EXIT_FAIL;
	}
	if (a.nonce_len > UIE_NONCE_MAX)
		r = UIE_E_LIMIT;
	for (size_t i = 0; r == UIE_OK && i < a.nonce_len; i++)
		snprintf(nonce + 2 * i, 3, "%02x", a.nonce[i]);
	if (r == UIE_OK) {
		nonce[2 * a.nonce_len] = '\n';
		nonce[2 * a.nonce_len + 1] = '\0';
	}
	if (r == UIE_OK && mkdir(dir, 0755) != 0 && errno != EEXIST)
		r = UIE_E_IO;
	if (r == UIE_OK && (r = put(dir, "attest", a.attest, a.attest_len)) == UIE_OK &&
	    (r = put(dir, "sig", a.sig, a.sig_len)) == UIE_OK &&
	    (r = put(dir, "pcr16", a.vpcr, sizeof(a.vpcr))) == UIE_OK)
		r = put(dir, "nonce", nonce, strlen(nonce));
	free(buf);
	if (r != UIE_OK) {
		fprintf(stderr, "uie evidence split: %s: %s\n", dir, uie_file_err_str(r));
		return UIE_EXIT_FAIL;
	}
	nonce[2 * a.nonce_len] = '\0';
	printf("tpm2_checkquote -u AK.pub.pem -m %s/attest -s %s/sig -f %s/pcr16 -l sha256:16 "
	       "-g sha256 -q %s\n",
	       dir, dir, dir, nonce);
	return UIE_EXIT_OK;
}
