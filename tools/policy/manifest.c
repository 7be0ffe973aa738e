/* SPDX-License-Identifier: Apache-2.0 */
/* Reference manifests, text or JSON, as entries (manifest.h). */
#include "manifest.h"

#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "uie/err.h"

#include "fileio.h"
#include "hex.h"
#include "lang.h"
#include "lang_lex.h"

#define JSON_BANNER "uie reference manifest v1"
#define MAX_MANIFEST (256u << 20)

__attribute__((format(printf, 3, 4))) static int why_set(char *why, size_t cap, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, cap, fmt, ap);
	va_end(ap);
	return UIE_E_FORMAT;
}

int uie_manifest_is_json(const char *text, size_t len)
{
	size_t i = 0;

	while (i < len && (text[i] == ' ' || text[i] == '\t' || text[i] == '\n' || text[i] == '\r'))
		i++;
	return i < len && text[i] == '{';
}

void uie_manifest_fini(struct uie_manifest *m)
{
	if (!m)
		return;
	for (size_t i = 0; i < m->n; i++) {
		free(m->e[i].path);
		free(m->e[i].path_enc);
	}
	free(m->e);
	memset(m, 0, sizeof(*m));
}

char *uie_manifest_path_decode_alloc(const char *src, size_t n)
{
	char *out = malloc(n + 1);
	size_t j = 0;

	if (!out)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		if (src[i] != '%') {
			out[j++] = src[i];
			continue;
		}
		int hi = i + 2 < n ? uie_hex_nibble(src[i + 1]) : -1;
		int lo = i + 2 < n ? uie_hex_nibble(src[i + 2]) : -1;

		if (hi < 0 || lo < 0 || (hi == 0 && lo == 0)) {
			free(out);
			return NULL;
		}
		out[j++] = (char)(hi * 16 + lo);
		i += 2;
	}
	out[j] = '\0';
	return out;
}

/* One entry from its three field values (not NUL-terminated). */
static int add(struct uie_manifest *m, const char *role, size_t rl, const char *digest, size_t dl,
	       const char *path, size_t pl, char *why, size_t cap, const char *where, size_t at)
{
	static const char *const roles[] = { "MAIN", "INTERP", "DSO", "FILE", "SCRIPT", "JIT" };
	struct uie_manifest_entry e = { 0 };
	const char *colon = memchr(digest, ':', dl);
	size_t k, hl;
	bool known = false;

	/* "role=R digest=D path=P" must fit a manifest line for the compiler. */
	if (rl + dl + pl + 20 > UIE_LANG_MAX_LINE)
		return why_set(why, cap, "%s %zu: entry longer than %u bytes", where, at, UIE_LANG_MAX_LINE);
	for (k = 0; k < sizeof(roles) / sizeof(roles[0]); k++)
		known |= strlen(roles[k]) == rl && !memcmp(roles[k], role, rl);
	if (!known)
		return why_set(why, cap, "%s %zu: unknown role '%.*s'", where, at, (int)rl, role);
	memcpy(e.role, role, rl);
	if (!colon)
		return why_set(why, cap, "%s %zu: digest needs ALG:HEX", where, at);
	if ((size_t)(colon - digest) == 6 && !memcmp(digest, "sha256", 6))
		e.digest.alg = UIE_HASH_SHA256;
	else if ((size_t)(colon - digest) == 6 && !memcmp(digest, "sha384", 6))
		e.digest.alg = UIE_HASH_SHA384;
	else
		return why_set(why, cap, "%s %zu: unknown digest algorithm", where, at);
	e.digest.len = (uint8_t)uie_hash_len(e.digest.alg);
	hl = dl - (size_t)(colon + 1 - digest);
	if (uie_hex_decode(colon + 1, hl, e.digest.bytes, e.digest.len) != UIE_OK)
		return why_set(why, cap, "%s %zu: digest needs %u hex digits", where, at, 2u * e.digest.len);
	for (k = 0; k < pl; k++) {
		unsigned char c = (unsigned char)path[k];

		if (c <= 0x20 || c >= 0x7f || c == '#' || c == '"' || c == '\\')
			return why_set(why, cap, "%s %zu: path byte 0x%02x must be percent-encoded", where,
				       at, c);
	}
	if (pl == 0 || !(e.path = uie_manifest_path_decode_alloc(path, pl)))
		return why_set(why, cap, "%s %zu: bad path", where, at);
	if (!(e.path_enc = strndup(path, pl))) {
		free(e.path);
		return UIE_E_NOMEM;
	}
	if (m->n == m->cap) {
		size_t nc = m->cap ? m->cap * 2 : 64;
		struct uie_manifest_entry *ne = realloc(m->e, nc * sizeof(*ne));

		if (!ne) {
			free(e.path);
			free(e.path_enc);
			return UIE_E_NOMEM;
		}
		m->e = ne;
		m->cap = nc;
	}
	m->e[m->n++] = e;
	return UIE_OK;
}

/*
 * The text form, tokenized by the lexer the compiler reads manifests with
 * (lang_lex.c), so that both accept the same lines: every field once, no
 * field but role, digest and path.
 */
static int read_text(const char *text, size_t len, struct uie_manifest *m, char *why, size_t cap)
{
	static const char *const keys[] = { "role", "digest", "path" };
	const struct lex_tok *f[3];
	struct uie_lang_err err = { 0 };
	struct lex_line ln;
	struct lexer lx;
	bool twice;
	int r, i;

	if (!uie_lang_is_manifest(text, len))
		return why_set(why, cap, "line 1: a manifest starts with '%s'", UIE_MANIFEST_BANNER);
	lex_init(&lx, text, len);
	while ((r = lex_next(&lx, &ln, &err)) == 1) {
		if (ln.n == 0)
			continue;
		if ((i = lex_fields(&ln, keys, 3, f, &twice)) >= 0)
			return why_set(why, cap, "line %u: %s '%.*s='", ln.no,
				       twice ? "field given twice:" : "unknown manifest field",
				       (int)ln.t[i].klen, ln.t[i].key);
		if (!f[0] || !f[1] || !f[2])
			return why_set(why, cap, "line %u: an entry needs role=, digest= and path=", ln.no);
		if ((r = add(m, f[0]->val, f[0]->vlen, f[1]->val, f[1]->vlen, f[2]->val, f[2]->vlen, why, cap,
			     "line", ln.no)) != UIE_OK)
			return r;
	}
	return r == 0 ? UIE_OK : why_set(why, cap, "line %u: %s", err.line, err.msg);
}

static int read_json(const char *text, size_t len, struct uie_manifest *m, char *why, size_t cap)
{
	json_error_t jerr;
	json_t *o = json_loadb(text, len, JSON_REJECT_DUPLICATES, &jerr), *ents;
	const char *banner;
	int r = UIE_OK;

	if (!o)
		return why_set(why, cap, "line %d: %s", jerr.line, jerr.text);
	banner = json_string_value(json_object_get(o, "manifest"));
	ents = json_object_get(o, "entries");
	if (!banner || strcmp(banner, JSON_BANNER) != 0 || !json_is_array(ents)) {
		json_decref(o);
		return why_set(why, cap, "not a manifest (needs \"manifest\": \"%s\" and \"entries\")",
			       JSON_BANNER);
	}
	for (size_t i = 0; i < json_array_size(ents) && r == UIE_OK; i++) {
		json_t *e = json_array_get(ents, i);
		json_t *ro = json_object_get(e, "role"), *di = json_object_get(e, "digest"),
		       *pa = json_object_get(e, "path");

		if (!json_is_string(ro) || !json_is_string(di) || !json_is_string(pa))
			r = why_set(why, cap, "entry %zu: needs string role, digest and path", i);
		else
			r = add(m, json_string_value(ro), json_string_length(ro), json_string_value(di),
				json_string_length(di), json_string_value(pa), json_string_length(pa), why,
				cap, "entry", i);
	}
	json_decref(o);
	return r;
}

int uie_manifest_read(const char *text, size_t len, struct uie_manifest *m, char *why, size_t whycap)
{
	int r;

	if (!m || !why || !whycap)
		return UIE_E_INVAL;
	why[0] = '\0';
	if (!text)
		return UIE_E_INVAL;
	if (memchr(text, '\0', len))
		return why_set(why, whycap, "NUL byte in the manifest");
	r = uie_manifest_is_json(text, len) ? read_json(text, len, m, why, whycap)
					    : read_text(text, len, m, why, whycap);
	if (r != UIE_OK)
		uie_manifest_fini(m);
	return r;
}

int uie_manifest_text_alloc(const struct uie_manifest *m, char **out, size_t *len)
{
	char *buf = NULL;
	size_t n = 0;
	FILE *f;

	*out = NULL;
	*len = 0;
	if (!(f = open_memstream(&buf, &n)))
		return UIE_E_NOMEM;
	fprintf(f, "%s\n", UIE_MANIFEST_BANNER);
	for (size_t i = 0; i < m->n; i++) {
		char hex[2 * UIE_DIGEST_MAX + 1];

		uie_hex_encode(hex, m->e[i].digest.bytes, m->e[i].digest.len);
		fprintf(f, "role=%s digest=%s:%s path=%s\n", m->e[i].role,
			uie_lang_hash_name(m->e[i].digest.alg), hex, m->e[i].path_enc);
	}
	if (fclose(f) != 0) {
		free(buf);
		return UIE_E_NOMEM;
	}
	*out = buf;
	*len = n;
	return UIE_OK;
}

static int entry_cmp(const void *a, const void *b)
{
	const struct uie_manifest_entry *x = a, *y = b;
	int c = uie_digest_cmp(&x->digest, &y->digest);

	return c ? c : strcmp(x->path, y->path);
}

void uie_manifest_sort(struct uie_manifest *m)
{
	if (m->n > 1)
		qsort(m->e, m->n, sizeof(*m->e), entry_cmp);
}

long uie_manifest_find(const struct uie_manifest *m, const struct uie_digest *d, size_t *count)
{
	size_t lo = 0, hi = m->n, k;

	*count = 0;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (uie_digest_cmp(&m->e[mid].digest, d) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (k = lo; k < m->n && !uie_digest_cmp(&m->e[k].digest, d); k++)
		(*count)++;
	return *count ? (long)lo : -1;
}

/* Appends the manifest at path to m; says why on stderr on failure. */
int uie_manifest_read_file(const char *cmd, const char *path, struct uie_manifest *m)
{
	char why[256];
	uint8_t *text;
	size_t len;
	int r;

	if ((r = uie_file_read_alloc(path, MAX_MANIFEST, &text, &len)) != UIE_OK) {
		fprintf(stderr, "%s: %s: %s\n", cmd, path, uie_file_err_str(r));
		return r;
	}
	r = uie_manifest_read((const char *)text, len, m, why, sizeof(why));
	free(text);
	if (r == UIE_E_FORMAT)
		fprintf(stderr, "%s: %s: %s\n", cmd, path, why);
	else if (r != UIE_OK)
		fprintf(stderr, "%s: %s: %s\n", cmd, path, uie_err_str(r));
	return r;
}
