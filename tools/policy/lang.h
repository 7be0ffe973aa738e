/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The policy language of docs/POLICY.md (IPE style) and the reference
 * manifest of `uie ref scan`: parsing into rules, compiling to the binary
 * table of include/uie/policy.h, and printing a table back as text that
 * compiles to the same bytes.  Hosted (tools only).
 */
#ifndef UIE_TOOLS_LANG_H
#define UIE_TOOLS_LANG_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "uie/policy.h"

#define UIE_LANG_MAX_LINE 4096
#define UIE_LANG_MAX_NAME 64

struct uie_lang_rule {
	struct uie_policy_rule r;
	uint32_t line; /* where it was written (0 when generated) */
};

struct uie_lang_policy {
	char name[UIE_LANG_MAX_NAME + 1];
	uint16_t version[3];
	uint8_t mode; /* UIE_MODE_ENFORCE unless mode= says otherwise */
	uint8_t default_action;
	uint16_t hash_alg;             /* of every digest; SHA-256 when there are no rules */
	struct uie_policy_sources src; /* trust_fs=, require=immutable */
	struct uie_lang_rule *rules;   /* owned; canonical order after parsing */
	uint32_t nrules, cap;
};

/* Where and why parsing failed: line and column are 1-based (bytes). */
struct uie_lang_err {
	uint32_t line, col;
	char msg[160];
};

/*
 * Parses policy text (need not be NUL-terminated; a NUL byte is an error).
 * On success *out holds sorted, duplicate-free rules (free with
 * uie_lang_policy_fini); on failure *err says where, *out is empty.
 * Return: UIE_OK, UIE_E_FORMAT (a language error), UIE_E_LIMIT, UIE_E_NOMEM.
 */
int uie_lang_parse(const char *text, size_t len, struct uie_lang_policy *out, struct uie_lang_err *err);

/*
 * Parses a reference manifest (the text form written by `uie ref scan`)
 * into allow rules for the roles it lists, with the given mode and default.
 * Same return values and ownership as uie_lang_parse.
 */
int uie_lang_parse_manifest(const char *text, size_t len, uint8_t mode, uint8_t default_action,
			    struct uie_lang_policy *out, struct uie_lang_err *err);

/* True when text starts like a manifest (its first line is the manifest banner). */
int uie_lang_is_manifest(const char *text, size_t len);

void uie_lang_policy_fini(struct uie_lang_policy *p);

/* Appends a copy of r to p's rules: UIE_E_LIMIT past UIE_POLICY_MAX_RULES, UIE_E_NOMEM. */
int uie_lang_rule_add(struct uie_lang_policy *p, const struct uie_lang_rule *r);

/*
 * Sorts p's rules into canonical order; two equal rules are a UIE_E_FORMAT
 * error naming both lines.  Digest bytes past the algorithm's length must be zero.
 */
int uie_lang_sort(struct uie_lang_policy *p, struct uie_lang_err *err);

/* Encodes p as a policy table; *out is malloc'ed and owned by the caller. */
int uie_lang_compile_alloc(const struct uie_lang_policy *p, uint8_t **out, size_t *outlen);

/* Prints a loaded table in the language; compiling the text yields the same table. */
int uie_lang_print(FILE *f, const struct uie_policy *pol, const char *name);

/*
 * The same, with a comment after each rule: what note(ctx, digest) returns
 * for its digest (NULL: none).  The text must be a comment's: no LF.
 */
int uie_lang_print_noted(FILE *f, const struct uie_policy *pol, const char *name,
			 const char *(*note)(void *ctx, const uint8_t *digest), void *ctx);

/*
 * The file system kind (enum uie_fs_kind) trust_fs= names, or -1: one of
 * uie_fs_name's names (uie/names.h).
 */
int uie_lang_fs_kind(const char *name, size_t len);

/* Keyword tables shared by the parser, the printer and the manifest. */
const char *uie_lang_event_name(uint8_t event);
const char *uie_lang_role_name(uint8_t role);
const char *uie_lang_hash_name(uint16_t alg);

/* The manifest's first line. */
#define UIE_MANIFEST_BANNER "# uie reference manifest v1"

#endif
