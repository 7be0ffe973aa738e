/* SPDX-License-Identifier: Apache-2.0 */
/* Table or package file to a loaded table (tablefile.h). */
#include "tablefile.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "uie/err.h"

#include "cmd.h"
#include "fileio.h"
#include "opts.h"
#include "host_platform.h"
#include "pubkey.h"

/* Parses a package and, with key_path, checks its signature by that key. */
static int package_load(const uint8_t *buf, size_t len, const char *key_path, struct uie_package *pkg)
{
	struct uie_host_platform hp;
	uint8_t id[UIE_SHA256_LEN];
	int r;

	if ((r = uie_host_platform_init(&hp)) != UIE_OK)
		return r;
	r = uie_package_parse(&hp.pl, buf, len, pkg);
	if (r == UIE_OK && key_path && (r = uie_host_platform_add_key_file(&hp, key_path, id)) == UIE_OK)
		r = memcmp(id, pkg->key_id, sizeof(id)) ? UIE_E_KEY
		    : hp.pl.verify(hp.pl.ctx, pkg->key_id, pkg->package_hash, UIE_SHA256_LEN, pkg->sig,
				   pkg->sig_len) == UIE_OK
			    ? UIE_OK
			    : UIE_E_SIGNATURE;
	uie_host_platform_fini(&hp);
	return r;
}

int uie_tablefile_load_alloc(const char *path, const char *key_path, uint8_t **buf, struct uie_policy *pol,
			     struct uie_package *pkg, bool *is_pkg)
{
	const uint8_t *table;
	size_t len, tlen;
	int r;

	*is_pkg = false;
	if ((r = uie_file_read_alloc(path, UIE_PACKAGE_MAX_LEN, buf, &len)) != UIE_OK)
		return r;
	table = *buf;
	tlen = len;
	if (len >= 8 && !memcmp(*buf, UIE_PACKAGE_MAGIC, 8)) {
		if ((r = package_load(*buf, len, key_path, pkg)) == UIE_OK) {
			*is_pkg = true;
			table = pkg->table;
			tlen = pkg->table_len;
		}
	} else if (key_path) {
		r = UIE_E_FORMAT;
	}
	if (r == UIE_OK)
		r = uie_policy_load(table, tlen, pol);
	if (r != UIE_OK) {
		free(*buf);
		*buf = NULL;
	}
	return r;
}

/* Whether key_path (NULL: nothing to check) holds a usable public key; else says why, for cmd. */
static bool key_ok(const char *cmd, const char *key_path)
{
	EVP_PKEY *pk;
	int r;

	if (!key_path)
		return true;
	if ((r = uie_pubkey_read_alloc(key_path, &pk)) != UIE_OK) {
		fprintf(stderr, "%s: key %s: %s\n", cmd, key_path,
			r == UIE_E_KEY ? "not a PEM or DER public key" : uie_file_err_str(r));
		return false;
	}
	EVP_PKEY_free(pk);
	return true;
}

/* The error of uie_tablefile_load_alloc on stderr, naming path or key_path and why. */
static void load_err(const char *cmd, const char *path, const char *key_path, int r)
{
	if (key_path && r == UIE_E_SIGNATURE)
		fprintf(stderr,
			"%s: %s: the signature does not verify with %s (altered after "
			"signing?)\n",
			cmd, path, key_path);
	else if (key_path && r == UIE_E_KEY)
		fprintf(stderr, "%s: %s: signature not by %s (or the key is unusable)\n", cmd, path,
			key_path);
	else if (key_path && r == UIE_E_FORMAT)
		fprintf(stderr,
			"%s: %s: not a signed package (a bare table has no signature to "
			"check)\n",
			cmd, path);
	else
		fprintf(stderr, "%s: %s: %s\n", cmd, path, uie_file_err_str(r));
}

/* One line on stderr saying whether the signature was checked, for cmd. */
static void note_signature(const char *cmd, const char *key_path, bool is_pkg)
{
	if (!is_pkg)
		fprintf(stderr, "%s: a bare table: no signature\n", cmd);
	else if (!key_path)
		fprintf(stderr, "%s: signature not checked (give the TTP's public key with --key)\n", cmd);
}

int uie_review_manifest_option(void *args, const char *path)
{
	struct uie_review_args *a = args;

	a->named = true;
	return uie_manifest_read_file(a->cmd, path, &a->m) == UIE_OK ? UIE_OPTS_GO : UIE_EXIT_FAIL;
}

int uie_review_start_alloc(struct uie_review_args *a, int parsed, const char *path, uint8_t **buf,
			   struct uie_policy *pol, struct uie_package *pkg, bool *is_pkg)
{
	int r = UIE_E_KEY;

	/* The key first, so that an unreadable one is named as such. */
	if (parsed == UIE_OPTS_GO && key_ok(a->cmd, a->key) &&
	    (r = uie_tablefile_load_alloc(path, a->key, buf, pol, pkg, is_pkg)) != UIE_OK)
		load_err(a->cmd, path, a->key, r);
	if (parsed != UIE_OPTS_GO || r != UIE_OK) {
		uie_manifest_fini(&a->m);
		return parsed != UIE_OPTS_GO ? parsed : UIE_EXIT_FAIL;
	}
	uie_manifest_sort(&a->m);
	note_signature(a->cmd, a->key, *is_pkg);
	return UIE_OPTS_GO;
}
