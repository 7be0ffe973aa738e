/* SPDX-License-Identifier: Apache-2.0 */
/*
 * `uie key gen [--force] -o PRIV.pem --pub PUB.pem`: a policy-signing key
 * pair (ECDSA P-256), both files or neither.  An existing file is replaced
 * only with --force: a private key overwritten by mistake cannot sign for
 * its policies again.
 */
#include <errno.h>
#include <libgen.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <openssl/bio.h>
#include <openssl/evp.h>
#include <openssl/pem.h>

#include "uie/err.h"

#include "cmd.h"
#include "keys.h"
#include "opts.h"
#include "pubkey.h"
#include "fileio.h"
#include "subcmds.h"

/* PEM text of the private (PKCS#8) or public key into a malloc'ed buffer. */
static int pem_alloc(EVP_PKEY *pk, int priv, char **out, size_t *len)
{
	BIO *b = BIO_new(BIO_s_mem());
	char *p;
	long n;
	int ok;

	*out = NULL;
	if (!b)
		return UIE_E_NOMEM;
	ok = priv ? PEM_write_bio_PrivateKey(b, pk, NULL, NULL, 0, NULL, NULL) : PEM_write_bio_PUBKEY(b, pk);
	n = BIO_get_mem_data(b, &p);
	if (ok == 1 && n > 0 && (*out = malloc((size_t)n)))
		memcpy(*out, p, (size_t)n);
	*len = *out ? (size_t)n : 0;
	BIO_free(b);
	return *out ? UIE_OK : UIE_E_CRYPTO;
}

/*
 * Whether path may be written: it is standard output ("-"), or its directory
 * exists and it does not (or force); else says why.  *fresh: nothing was there.
 */
static bool may_write(const char *path, bool force, bool *fresh)
{
	struct stat st;
	char *dir;
	int found = lstat(path, &st), e = found < 0 ? errno : 0;

	*fresh = e == ENOENT;
	if (!strcmp(path, "-"))
		return true;
	if (!(dir = strdup(path)))
		e = ENOMEM;
	else if (*fresh) /* its directory must exist: nothing is created on the way */
		e = stat(dirname(dir), &st) != 0 ? errno : S_ISDIR(st.st_mode) ? 0 : ENOTDIR;
	else if (found == 0 && !force)
		e = EEXIST;
	free(dir);
	if (e == EEXIST)
		fprintf(stderr, "uie key gen: %s: already exists (--force replaces it)\n", path);
	else if (e)
		fprintf(stderr, "uie key gen: %s: %s\n", path, strerror(e));
	return e == 0;
}

/* Whether the files at a and b are one (both exist), or one name in one directory. */
static bool same_file(const char *a, const char *b)
{
	struct stat sa, sb;
	char *da = strdup(a), *db = strdup(b);
	bool same;

	if (stat(a, &sa) == 0 && stat(b, &sb) == 0)
		same = sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
	else
		same = da && db && !strcmp(basename(da), basename(db)) && stat(dirname(da), &sa) == 0 &&
		       stat(dirname(db), &sb) == 0 && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
	free(da);
	free(db);
	return same;
}

/* Whether a and b name one file (or both standard output); says so. */
static bool same_output(const char *a, const char *b)
{
	bool same = !strcmp(a, b) || same_file(a, b);

	if (same)
		fprintf(stderr, "uie key gen: -o and --pub both name %s: the keys need two files\n", a);
	return same;
}

static void usage(FILE *f)
{
	fprintf(f, "usage: uie key gen [--force] -o PRIV.pem --pub PUB.pem\n");
}

int uie_cmd_key_gen(int argc, char **argv)
{
	const char *priv = NULL, *pub = NULL;
	bool force = false, fresh, pub_fresh;
	const struct uie_opt t[] = {
		UIE_OPT_STRING("output", 'o', &priv),
		UIE_OPT_STRING("pub", 'p', &pub),
		UIE_OPT_FLAG("force", 'f', UIE_OPTK_SET, &force),
		UIE_OPT_END,
	};
	const struct uie_opts spec = { .prog = "uie key gen", .opt = t, .usage = usage };
	EVP_PKEY *pk;
	FILE *out;
	char *pub_pem = NULL, *priv_pem = NULL;
	uint8_t id[32];
	size_t pub_len = 0, priv_len = 0;
	int r;

	if ((r = uie_opts_parse(&spec, argc, argv)) != UIE_OPTS_GO)
		return r;
	if (!priv || !pub)
		return uie_opts_usage(&spec);
	if (same_output(priv, pub) || !may_write(priv, force, &fresh) || !may_write(pub, force, &pub_fresh))
		return UIE_EXIT_FAIL;
	if (!(pk = EVP_PKEY_Q_keygen(NULL, NULL, "EC", "P-256"))) {
		fprintf(stderr, "uie key gen: key generation failed\n");
		return UIE_EXIT_FAIL;
	}
	/*
	 * Both encoded before anything is written; the public key written first:
	 * when the private key then cannot be written, the one already there
	 * (--force) is kept, and its public key can be derived from it again; the
	 * other order could lose a private key for good.
	 */
	if ((r = pem_alloc(pk, 0, &pub_pem, &pub_len)) == UIE_OK &&
	    (r = pem_alloc(pk, 1, &priv_pem, &priv_len)) == UIE_OK) {
		if ((r = uie_file_write_output(pub, pub_pem, pub_len, 0644)) != UIE_OK) {
			fprintf(stderr, "uie key gen: %s: %s\n", pub, uie_file_err_str(r));
		} else if ((r = uie_file_write_output(priv, priv_pem, priv_len, 0600)) != UIE_OK) {
			fprintf(stderr, "uie key gen: %s: %s\n", priv, uie_file_err_str(r));
			/* Both keys or neither: a public key without its private one is removed. */
			if (pub_fresh && strcmp(pub, "-") != 0)
				unlink(pub);
			else if (strcmp(pub, "-") != 0)
				fprintf(stderr,
					"uie key gen: %s now holds a public key whose private key was not "
					"written; the private key in %s is unchanged\n",
					pub, priv);
		}
	}
	if (priv_pem)
		OPENSSL_cleanse(priv_pem, priv_len);
	free(priv_pem);
	free(pub_pem);
	if (r == UIE_OK)
		r = uie_pubkey_id(pk, id);
	EVP_PKEY_free(pk);
	if (r == UIE_E_CRYPTO) /* file errors are named above */
		fprintf(stderr, "uie key gen: %s\n", uie_err_str(r));
	if (r != UIE_OK)
		return UIE_EXIT_FAIL;
	/* The key id goes to standard error when a key goes to standard output. */
	out = strcmp(priv, "-") != 0 && strcmp(pub, "-") != 0 ? stdout : stderr;
	fprintf(out, "key id ");
	for (int i = 0; i < 32; i++)
		fprintf(out, "%02x", id[i]);
	fprintf(out, "\n");
	return UIE_EXIT_OK;
}
