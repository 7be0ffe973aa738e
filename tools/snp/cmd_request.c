/* SPDX-License-Identifier: Apache-2.0 */
/*
 * `uie snp request --nonce HEX -o DIR`: asks the monitor for the SEV-SNP
 * attestation an SVSM gives the guest for the verifier's nonce, and writes
 * it as configfs-tsm's directory (outblob, manifestblob, auxblob,
 * service_guid), which `uie snp verify --configfs DIR` reads
 * (uie-snp-request(1)).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "uie/bridge.h"
#include "uie/err.h"

#include "cmd.h"
#include "conn.h"
#include "fileio.h"
#include "hex.h"
#include "opts.h"
#include "subcmds.h"
#include "snp_fetch.h"

#define PROG "uie snp request"

static const char usage[] = "[--socket PATH] --nonce HEX128 -o DIR\n"
			    "  writes DIR/{outblob,manifestblob,auxblob,service_guid}: the monitor's answer\n"
			    "  to an attestation request, as configfs-tsm gives it to a guest\n";

int uie_cmd_snp_request(int argc, char **argv)
{
	const char *sock = UIE_BRIDGE_DEFAULT_PATH, *nonce_hex = NULL, *out = NULL;
	const struct uie_opt t[] = {
		UIE_OPT_STRING("socket", 0, &sock),
		UIE_OPT_STRING("nonce", 0, &nonce_hex),
		UIE_OPT_STRING("output", 'o', &out),
		UIE_OPT_END,
	};
	const struct uie_opts spec = { .prog = PROG, .opt = t, .synopsis = usage };
	uint8_t nonce[UIE_SNP_NONCE_LEN];
	struct uie_snp_tsm tsm = { 0 };
	struct uie_snp_why why;
	int fd, r;

	if ((r = uie_opts_parse(&spec, argc, argv)) != UIE_OPTS_GO)
		return r;
	if (!nonce_hex || !out ||
	    uie_hex_decode(nonce_hex, strlen(nonce_hex), nonce, sizeof(nonce)) != UIE_OK)
		return uie_opts_usage(&spec);
	if (mkdir(out, 0755) != 0 && errno != EEXIST) {
		fprintf(stderr, PROG ": %s: %s\n", out, strerror(errno));
		return UIE_EXIT_FAIL;
	}
	if (uie_tool_connect(PROG, sock, &fd) != UIE_OK)
		return UIE_EXIT_FAIL;
	r = uie_tool_snp_report(fd, nonce, &tsm, &why);
	close(fd);
	if (r != UIE_OK) {
		uie_tool_snp_report_err(PROG, sock, r, &why);
		return UIE_EXIT_FAIL;
	}
	if ((r = uie_snp_tsm_write(out, &tsm)) != UIE_OK)
		fprintf(stderr, PROG ": %s: %s\n", out, uie_file_err_str(r));
	uie_snp_tsm_free(&tsm);
	return r == UIE_OK ? UIE_EXIT_OK : UIE_EXIT_FAIL;
}
