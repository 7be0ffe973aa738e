/* SPDX-License-Identifier: Apache-2.0 */
/* Line splitting and tokenizing shared by the policy and manifest parsers. */
#ifndef UIE_TOOLS_LANG_LEX_H
#define UIE_TOOLS_LANG_LEX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lang.h"

#define LEX_MAX_TOKS 8

/* One `key=value` token (or a bare word, has_eq false, val empty). */
struct lex_tok {
	const char *key, *val;
	size_t klen, vlen;
	uint32_t col;
	bool has_eq;
};

struct lex_line {
	uint32_t no;      /* 1-based line number */
	uint32_t end_col; /* column just past the last character (for "missing" errors) */
	struct lex_tok t[LEX_MAX_TOKS];
	unsigned n; /* 0 for blank and comment-only lines */
};

struct lexer {
	const char *text;
	size_t len, pos;
	uint32_t line;
};

void lex_init(struct lexer *lx, const char *text, size_t len);

/*
 * Next line into *ln.  Return: 1 when a line was read, 0 at the end,
 * UIE_E_FORMAT with *err filled on a byte or length the language forbids.
 */
int lex_next(struct lexer *lx, struct lex_line *ln, struct uie_lang_err *err);

/* Fills *err (always returns UIE_E_FORMAT). */
int lex_error(struct uie_lang_err *err, uint32_t line, uint32_t col, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

bool lex_is(const char *s, size_t n, const char *word);

/*
 * Binds the `key=value` tokens of ln to keys[0..n): f[k] is the token of
 * key keys[k], NULL when the line has none.  Returns -1 when every token
 * names one of keys, each once; otherwise the index in ln->t of the first
 * token that names none (*twice false) or repeats one (*twice true), for
 * the caller's error.
 */
int lex_fields(const struct lex_line *ln, const char *const *keys, unsigned n, const struct lex_tok **f,
	       bool *twice);

/* `sha256:HEX` / `sha384:HEX` into d; UIE_E_FORMAT with *err on failure. */
int lex_digest(const struct lex_tok *t, uint32_t line, uint16_t *alg, uint8_t *d, struct uie_lang_err *err);

#endif
