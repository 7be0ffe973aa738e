/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The lexical layer of docs/POLICY.md: LF-terminated lines of printable
 * ASCII, fields separated by spaces or tabs, `#` to the end of the line is
 * a comment.  NUL, CR and other control bytes are errors with their
 * position, so a policy reviewed on screen is the policy compiled.
 */
#include "lang_lex.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "hex.h"
#include "uie/err.h"

void lex_init(struct lexer *lx, const char *text, size_t len)
{
	lx->text = text;
	lx->len = text ? len : 0;
	lx->pos = 0;
	lx->line = 0;
}

int lex_error(struct uie_lang_err *err, uint32_t line, uint32_t col, const char *fmt, ...)
{
	va_list ap;

	if (err) {
		err->line = line;
		err->col = col;
		va_start(ap, fmt);
		vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
		va_end(ap);
	}
	return UIE_E_FORMAT;
}

bool lex_is(const char *s, size_t n, const char *word)
{
	return strlen(word) == n && memcmp(s, word, n) == 0;
}

int lex_fields(const struct lex_line *ln, const char *const *keys, unsigned n, const struct lex_tok **f,
	       bool *twice)
{
	for (unsigned k = 0; k < n; k++)
		f[k] = NULL;
	for (unsigned i = 0; i < ln->n; i++) {
		const struct lex_tok *t = &ln->t[i];
		unsigned k = 0;

		while (k < n && !(t->has_eq && lex_is(t->key, t->klen, keys[k])))
			k++;
		if (k == n || f[k]) {
			*twice = k < n;
			return (int)i;
		}
		f[k] = t;
	}
	return -1;
}

static int byte_check(unsigned char c, bool in_comment, uint32_t line, uint32_t col, struct uie_lang_err *err)
{
	if (c == 0)
		return lex_error(err, line, col, "NUL byte");
	if (c == '\r')
		return lex_error(err, line, col, "carriage return (lines must end with LF only)");
	if (c == '\t' || (c >= 0x20 && c < 0x7f) || (in_comment && c >= 0x80))
		return UIE_OK;
	return lex_error(err, line, col, "byte 0x%02x not allowed%s", c,
			 c >= 0x80 ? " outside a comment" : "");
}

int lex_next(struct lexer *lx, struct lex_line *ln, struct uie_lang_err *err)
{
	const char *s;
	size_t n = 0, i = 0;
	bool comment = false;
	int r;

	memset(ln, 0, sizeof(*ln));
	if (lx->pos >= lx->len)
		return 0;
	s = lx->text + lx->pos;
	while (lx->pos + n < lx->len && s[n] != '\n')
		n++;
	ln->no = ++lx->line;
	lx->pos += n + (lx->pos + n < lx->len ? 1 : 0);
	if (n > UIE_LANG_MAX_LINE)
		return lex_error(err, ln->no, UIE_LANG_MAX_LINE + 1, "line longer than %d bytes",
				 UIE_LANG_MAX_LINE);
	for (size_t k = 0; k < n; k++) {
		comment = comment || s[k] == '#';
		if ((r = byte_check((unsigned char)s[k], comment, ln->no, (uint32_t)k + 1, err)) != UIE_OK)
			return r;
	}
	for (size_t k = 0; k < n && s[k] != '#'; k++)
		if (s[k] != ' ' && s[k] != '\t')
			ln->end_col = (uint32_t)k + 2;
	if (!ln->end_col)
		ln->end_col = 1;
	while (i < n && s[i] != '#') {
		struct lex_tok *t;
		size_t start;

		if (s[i] == ' ' || s[i] == '\t') {
			i++;
			continue;
		}
		if (ln->n == LEX_MAX_TOKS)
			return lex_error(err, ln->no, (uint32_t)i + 1, "too many fields on one line");
		t = &ln->t[ln->n++];
		start = i;
		t->key = s + i;
		t->col = (uint32_t)i + 1;
		while (i < n && s[i] != ' ' && s[i] != '\t' && s[i] != '#' && s[i] != '=')
			i++;
		t->klen = i - start;
		if (i < n && s[i] == '=') {
			t->has_eq = true;
			t->val = s + ++i;
			while (i < n && s[i] != ' ' && s[i] != '\t' && s[i] != '#')
				i++;
			t->vlen = (size_t)(s + i - t->val);
			if (!t->klen)
				return lex_error(err, ln->no, t->col, "field has no name before '='");
			if (!t->vlen)
				return lex_error(err, ln->no, t->col, "'%.*s=' has an empty value",
						 (int)t->klen, t->key);
		} else {
			t->val = s + i;
		}
	}
	return 1;
}

int lex_digest(const struct lex_tok *t, uint32_t line, uint16_t *alg, uint8_t *d, struct uie_lang_err *err)
{
	const char *colon = memchr(t->val, ':', t->vlen);
	size_t alen, hlen, dlen;
	uint32_t vcol = t->col + (uint32_t)t->klen + 1;

	if (!colon)
		return lex_error(err, line, vcol, "digest must be ALG:HEX (sha256:... or sha384:...)");
	alen = (size_t)(colon - t->val);
	if (lex_is(t->val, alen, "sha256"))
		*alg = UIE_HASH_SHA256;
	else if (lex_is(t->val, alen, "sha384"))
		*alg = UIE_HASH_SHA384;
	else
		return lex_error(err, line, vcol, "unknown digest algorithm '%.*s'", (int)alen, t->val);
	dlen = uie_hash_len(*alg);
	hlen = t->vlen - alen - 1;
	if (hlen != 2 * dlen)
		return lex_error(err, line, vcol + (uint32_t)alen + 1,
				 "%.*s digest needs %zu hex digits, found %zu", (int)alen, t->val, 2 * dlen,
				 hlen);
	if (uie_hex_decode(colon + 1, hlen, d, dlen) != UIE_OK) {
		size_t bad = 0;

		while (bad < hlen && uie_hex_nibble(colon[1 + bad]) >= 0)
			bad++;
		return lex_error(err, line, vcol + (uint32_t)(alen + 1 + bad), "not a hex digit");
	}
	return UIE_OK;
}
