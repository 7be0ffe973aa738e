/* SPDX-License-Identifier: Apache-2.0 */
/* A policy table read from a table file or from a package (tools only). */
#ifndef UIE_TOOLS_TABLEFILE_H
#define UIE_TOOLS_TABLEFILE_H

#include <stdbool.h>
#include <stdint.h>

#include "manifest.h"
#include "uie/package.h"
#include "uie/policy.h"

/*
 * Reads path, a compiled table or a package, into *buf (malloc'ed, owned
 * by the caller); *pol references *buf; *is_pkg says which it was, and
 * then *pkg holds the package's fields (also referencing *buf).  With
 * key_path (the TTP's public key) a package's signature is checked as the
 * monitor checks it: UIE_E_SIGNATURE when it does not verify, UIE_E_KEY
 * when another key signed it or the key file is unusable, UIE_E_FORMAT
 * for a bare table (it carries no signature).  Errors of reading path or
 * key_path leave errno set (uie_file_err_str).
 */
int uie_tablefile_load_alloc(const char *path, const char *key_path, uint8_t **buf, struct uie_policy *pol,
			     struct uie_package *pkg, bool *is_pkg);

/* What the review tools (`policy show`, `policy check`) are given besides the table. */
struct uie_review_args {
	const char *cmd;       /* for messages: "uie policy show" */
	struct uie_manifest m; /* of every --manifest (uie_manifest_fini) */
	bool named;            /* a --manifest was given */
	const char *key;       /* --key: the TTP's public key, or NULL */
	bool json;
};

/* --manifest's call (opts.h): the file's entries onto a->m; UIE_EXIT_FAIL after saying why. */
int uie_review_manifest_option(void *args, const char *path);

/*
 * The review tools' start, after their options parsed with the result
 * parsed (UIE_OPTS_GO or an exit status): checks a->key, sorts a->m and
 * loads path as uie_tablefile_load_alloc does (with a->key), saying on
 * stderr what went wrong or whether the signature was checked.
 * UIE_OPTS_GO, or the exit status with a->m freed.
 */
int uie_review_start_alloc(struct uie_review_args *a, int parsed, const char *path, uint8_t **buf,
			   struct uie_policy *pol, struct uie_package *pkg, bool *is_pkg);

#endif
