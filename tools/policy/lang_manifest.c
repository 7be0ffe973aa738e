/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Reference manifests as policy input (docs/POLICY.md, "Manifests"): each
 * `role=ROLE digest=ALG:HEX path=PATH` line becomes the allow rules of the
 * events through which an object of that role is made executable.
 */
#include "lang.h"

#include <stdlib.h>
#include <string.h>

#include "uie/err.h"

#include "lang_lex.h"

#define MAX_GRANTS 4

/*
 * The (event, role) pairs an object of a manifest role is allowed through
 * (docs/POLICY.md section 2).  A main program may also be named by a "#!"
 * line (then the kernel runs it as the interpreter) and may map its own
 * code again; JIT names a program whose anonymous memory may become
 * executable.
 */
static const struct {
	const char *name;
	struct {
		uint8_t event, role;
	} grants[MAX_GRANTS];
} role_events[] = {
	{ "MAIN",
	  { { UIE_EV_EXECVE, UIE_ROLE_MAIN },
	    { UIE_EV_EXECVE, UIE_ROLE_INTERP },
	    { UIE_EV_MMAP_EXEC, UIE_ROLE_MAIN },
	    { UIE_EV_MPROTECT_EXEC, UIE_ROLE_MAIN } } },
	{ "INTERP", { { UIE_EV_EXECVE, UIE_ROLE_INTERP } } },
	{ "DSO", { { UIE_EV_MMAP_EXEC, UIE_ROLE_DSO }, { UIE_EV_MPROTECT_EXEC, UIE_ROLE_DSO } } },
	{ "FILE", { { UIE_EV_MMAP_EXEC, UIE_ROLE_FILE }, { UIE_EV_MPROTECT_EXEC, UIE_ROLE_FILE } } },
	{ "SCRIPT", { { UIE_EV_EXECVE, UIE_ROLE_SCRIPT } } },
	{ "JIT", { { UIE_EV_MMAP_EXEC, UIE_ROLE_ANON }, { UIE_EV_MPROTECT_EXEC, UIE_ROLE_ANON } } },
};

int uie_lang_is_manifest(const char *text, size_t len)
{
	size_t n = strlen(UIE_MANIFEST_BANNER);

	return text && len >= n && memcmp(text, UIE_MANIFEST_BANNER, n) == 0 && (len == n || text[n] == '\n');
}

static int entry(struct uie_lang_policy *p, const struct lex_line *ln, uint32_t *alg_line,
		 struct uie_lang_err *err)
{
	static const char *const keys[] = { "role", "digest", "path" };
	const struct lex_tok *f[3], *role, *digest, *path;
	struct uie_lang_rule rule = { .line = ln->no };
	unsigned ri = 0;
	uint16_t alg;
	bool twice;
	int r, i;

	if ((i = lex_fields(ln, keys, 3, f, &twice)) >= 0) {
		const struct lex_tok *t = &ln->t[i];

		if (twice)
			return lex_error(err, ln->no, t->col, "'%.*s=' given twice", (int)t->klen, t->key);
		return lex_error(err, ln->no, t->col, "unknown manifest field '%.*s'", (int)t->klen, t->key);
	}
	role = f[0];
	digest = f[1];
	path = f[2];
	if (!role || !digest || !path)
		return lex_error(err, ln->no, ln->end_col, "manifest entry needs role=, digest= and path=");
	while (ri < sizeof(role_events) / sizeof(role_events[0]) &&
	       !lex_is(role->val, role->vlen, role_events[ri].name))
		ri++;
	if (ri == sizeof(role_events) / sizeof(role_events[0]))
		return lex_error(err, ln->no, role->col + 5,
				 "role must be MAIN, INTERP, DSO, FILE, SCRIPT or JIT");
	if ((r = lex_digest(digest, ln->no, &alg, rule.r.digest, err)) != UIE_OK)
		return r;
	if (*alg_line && alg != p->hash_alg)
		return lex_error(err, ln->no, digest->col + 7,
				 "digest algorithm differs from the one on line %u", *alg_line);
	if (!*alg_line) {
		*alg_line = ln->no;
		p->hash_alg = alg;
	}
	rule.r.action = UIE_ALLOW;
	for (int e = 0; e < MAX_GRANTS && role_events[ri].grants[e].event; e++) {
		rule.r.event = role_events[ri].grants[e].event;
		rule.r.role = role_events[ri].grants[e].role;
		if ((r = uie_lang_rule_add(p, &rule)) != UIE_OK)
			return r == UIE_E_LIMIT ? lex_error(err, ln->no, 1, "too many entries") : r;
	}
	return UIE_OK;
}

/* The same object listed under several paths yields the same rules once. */
static void dedupe(struct uie_lang_policy *p)
{
	uint32_t w = 0;

	for (uint32_t i = 0; i < p->nrules; i++)
		if (!w || uie_policy_rule_cmp(&p->rules[w - 1].r, &p->rules[i].r, UIE_DIGEST_MAX) != 0)
			p->rules[w++] = p->rules[i];
	p->nrules = w;
}

static int rule_qcmp(const void *a, const void *b)
{
	const struct uie_lang_rule *x = a, *y = b;

	return uie_policy_rule_cmp(&x->r, &y->r, UIE_DIGEST_MAX);
}

int uie_lang_parse_manifest(const char *text, size_t len, uint8_t mode, uint8_t default_action,
			    struct uie_lang_policy *out, struct uie_lang_err *err)
{
	struct lex_line ln;
	struct lexer lx;
	uint32_t alg_line = 0;
	int r;

	if (!out || !err)
		return UIE_E_INVAL;
	memset(out, 0, sizeof(*out));
	memset(err, 0, sizeof(*err));
	if (!uie_lang_is_manifest(text, len))
		return lex_error(err, 1, 1, "a manifest starts with '%s'", UIE_MANIFEST_BANNER);
	snprintf(out->name, sizeof(out->name), "manifest");
	out->mode = mode;
	out->default_action = default_action;
	out->hash_alg = UIE_HASH_SHA256;
	lex_init(&lx, text, len);
	while ((r = lex_next(&lx, &ln, err)) == 1)
		if (ln.n && (r = entry(out, &ln, &alg_line, err)) != UIE_OK)
			break;
	if (r == UIE_OK && out->nrules > 1) {
		qsort(out->rules, out->nrules, sizeof(*out->rules), rule_qcmp);
		dedupe(out);
	}
	if (r != UIE_OK)
		uie_lang_policy_fini(out);
	return r;
}
