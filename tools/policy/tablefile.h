/* SPDX-License-Identifier: Apache-2.0 */
/* A policy table read from a table file or from a package (tools only). */
#ifndef UIE_TOOLS_TABLEFILE_H
#define UIE_TOOLS_TABLEFILE_H

#include <stdbool.h>
#include <stdint.h>

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

/*
 * Whether key_path (NULL: nothing to check) holds a usable public key;
 * when not, says why on stderr, for cmd.  Called before loading, so that
 * an unreadable key is named as such.
 */
bool uie_tablefile_key_ok(const char *cmd, const char *key_path);

/* The error of uie_tablefile_load_alloc on stderr, naming path or key_path and why. */
void uie_tablefile_err(const char *cmd, const char *path, const char *key_path, int r);

/* One line on stderr saying whether the signature was checked, for cmd (a review tool). */
void uie_tablefile_note_signature(const char *cmd, const char *key_path, bool is_pkg);

#endif
