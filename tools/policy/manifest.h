/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Reference manifests as data (docs/POLICY.md section 2), in either form
 * `uie ref scan` writes (text, or --json): entries of (role, digest,
 * path) for `policy show` names, `policy check` and `policy compile`.
 * Hosted (tools only).
 */
#ifndef UIE_TOOLS_MANIFEST_H
#define UIE_TOOLS_MANIFEST_H

#include <stddef.h>
#include <stdint.h>

#include "uie/types.h"

#define UIE_MANIFEST_ROLE_MAX 8

struct uie_manifest_entry {
	char role[UIE_MANIFEST_ROLE_MAX + 1]; /* MAIN, INTERP, DSO, FILE, SCRIPT, JIT */
	struct uie_digest digest;
	char *path;     /* decoded (owned) */
	char *path_enc; /* as written: percent-encoded (owned) */
};

struct uie_manifest {
	struct uie_manifest_entry *e; /* owned */
	size_t n, cap;
};

/* True when text is a JSON manifest (starts with '{' after white space). */
int uie_manifest_is_json(const char *text, size_t len);

/*
 * Reads a text or JSON manifest and appends its entries to *m (zeroed,
 * or holding earlier manifests' entries; free with uie_manifest_fini).
 * On error, why[] says what and where (line for text, entry index for
 * JSON) and *m is emptied.
 * Return: UIE_OK, UIE_E_FORMAT, UIE_E_ALG, UIE_E_NOMEM.
 */
int uie_manifest_read(const char *text, size_t len, struct uie_manifest *m, char *why, size_t whycap);

void uie_manifest_fini(struct uie_manifest *m);

/* Reads the manifest file at path (text or JSON) onto m; says why on stderr, as cmd. */
int uie_manifest_read_file(const char *cmd, const char *path, struct uie_manifest *m);

/* The text form of m (banner, one line per entry); *out malloc'ed, NUL-terminated. */
int uie_manifest_text_alloc(const struct uie_manifest *m, char **out, size_t *len);

/* Sorts the entries by digest (then path), for uie_manifest_find. */
void uie_manifest_sort(struct uie_manifest *m);

/* Index of the first entry of a sorted m with this digest (and *count of them); -1 if none. */
long uie_manifest_find(const struct uie_manifest *m, const struct uie_digest *d, size_t *count);

/* Percent-decodes src into a new string (NULL on a bad escape, an encoded NUL, or no memory). */
char *uie_manifest_path_decode_alloc(const char *src, size_t n);

#endif
