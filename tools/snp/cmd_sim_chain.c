/* SPDX-License-Identifier: Apache-2.0 */
/*
 * `uie snp sim-chain -o DIR`: a simulated ARK, ASK and VCEK with AMD's
 * algorithms, names and extensions (uie-snp-sim-chain(1)), for machines
 * without SEV-SNP.  Nothing it makes verifies against AMD's roots.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include <openssl/rand.h>

#include "uie/err.h"

#include "cmd.h"
#include "fileio.h"
#include "hex.h"
#include "opts.h"
#include "snp_simfiles.h"
#include "snp_cmds.h"

#define PROG "uie snp sim-chain"

static void usage(FILE *f)
{
	fprintf(f, "usage: uie snp sim-chain -o DIR [--product milan|genoa|turin] [--chip-id HEX128] [--tcb "
		   "HEX16]\n"
		   "  makes a simulated ARK, ASK and VCEK (DIR/{ark,ask,vcek}.pem and .key)\n");
}

int uie_cmd_snp_sim_chain(int argc, char **argv)
{
	const char *dir = NULL, *product = "milan", *chip_hex = NULL, *tcb_hex = "0300000000000873";
	const struct uie_opt t[] = {
		UIE_OPT_STRING("output", 'o', &dir),
		UIE_OPT_STRING("product", 0, &product),
		UIE_OPT_STRING("chip-id", 0, &chip_hex),
		UIE_OPT_STRING("tcb", 0, &tcb_hex),
		UIE_OPT_HELP,
		UIE_OPT_END,
	};
	const struct uie_opts spec = { .prog = PROG, .opt = t, .usage = usage };
	uint8_t chip[UIE_SNP_CHIP_ID_LEN], tcb[8];
	enum uie_snp_product p = UIE_SNP_PRODUCT__MAX;
	struct uie_snp_sim s;
	struct uie_snp_why why;
	int r;

	if ((r = uie_opts_parse(&spec, argc, argv)) != UIE_OPTS_GO)
		return r;
	for (int i = 0; i < UIE_SNP_PRODUCT__MAX; i++)
		if (!strcasecmp(product, uie_snp_product_name((enum uie_snp_product)i)))
			p = (enum uie_snp_product)i;
	if (!dir || p == UIE_SNP_PRODUCT__MAX ||
	    (chip_hex && uie_hex_decode(chip_hex, strlen(chip_hex), chip, sizeof(chip)) != UIE_OK) ||
	    uie_hex_decode(tcb_hex, strlen(tcb_hex), tcb, sizeof(tcb)) != UIE_OK)
		return uie_opts_usage(&spec);
	if (!chip_hex && RAND_bytes(chip, sizeof(chip)) != 1)
		return UIE_EXIT_FAIL;
	if (mkdir(dir, 0755) != 0 && errno != EEXIST) {
		fprintf(stderr, PROG ": %s: %s\n", dir, strerror(errno));
		return UIE_EXIT_FAIL;
	}
	if ((r = uie_snp_sim_roots(p, &s)) != UIE_OK ||
	    (r = uie_snp_sim_vcek(&s, chip, uie_le64(tcb), p == UIE_SNP_TURIN)) != UIE_OK) {
		fprintf(stderr, PROG ": OpenSSL failed: %s\n", uie_err_str(r));
		uie_snp_sim_free(&s);
		return UIE_EXIT_FAIL;
	}
	if ((r = uie_snp_simfiles_save(dir, &s, &why)) != UIE_OK)
		fprintf(stderr, PROG ": %s\n", why.msg);
	uie_snp_sim_free(&s);
	return r == UIE_OK ? UIE_EXIT_OK : UIE_EXIT_FAIL;
}
