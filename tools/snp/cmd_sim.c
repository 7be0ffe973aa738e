/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The simulated SEV-SNP chain's commands, for machines without SEV-SNP
 * (docs/ATTESTATION.md section 3); nothing they make verifies against
 * AMD's roots:
 *   `uie snp sim-chain -o DIR`: a simulated ARK, ASK and VCEK with AMD's
 *     algorithms, names and extensions (uie-snp-sim-chain(1));
 *   `uie snp sim-attest --chain DIR --nonce HEX --ek FILE -o OUT`: what an
 *     SVSM with a vTPM whose EK is FILE (a TPMT_PUBLIC) answers a guest
 *     asking with the nonce, as configfs-tsm's directory OUT, signed by the
 *     simulated chain's VCEK (uie-snp-sim-attest(1)).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <openssl/rand.h>

#include "uie/err.h"

#include "cmd.h"
#include "fileio.h"
#include "hex.h"
#include "opts.h"
#include "snp_simfiles.h"
#include "subcmds.h"

#define CHAIN "uie snp sim-chain"

static const char chain_usage[] = "-o DIR [--product milan|genoa|turin] [--chip-id HEX128] [--tcb HEX16]\n"
				  "  makes a simulated ARK, ASK and VCEK (DIR/{ark,ask,vcek}.pem and .key)\n";

int uie_cmd_snp_sim_chain(int argc, char **argv)
{
	const char *dir = NULL, *product = "milan", *chip_hex = NULL, *tcb_hex = "0300000000000873";
	const struct uie_opt t[] = {
		UIE_OPT_STRING("output", 'o', &dir),
		UIE_OPT_STRING("product", 0, &product),
		UIE_OPT_STRING("chip-id", 0, &chip_hex),
		UIE_OPT_STRING("tcb", 0, &tcb_hex),
		UIE_OPT_END,
	};
	const struct uie_opts spec = { .prog = CHAIN, .opt = t, .synopsis = chain_usage };
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
		fprintf(stderr, CHAIN ": %s: %s\n", dir, strerror(errno));
		return UIE_EXIT_FAIL;
	}
	if ((r = uie_snp_sim_roots(p, &s)) != UIE_OK ||
	    (r = uie_snp_sim_vcek(&s, chip, uie_le64(tcb), p == UIE_SNP_TURIN)) != UIE_OK) {
		fprintf(stderr, CHAIN ": OpenSSL failed: %s\n", uie_err_str(r));
		uie_snp_sim_free(&s);
		return UIE_EXIT_FAIL;
	}
	if ((r = uie_snp_simfiles_save(dir, &s, &why)) != UIE_OK)
		fprintf(stderr, CHAIN ": %s\n", why.msg);
	uie_snp_sim_free(&s);
	return r == UIE_OK ? UIE_EXIT_OK : UIE_EXIT_FAIL;
}

#define ATTEST "uie snp sim-attest"

static const char attest_usage[] =
	"--chain DIR --nonce HEX128 --ek FILE [--single]\n"
	"         [--measurement HEX96] -o OUT\n"
	"  writes OUT/{outblob,manifestblob,auxblob,service_guid} as a simulated SVSM answers\n";

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
		UIE_OPT_END,
	};
	const struct uie_opts spec = { .prog = ATTEST, .opt = t, .synopsis = attest_usage };
	uint8_t nonce[UIE_SNP_NONCE_LEN], m[UIE_SNP_MEASUREMENT_LEN], *ek = NULL;
	struct uie_snp_report tmpl;
	struct uie_snp_sim s;
	struct uie_snp_tsm tsm;
	struct uie_snp_why why;
	size_t ek_len;
	int r;

	if ((r = uie_opts_parse(&spec, argc, argv)) != UIE_OPTS_GO)
		return r;
	if (!chain || !nonce_hex || !ek_path || !out ||
	    uie_hex_decode(nonce_hex, strlen(nonce_hex), nonce, sizeof(nonce)) != UIE_OK)
		return uie_opts_usage(&spec);
	if (meas && uie_hex_decode(meas, strlen(meas), m, sizeof(m)) != UIE_OK) {
		fprintf(stderr, ATTEST ": --measurement: want 96 hex digits\n");
		return UIE_EXIT_USAGE;
	}
	if ((r = uie_file_read_alloc(ek_path, UIE_SNP_MANIFEST_MAX / 2, &ek, &ek_len)) != UIE_OK) {
		fprintf(stderr, ATTEST ": %s: %s\n", ek_path, uie_file_err_str(r));
		return UIE_EXIT_FAIL;
	}
	if (uie_snp_simfiles_load(chain, &s, &why) != UIE_OK) {
		fprintf(stderr, ATTEST ": %s\n", why.msg);
		free(ek);
		return UIE_EXIT_FAIL;
	}
	if ((r = uie_snp_sim_template(&s, meas ? m : NULL, &tmpl)) != UIE_OK)
		fprintf(stderr, ATTEST ": %s/vcek.pem: no hwID or TCB extension\n", chain);
	else if ((r = uie_snp_sim_attest(&s, &tmpl, nonce, ek, ek_len, single, &tsm)) != UIE_OK)
		fprintf(stderr, ATTEST ": %s\n", uie_err_str(r));
	else {
		if ((mkdir(out, 0755) != 0 && errno != EEXIST) ||
		    (r = uie_snp_tsm_write(out, &tsm)) != UIE_OK) {
			fprintf(stderr, ATTEST ": %s: %s\n", out, strerror(errno));
			r = UIE_E_IO;
		}
		uie_snp_tsm_free(&tsm);
	}
	uie_snp_sim_free(&s);
	free(ek);
	return r == UIE_OK ? UIE_EXIT_OK : UIE_EXIT_FAIL;
}
