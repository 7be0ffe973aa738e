/* SPDX-License-Identifier: Apache-2.0 */
/* The AK traced to an SEV-SNP attestation for uie verify (attested.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/crypto.h>

#include "uie/err.h"

#include "attested.h"
#include "challenge.h"
#include "evio.h"
#include "fileio.h"
#include "hex.h"
#include "opts.h"
#include "tpm_public.h"

void attested_init(struct attested *a, const char *prog)
{
	memset(a, 0, sizeof(*a));
	snp_check_init(&a->c, prog);
}

bool attested_given(const struct attested *a)
{
	return a->snp || a->snp_nonce || a->ak || a->challenge || a->activated;
}

int attested_finish(struct attested *a)
{
	const char *prog = a->c.prog;

	if (!a->snp || !a->snp_nonce || !a->ak || !a->challenge || !a->activated) {
		fprintf(stderr,
			"%s: an attested AK needs --snp, --snp-nonce, --ak, --challenge and --activated\n",
			prog);
		return UIE_OPTS_EXIT_USAGE;
	}
	if (uie_hex_decode(a->snp_nonce, strlen(a->snp_nonce), a->nonce, sizeof(a->nonce)) != UIE_OK) {
		fprintf(stderr, "%s: --snp-nonce: want the 128 hex digits of the 64-byte nonce\n", prog);
		return UIE_OPTS_EXIT_USAGE;
	}
	return snp_check_finish(&a->c);
}

/* A file holding one TPM2B_PUBLIC into *pub; says which on error. */
static int public_file(const char *prog, const char *what, const char *path, TPMT_PUBLIC *pub)
{
	uint8_t *p = NULL;
	size_t n = 0;
	int r;

	if ((r = evio_read_alloc(path, &p, &n)) == UIE_OK)
		r = uie_tpm_public_parse(p, n, pub);
	free(p);
	if (r != UIE_OK)
		fprintf(stderr, "%s: %s %s: %s\n", prog, what, path,
			r == UIE_E_FORMAT || r == UIE_E_TRUNCATED ? "not a marshalled TPM2B_PUBLIC"
								  : uie_file_err_str(r));
	return r;
}

/* Links 6 and 7: the challenge made to ek for ak, answered with the secret. */
static int credential(const struct attested *a, const TPMT_PUBLIC *ek, const TPMT_PUBLIC *ak)
{
	const char *prog = a->c.prog, *why = "";
	uint8_t *text = NULL, *answer = NULL;
	size_t tl = 0, al = 0;
	struct uie_challenge c;
	int r;

	if ((r = evio_read_alloc(a->challenge, &text, &tl)) != UIE_OK ||
	    (r = evio_read_alloc(a->activated, &answer, &al)) != UIE_OK) {
		fprintf(stderr, "%s: %s: %s\n", prog, text ? a->activated : a->challenge,
			uie_file_err_str(r));
	} else if ((r = uie_challenge_parse(text, tl, &c, &why)) != UIE_OK) {
		fprintf(stderr, "%s: --challenge %s: %s\n", prog, a->challenge, why);
	} else if ((r = uie_tpm_ak_check(ak, &why)) != UIE_OK) {
		fprintf(stderr, "%s: --ak %s: not an attestation key: %s\n", prog, a->ak, why);
	} else if ((r = uie_challenge_check(&c, ek, ak, answer, al, &why)) != UIE_OK)
		fprintf(stderr, "%s: credential: refused: %s\n", prog, why);
	if (answer)
		OPENSSL_cleanse(answer, al);
	free(answer);
	free(text);
	return r;
}

int attested_ak_alloc(struct attested *a, uint8_t **der, size_t *len)
{
	const char *prog = a->c.prog;
	struct snp_input in;
	struct uie_snp_verdict v;
	const uint8_t *tpmt = NULL;
	TPMT_PUBLIC ek, ak;
	size_t tl = 0;
	int r;

	*der = NULL;
	*len = 0;
	if ((r = snp_check_configfs(&a->c, a->snp, a->nonce, &in, &v, &tpmt, &tl)) == UIE_OK &&
	    (r = v.err) != UIE_OK)
		fprintf(stderr, "%s: attestation %s: %srefused: %s (%s)\n", prog, a->snp,
			v.simulated ? "SIMULATED root, " : "", v.why.msg, uie_err_str(r));
	if (r == UIE_OK && (r = uie_tpm_tpmt_parse(tpmt, tl, &ek)) != UIE_OK)
		fprintf(stderr, "%s: attestation %s: the manifest's EK is no TPMT_PUBLIC\n", prog, a->snp);
	if (r == UIE_OK) {
		a->simulated = v.simulated;
		memcpy(a->measurement, v.report.measurement, sizeof(a->measurement));
	}
	snp_check_input_free(&in);
	if (r != UIE_OK || (r = public_file(prog, "--ak", a->ak, &ak)) != UIE_OK ||
	    (r = credential(a, &ek, &ak)) != UIE_OK)
		return r;
	if ((r = uie_tpm_ak_spki_alloc(&ak, der, len)) != UIE_OK)
		fprintf(stderr, "%s: --ak %s: %s\n", prog, a->ak, uie_err_str(r));
	return r;
}
