/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Reference values for the verifier: the digests of a reference manifest
 * (`uie ref scan` lines "role=R digest=ALG:HEX path=P", or bare
 * "ALG:HEX ..." lines; '#' comments), or of its JSON form (`uie ref scan
 * --json`: the "digest" of every entry), kept sorted for lookup.
 */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "hex.h"
#include "uie/err.h"
#include "verify.h"

static int digest_cmp(const void *a, const void *b)
{
	return uie_digest_cmp(a, b);
}

/* One "ALG:HEX" token of n bytes. */
static int parse_token(const char *t, size_t n, struct uie_digest *d)
{
	size_t pre;

	memset(d, 0, sizeof(*d));
	if (n > 7 && !memcmp(t, "sha256:", 7)) {
		d->alg = UIE_HASH_SHA256;
		pre = 7;
	} else if (n > 7 && !memcmp(t, "sha384:", 7)) {
		d->alg = UIE_HASH_SHA384;
		pre = 7;
	} else {
		return memchr(t, ':', n) ? UIE_E_ALG : UIE_E_FORMAT;
	}
	d->len = (uint8_t)uie_hash_len(d->alg);
	return uie_hex_decode(t + pre, n - pre, d->bytes, d->len);
}

/*
 * The digest of one entry: the `digest=ALG:HEX` token of a `uie ref scan`
 * line (role=... digest=... path=...), else the line's first token.
 */
static int parse_line(const char *l, size_t n, struct uie_digest *d)
{
	size_t t = 0, first_end = 0;

	while (t < n) {
		size_t e = t;

		while (e < n && l[e] != ' ' && l[e] != '\t')
			e++;
		if (!first_end)
			first_end = e;
		if (e - t > 7 && !memcmp(l + t, "digest=", 7))
			return parse_token(l + t + 7, e - t - 7, d);
		t = e;
		while (t < n && (l[t] == ' ' || l[t] == '\t'))
			t++;
	}
	return parse_token(l, first_end, d);
}

static int push(struct uie_refset *s, const struct uie_digest *d)
{
	struct uie_digest *nv;

	if (s->n == s->cap) {
		size_t cap = s->cap ? 2 * s->cap : 64;

		if (!(nv = realloc(s->v, cap * sizeof(*nv))))
			return UIE_E_NOMEM;
		s->v = nv;
		s->cap = cap;
	}
	s->v[s->n++] = *d;
	return UIE_OK;
}

/*
 * The JSON manifest: *line is the 1-based entry at fault, or the line
 * where the document stops being JSON (0: JSON, but not a manifest).
 */
static int parse_json(const char *text, size_t len, struct uie_refset *out, size_t *line)
{
	json_error_t jerr;
	json_t *o = json_loadb(text, len, JSON_REJECT_DUPLICATES, &jerr), *ents;
	int r = UIE_OK;

	if (!o) {
		*line = (size_t)(jerr.line > 0 ? jerr.line : 0);
		return UIE_E_FORMAT;
	}
	ents = json_object_get(o, "entries");
	if (!json_is_string(json_object_get(o, "manifest")) || !json_is_array(ents))
		r = UIE_E_FORMAT;
	for (size_t i = 0; r == UIE_OK && i < json_array_size(ents); i++) {
		json_t *d = json_object_get(json_array_get(ents, i), "digest");
		struct uie_digest dg;

		*line = i + 1;
		if (!json_is_string(d))
			r = UIE_E_FORMAT;
		else if ((r = parse_token(json_string_value(d), json_string_length(d), &dg)) == UIE_OK)
			r = push(out, &dg);
	}
	json_decref(o);
	return r;
}

static bool is_json(const char *text, size_t len)
{
	size_t i = 0;

	while (i < len && (text[i] == ' ' || text[i] == '\t' || text[i] == '\n' || text[i] == '\r'))
		i++;
	return i < len && text[i] == '{';
}

int uie_refset_parse(const char *text, size_t len, struct uie_refset *out, size_t *line)
{
	size_t pos = 0, ln = 0;
	int r = UIE_OK;

	if (line)
		*line = 0;
	if (!out)
		return UIE_E_INVAL;
	memset(out, 0, sizeof(*out));
	if (!text && len)
		return UIE_E_INVAL;
	if (is_json(text, len)) {
		r = parse_json(text, len, out, &ln);
		pos = len; /* the loop below is for the text form */
	}
	while (pos < len && r == UIE_OK) {
		const char *l = text + pos, *nl = memchr(l, '\n', len - pos);
		size_t n = nl ? (size_t)(nl - l) : len - pos, t = 0;
		struct uie_digest d;

		pos += n + (nl ? 1 : 0);
		ln++;
		if (n && l[n - 1] == '\r')
			n--;
		if (memchr(l, '\0', n)) {
			r = UIE_E_FORMAT;
			break;
		}
		while (t < n && (l[t] == ' ' || l[t] == '\t'))
			t++;
		if (t == n || l[t] == '#')
			continue;
		if ((r = parse_line(l + t, n - t, &d)) == UIE_OK)
			r = push(out, &d);
	}
	if (r != UIE_OK) {
		if (line)
			*line = ln;
		uie_refset_fini(out);
		return r;
	}
	if (out->n)
		qsort(out->v, out->n, sizeof(*out->v), digest_cmp);
	return UIE_OK;
}

void uie_refset_fini(struct uie_refset *s)
{
	if (!s)
		return;
	free(s->v);
	memset(s, 0, sizeof(*s));
}

bool uie_refset_has(const struct uie_refset *s, const struct uie_digest *d)
{
	if (!s || !s->n || !d || d->len != uie_hash_len(d->alg))
		return false;
	return bsearch(d, s->v, s->n, sizeof(*s->v), digest_cmp) != NULL;
}
