/* SPDX-License-Identifier: Apache-2.0 */
/*
 * `uie ek show [--socket PATH] [--ek-out FILE] [--ak-out FILE]`: the
 * monitor's vTPM's endorsement key and attestation key (TPM_KEYS,
 * docs/BRIDGE.md): their kinds and TPM names on stdout, and each public
 * area (a marshalled TPM2B_PUBLIC, as tpm2-tools reads it) into a file for
 * `uie credential make` (docs/FORMATS.md 5.8).
 */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "cmd.h"
#include "conn.h"
#include "subcmds.h"
#include "evio.h"
#include "fileio.h"
#include "hex.h"
#include "opts.h"
#include "tpm_public.h"
#include "uie/bridge.h"
#include "uie/err.h"

#define CMD "uie ek show"

static void usage(FILE *f)
{
	fprintf(f, "usage: uie ek show [--socket PATH] [--ek-out FILE] [--ak-out FILE]\n");
}

/* "ek rsa2048 NAME" or "ak ecc-p256 NAME"; false when the area does not parse. */
static bool show(const char *what, const uint8_t *p, size_t n)
{
	uint8_t name[UIE_TPM_NAME_MAX];
	char hex[2 * UIE_TPM_NAME_MAX + 1];
	TPMT_PUBLIC pub;
	size_t nl;
	int r;

	if ((r = uie_tpm_public_parse(p, n, &pub)) != UIE_OK ||
	    (r = uie_tpm_public_name(&pub, name, &nl)) != UIE_OK) {
		fprintf(stderr, CMD ": the monitor's %s public area: %s\n", what, uie_err_str(r));
		return false;
	}
	uie_hex_encode(hex, name, nl);
	if (pub.type == TPM2_ALG_RSA)
		printf("%s rsa%u %s\n", what, (unsigned)pub.parameters.rsaDetail.keyBits, hex);
	else if (pub.type == TPM2_ALG_ECC && pub.parameters.eccDetail.curveID == TPM2_ECC_NIST_P256)
		printf("%s ecc-p256 %s\n", what, hex);
	else
		printf("%s type-0x%04x %s\n", what, (unsigned)pub.type, hex);
	return true;
}

static bool save(const char *path, const uint8_t *p, size_t n)
{
	int r;

	if (!path || (r = uie_file_write_output(path, p, n, 0644)) == UIE_OK)
		return true;
	fprintf(stderr, CMD ": %s: %s\n", path, uie_file_err_str(r));
	return false;
}

int uie_cmd_ek_show(int argc, char **argv)
{
	const char *sock = UIE_BRIDGE_DEFAULT_PATH, *ek_out = NULL, *ak_out = NULL;
	const struct uie_opt t[] = {
		UIE_OPT_STRING("socket", 0, &sock),
		UIE_OPT_STRING("ek-out", 0, &ek_out),
		UIE_OPT_STRING("ak-out", 0, &ak_out),
		UIE_OPT_END,
	};
	const struct uie_opts spec = { .prog = CMD, .opt = t, .usage = usage };
	uint8_t *ek = NULL, *ak = NULL;
	size_t el = 0, al = 0;
	int fd, r;
	bool ok;

	if ((r = uie_opts_parse(&spec, argc, argv)) != UIE_OPTS_GO)
		return r;
	if (uie_tool_connect(CMD, sock, &fd) != UIE_OK)
		return UIE_EXIT_FAIL;
	r = uie_bridge_tpm_keys_alloc(fd, &ek, &el, &ak, &al);
	close(fd);
	if (r != UIE_OK) {
		uie_tool_peer_err(CMD, sock, r);
		return UIE_EXIT_FAIL;
	}
	ok = show("ek", ek, el) && show("ak", ak, al) && save(ek_out, ek, el) && save(ak_out, ak, al);
	free(ek);
	free(ak);
	return ok ? UIE_EXIT_OK : UIE_EXIT_FAIL;
}
