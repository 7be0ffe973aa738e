/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The credential challenge that proves an AK lives in the TPM of an EK
 * (docs/FORMATS.md 5.8), as Keylime runs it:
 *   uie credential make --ek FILE --ak FILE [--ak-pub PEM] --secret-out FILE -o FILE
 *     (the verifier) draws a 32-byte secret, seals it to the EK under the
 *     AK's name, and writes the credential file of tpm2-tools;
 *   uie credential activate [--socket PATH] [-o FILE] CREDFILE
 *     (the machine) has the monitor's vTPM open it; only the TPM holding
 *     both keys can.
 */
#include <openssl/crypto.h>
#include <openssl/rand.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "challenge.h"
#include "cmd.h"
#include "conn.h"
#include "credential.h"
#include "subcmds.h"
#include "evio.h"
#include "fileio.h"
#include "hex.h"
#include "opts.h"
#include "pubkey.h"
#include "tpm_public.h"
#include "uie/bridge.h"
#include "uie/err.h"

#define MAKE "uie credential make"
#define ACTIVATE "uie credential activate"
#define SECRET_LEN 32

static void make_usage(FILE *f)
{
	fprintf(f, "usage: uie credential make --ek FILE --ak FILE [--ak-pub PEM] --secret-out FILE\n"
		   "         [--challenge FILE] -o FILE\n"
		   "  FILEs of --ek and --ak: marshalled TPM2B_PUBLIC (uie ek show --ek-out/--ak-out)\n"
		   "  --challenge: the EK's and AK's names and the secret's hash, for uie verify\n");
}

static void activate_usage(FILE *f)
{
	fprintf(f, "usage: uie credential activate [--socket PATH] [-o FILE] CREDFILE\n");
}

/* A file of at most one TPM2B_PUBLIC, malloc'ed; says why not. */
static bool read_public(const char *cmd, const char *path, uint8_t **p, size_t *n)
{
	int r = evio_read_alloc(path, p, n);

	if (r == UIE_OK && *n > sizeof(TPM2B_PUBLIC))
		r = UIE_E_LIMIT;
	if (r == UIE_OK)
		return true;
	fprintf(stderr, "%s: %s: %s\n", cmd, path, uie_file_err_str(r));
	free(*p);
	*p = NULL;
	return false;
}

/* --ak-pub: the AK's public area must hold the key quotes are verified with. */
static bool ak_is_pem(const char *pem, const uint8_t *ak, size_t al)
{
	EVP_PKEY *pk = NULL;
	TPMT_PUBLIC pub;
	int r;

	if ((r = uie_pubkey_read_alloc(pem, &pk)) != UIE_OK) {
		fprintf(stderr, MAKE ": %s: %s\n", pem, uie_file_err_str(r));
		return false;
	}
	if ((r = uie_tpm_public_parse(ak, al, &pub)) == UIE_OK)
		r = uie_tpm_public_is_key(&pub, pk);
	EVP_PKEY_free(pk);
	if (r != UIE_OK)
		fprintf(stderr, MAKE ": %s: the AK's public area does not hold this key (%s)\n", pem,
			uie_err_str(r));
	return r == UIE_OK;
}

/* --challenge: what `uie verify --challenge` judges the machine's answer by (challenge.h). */
static bool save_challenge(const char *path, const uint8_t *ek, size_t el, const uint8_t *ak, size_t al,
			   const uint8_t *secret, size_t n)
{
	TPMT_PUBLIC ekp, akp;
	struct uie_challenge c;
	char *text = NULL;
	size_t len = 0;
	int r;

	if ((r = uie_tpm_public_parse(ek, el, &ekp)) == UIE_OK &&
	    (r = uie_tpm_public_parse(ak, al, &akp)) == UIE_OK &&
	    (r = uie_challenge_of(&ekp, &akp, secret, n, &c)) == UIE_OK &&
	    (r = uie_challenge_json_alloc(&c, &text, &len)) == UIE_OK)
		r = uie_file_write_output(path, text, len, 0644);
	free(text);
	if (r != UIE_OK)
		fprintf(stderr, MAKE ": %s: %s\n", path, uie_file_err_str(r));
	return r == UIE_OK;
}

int uie_cmd_credential_make(int argc, char **argv)
{
	const char *ekf = NULL, *akf = NULL, *pem = NULL, *sout = NULL, *out = NULL, *chal = NULL, *why = "";
	const struct uie_opt t[] = {
		UIE_OPT_STRING("ek", 0, &ekf),
		UIE_OPT_STRING("ak", 0, &akf),
		UIE_OPT_STRING("ak-pub", 0, &pem),
		UIE_OPT_STRING("secret-out", 0, &sout),
		UIE_OPT_STRING("challenge", 0, &chal),
		UIE_OPT_STRING("output", 'o', &out),
		UIE_OPT_END,
	};
	const struct uie_opts spec = { .prog = MAKE, .opt = t, .usage = make_usage };
	uint8_t *ek = NULL, *ak = NULL, *blob = NULL, *secret = NULL, cred[SECRET_LEN],
		file[UIE_CRED_FILE_MAX];
	size_t el = 0, al = 0, bl = 0, sl = 0;
	struct uie_wbuf w;
	int r, rc = UIE_EXIT_FAIL;

	if ((r = uie_opts_parse(&spec, argc, argv)) != UIE_OPTS_GO)
		return r;
	if (!ekf || !akf || !sout || !out)
		return uie_opts_usage(&spec);
	if (!read_public(MAKE, ekf, &ek, &el) || !read_public(MAKE, akf, &ak, &al) ||
	    (pem && !ak_is_pem(pem, ak, al)))
		goto out;
	if (RAND_bytes(cred, sizeof(cred)) != 1) {
		fprintf(stderr, MAKE ": no random secret\n");
		goto out;
	}
	if ((r = uie_credential_make(ek, el, ak, al, cred, sizeof(cred), &blob, &bl, &secret, &sl, &why)) !=
	    UIE_OK) {
		fprintf(stderr, MAKE ": %s (%s)\n", why, uie_err_str(r));
		goto out;
	}
	uie_wbuf_init(&w, file, sizeof(file));
	uie_credential_file_put(&w, blob, bl, secret, sl);
	if ((r = w.err) != UIE_OK || (r = uie_file_write_atomic(sout, cred, sizeof(cred), 0600)) != UIE_OK) {
		fprintf(stderr, MAKE ": %s: %s\n", sout, uie_file_err_str(r));
		goto out;
	}
	if (chal && !save_challenge(chal, ek, el, ak, al, cred, sizeof(cred)))
		goto out;
	if ((r = uie_file_write_output(out, file, w.len, 0644)) != UIE_OK) {
		fprintf(stderr, MAKE ": %s: %s\n", out, uie_file_err_str(r));
		goto out;
	}
	rc = UIE_EXIT_OK;
out:
	OPENSSL_cleanse(cred, sizeof(cred));
	free(ek);
	free(ak);
	free(blob);
	free(secret);
	return rc;
}

int uie_cmd_credential_activate(int argc, char **argv)
{
	const char *sock = UIE_BRIDGE_DEFAULT_PATH, *out = NULL;
	const struct uie_opt t[] = {
		UIE_OPT_STRING("socket", 0, &sock),
		UIE_OPT_STRING("output", 'o', &out),
		UIE_OPT_END,
	};
	const struct uie_opts spec = {
		.prog = ACTIVATE, .opt = t, .usage = activate_usage, .min_operands = 1, .max_operands = 1
	};
	const uint8_t *blob, *secret;
	uint8_t *file = NULL, cred[UIE_CRED_MAX];
	char hex[2 * UIE_CRED_MAX + 1];
	size_t fl = 0, bl, sl, cl = 0;
	int fd, r;

	if ((r = uie_opts_parse(&spec, argc, argv)) != UIE_OPTS_GO)
		return r;
	if ((r = evio_read_alloc(argv[optind], &file, &fl)) != UIE_OK ||
	    (r = uie_credential_file_parse(file, fl, &blob, &bl, &secret, &sl)) != UIE_OK) {
		fprintf(stderr, ACTIVATE ": %s: %s\n", argv[optind],
			r == UIE_E_FORMAT || r == UIE_E_TRUNCATED ? "not a credential file"
								  : uie_file_err_str(r));
		free(file);
		return UIE_EXIT_FAIL;
	}
	if (uie_tool_connect(ACTIVATE, sock, &fd) != UIE_OK) {
		free(file);
		return UIE_EXIT_FAIL;
	}
	r = uie_bridge_activate(fd, blob, bl, secret, sl, cred, &cl);
	close(fd);
	free(file);
	if (r == UIE_E_KEY || r == UIE_E_SIGNATURE || r == UIE_E_FORMAT || r == UIE_E_LIMIT) {
		fprintf(stderr, ACTIVATE ": %s: refused: %s\n", argv[optind], uie_credential_reason(r));
		return UIE_EXIT_FAIL;
	}
	if (r != UIE_OK) {
		uie_tool_peer_err(ACTIVATE, sock, r);
		return UIE_EXIT_FAIL;
	}
	if (out) {
		r = uie_file_write_output(out, cred, cl, 0600);
		OPENSSL_cleanse(cred, sizeof(cred));
		if (r != UIE_OK) {
			fprintf(stderr, ACTIVATE ": %s: %s\n", out, uie_file_err_str(r));
			return UIE_EXIT_FAIL;
		}
		return UIE_EXIT_OK;
	}
	uie_hex_encode(hex, cred, cl);
	printf("%s\n", hex);
	OPENSSL_cleanse(cred, sizeof(cred));
	return UIE_EXIT_OK;
}
