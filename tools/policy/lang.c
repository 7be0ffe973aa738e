/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Parser of the policy language (docs/POLICY.md).  Statements:
 *   policy_name=NAME policy_version=MAJOR.MINOR.REV   (first, once)
 *   mode=ENFORCE|MEASURE                                (at most once)
 *   DEFAULT action=ALLOW|DENY                           (once)
 *   trust_fs=KIND                                       (once per KIND)
 *   require=immutable                                   (at most once)
 *   op=EVENT role=ROLE digest=ALG:HEX action=ALLOW|DENY (rules)
 * Every error names the line and column where it was found.
 */
#include "lang.h"

#include <stdlib.h>
#include <string.h>

#include "uie/err.h"
#include "uie/names.h"

#include "lang_lex.h"

struct parse_state {
	struct uie_lang_policy *p;
	struct uie_lang_err *err;
	bool have_header, have_mode, have_default;
	uint32_t mode_line, default_line, alg_line, require_line;
	uint32_t fs_line[UIE_FS__MAX]; /* where each kind was trusted */
};

const char *uie_lang_event_name(uint8_t event)
{
	return uie_event_name(event);
}

const char *uie_lang_role_name(uint8_t role)
{
	return uie_role_name(role);
}

const char *uie_lang_hash_name(uint16_t alg)
{
	return alg == UIE_HASH_SHA256 ? "sha256" : alg == UIE_HASH_SHA384 ? "sha384" : NULL;
}

static uint32_t val_col(const struct lex_tok *t)
{
	return t->col + (uint32_t)t->klen + 1;
}

/* Index of the value in names[0..n), or -1. */
/* The value in [0, n) whose name(value) is t's value, or -1. */
static int lookup(const char *(*name)(unsigned), int n, const struct lex_tok *t)
{
	for (int i = 0; i < n; i++)
		if (name((unsigned)i) && lex_is(t->val, t->vlen, name((unsigned)i)))
			return i;
	return -1;
}

static int action_of(const struct lex_tok *t, uint32_t line, uint8_t *a, struct uie_lang_err *err)
{
	if (lex_is(t->val, t->vlen, "ALLOW"))
		*a = UIE_ALLOW;
	else if (lex_is(t->val, t->vlen, "DENY"))
		*a = UIE_DENY;
	else
		return lex_error(err, line, val_col(t), "action must be ALLOW or DENY, not '%.*s'",
				 (int)t->vlen, t->val);
	return UIE_OK;
}

static int version_of(const struct lex_tok *t, uint32_t line, uint16_t v[3], struct uie_lang_err *err)
{
	size_t i = 0;

	for (int part = 0; part < 3; part++) {
		uint32_t x = 0;
		size_t start = i;

		while (i < t->vlen && t->val[i] >= '0' && t->val[i] <= '9') {
			x = x * 10 + (uint32_t)(t->val[i] - '0');
			if (x > UINT16_MAX)
				return lex_error(err, line, val_col(t) + (uint32_t)start,
						 "version component exceeds %u", UINT16_MAX);
			i++;
		}
		if (i == start || (part < 2 && (i >= t->vlen || t->val[i] != '.')))
			return lex_error(err, line, val_col(t) + (uint32_t)i,
					 "policy_version must be MAJOR.MINOR.REVISION");
		v[part] = (uint16_t)x;
		if (part < 2)
			i++;
	}
	if (i != t->vlen)
		return lex_error(err, line, val_col(t) + (uint32_t)i,
				 "policy_version must be MAJOR.MINOR.REVISION");
	return UIE_OK;
}

static int name_of(const struct lex_tok *t, uint32_t line, char *name, struct uie_lang_err *err)
{
	if (t->vlen > UIE_LANG_MAX_NAME)
		return lex_error(err, line, val_col(t), "policy_name longer than %d characters",
				 UIE_LANG_MAX_NAME);
	for (size_t i = 0; i < t->vlen; i++) {
		char c = t->val[i];

		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		      c == '_' || c == '-' || c == '.'))
			return lex_error(err, line, val_col(t) + (uint32_t)i,
					 "policy_name may only use letters, digits, '_', '-' and '.'");
	}
	memcpy(name, t->val, t->vlen);
	name[t->vlen] = '\0';
	return UIE_OK;
}

static int header(struct parse_state *st, const struct lex_line *ln)
{
	static const char *const keys[] = { "policy_name", "policy_version" };
	const struct lex_tok *f[2], *name, *ver;
	bool twice;
	int r, i;

	if (st->have_header)
		return lex_error(st->err, ln->no, ln->t[0].col, "policy_name given twice");
	if ((i = lex_fields(ln, keys, 2, f, &twice)) >= 0) {
		const struct lex_tok *t = &ln->t[i];

		if (twice)
			return lex_error(st->err, ln->no, t->col, "'%.*s' given twice", (int)t->klen, t->key);
		return lex_error(st->err, ln->no, t->col, "unexpected '%.*s' in the policy_name line",
				 (int)t->klen, t->key);
	}
	name = f[0];
	ver = f[1];
	if (!name)
		return lex_error(st->err, ln->no, ln->t[0].col, "missing policy_name=");
	if (!ver)
		return lex_error(st->err, ln->no, ln->end_col, "missing policy_version=");
	if ((r = name_of(name, ln->no, st->p->name, st->err)) != UIE_OK ||
	    (r = version_of(ver, ln->no, st->p->version, st->err)) != UIE_OK)
		return r;
	st->have_header = true;
	return UIE_OK;
}

/* A KEY= statement that stands alone on its line, once (first_line: where it was, or 0). */
static int alone_once(struct parse_state *st, const struct lex_line *ln, const char *key, unsigned first_line)
{
	if (first_line)
		return lex_error(st->err, ln->no, ln->t[0].col, "%s given twice (first on line %u)", key,
				 first_line);
	if (ln->n > 1)
		return lex_error(st->err, ln->no, ln->t[1].col, "%s= stands alone on its line", key);
	return UIE_OK;
}

static int mode_stmt(struct parse_state *st, const struct lex_line *ln)
{
	const struct lex_tok *t = &ln->t[0];
	int r;

	if ((r = alone_once(st, ln, "mode", st->have_mode ? st->mode_line : 0)) != UIE_OK)
		return r;
	if (lex_is(t->val, t->vlen, "ENFORCE"))
		st->p->mode = UIE_MODE_ENFORCE;
	else if (lex_is(t->val, t->vlen, "MEASURE"))
		st->p->mode = UIE_MODE_MEASURE;
	else
		return lex_error(st->err, ln->no, val_col(t), "mode must be ENFORCE or MEASURE, not '%.*s'",
				 (int)t->vlen, t->val);
	st->have_mode = true;
	st->mode_line = ln->no;
	return UIE_OK;
}

int uie_lang_fs_kind(const char *name, size_t len)
{
	for (unsigned k = 1; k < UIE_FS__MAX; k++)
		if (lex_is(name, len, uie_fs_name(k)))
			return (int)k;
	return -1;
}

/* trust_fs=KIND: files on file systems of that kind may be granted (docs/POLICY.md). */
static int trust_fs_stmt(struct parse_state *st, const struct lex_line *ln)
{
	const struct lex_tok *t = &ln->t[0];
	int k;

	if (ln->n > 1)
		return lex_error(st->err, ln->no, ln->t[1].col, "trust_fs= stands alone on its line");
	if ((k = uie_lang_fs_kind(t->val, t->vlen)) < 0)
		return lex_error(st->err, ln->no, val_col(t),
				 "trust_fs must be fuse, virtiofs, nfs, cifs, 9p, ceph, afs, cluster or "
				 "remote, not '%.*s'",
				 (int)t->vlen, t->val);
	if (st->fs_line[k])
		return lex_error(st->err, ln->no, t->col, "trust_fs=%s given twice (first on line %u)",
				 uie_fs_name((unsigned)k), st->fs_line[k]);
	st->fs_line[k] = ln->no;
	st->p->src.trusted_fs |= 1u << k;
	return UIE_OK;
}

/* require=immutable: every file granted must be an immutable source. */
static int require_stmt(struct parse_state *st, const struct lex_line *ln)
{
	const struct lex_tok *t = &ln->t[0];
	int r;

	if ((r = alone_once(st, ln, "require", st->require_line)) != UIE_OK)
		return r;
	if (!lex_is(t->val, t->vlen, "immutable"))
		return lex_error(st->err, ln->no, val_col(t), "require must be immutable, not '%.*s'",
				 (int)t->vlen, t->val);
	st->require_line = ln->no;
	st->p->src.flags |= UIE_POLICY_REQUIRE_IMMUTABLE;
	return UIE_OK;
}

static int default_stmt(struct parse_state *st, const struct lex_line *ln)
{
	const struct lex_tok *t;

	if (st->have_default)
		return lex_error(st->err, ln->no, ln->t[0].col, "DEFAULT given twice (first on line %u)",
				 st->default_line);
	if (ln->n < 2)
		return lex_error(st->err, ln->no, ln->end_col, "DEFAULT needs action=ALLOW or action=DENY");
	t = &ln->t[1];
	if (t->has_eq && lex_is(t->key, t->klen, "op"))
		return lex_error(st->err, ln->no, t->col, "per-operation defaults are not supported");
	if (!t->has_eq || !lex_is(t->key, t->klen, "action"))
		return lex_error(st->err, ln->no, t->col, "DEFAULT needs action=ALLOW or action=DENY");
	if (ln->n > 2)
		return lex_error(st->err, ln->no, ln->t[2].col, "unexpected field after DEFAULT action=");
	st->have_default = true;
	st->default_line = ln->no;
	return action_of(t, ln->no, &st->p->default_action, st->err);
}

int uie_lang_rule_add(struct uie_lang_policy *p, const struct uie_lang_rule *r)
{
	if (p->nrules == p->cap) {
		uint32_t cap = p->cap ? p->cap * 2 : 64;
		struct uie_lang_rule *n;

		if (p->cap >= UIE_POLICY_MAX_RULES)
			return UIE_E_LIMIT;
		n = realloc(p->rules, (size_t)cap * sizeof(*n));
		if (!n)
			return UIE_E_NOMEM;
		p->rules = n;
		p->cap = cap;
	}
	p->rules[p->nrules++] = *r;
	return UIE_OK;
}

static int rule_stmt(struct parse_state *st, const struct lex_line *ln)
{
	static const char *const keys[] = { "op", "role", "digest", "action" };
	const struct lex_tok *f[4];
	struct uie_lang_rule rule = { .line = ln->no };
	uint16_t alg;
	bool twice;
	int r, v, i;

	if ((i = lex_fields(ln, keys, 4, f, &twice)) >= 0) {
		const struct lex_tok *t = &ln->t[i];

		if (twice)
			return lex_error(st->err, ln->no, t->col, "'%.*s=' given twice in one rule",
					 (int)t->klen, t->key);
		return lex_error(st->err, ln->no, t->col, "unknown field '%.*s' in a rule", (int)t->klen,
				 t->key);
	}
	for (int j = 0; j < 4; j++)
		if (!f[j])
			return lex_error(st->err, ln->no, ln->end_col, "rule is missing %s=", keys[j]);
	if ((v = lookup(uie_event_name, UIE_EV__MAX, f[0])) < 0)
		return lex_error(st->err, ln->no, val_col(f[0]),
				 "op must be EXECVE, MMAP_EXEC or MPROTECT_EXEC, not '%.*s'", (int)f[0]->vlen,
				 f[0]->val);
	rule.r.event = (uint8_t)v;
	if ((v = lookup(uie_role_name, UIE_ROLE__MAX, f[1])) < 0)
		return lex_error(st->err, ln->no, val_col(f[1]),
				 "role must be MAIN, INTERP, DSO, FILE, SCRIPT or ANON, not '%.*s'",
				 (int)f[1]->vlen, f[1]->val);
	rule.r.role = (uint8_t)v;
	/* Rules the monitor could never match are errors, not silent no-ops. */
	if (rule.r.role == UIE_ROLE_SCRIPT && rule.r.event != UIE_EV_EXECVE)
		return lex_error(st->err, ln->no, val_col(f[1]), "role SCRIPT needs op=EXECVE");
	if (rule.r.role == UIE_ROLE_ANON && rule.r.event == UIE_EV_EXECVE)
		return lex_error(st->err, ln->no, val_col(f[1]),
				 "role ANON (a JIT rule) needs op=MMAP_EXEC or op=MPROTECT_EXEC");
	if ((r = lex_digest(f[2], ln->no, &alg, rule.r.digest, st->err)) != UIE_OK ||
	    (r = action_of(f[3], ln->no, &rule.r.action, st->err)) != UIE_OK)
		return r;
	if (st->alg_line && alg != st->p->hash_alg)
		return lex_error(st->err, ln->no, val_col(f[2]),
				 "digest algorithm differs from the one on line %u (one per policy)",
				 st->alg_line);
	if (!st->alg_line) {
		st->alg_line = ln->no;
		st->p->hash_alg = alg;
	}
	if ((r = uie_lang_rule_add(st->p, &rule)) == UIE_E_LIMIT)
		return lex_error(st->err, ln->no, 1, "more than %u rules", UIE_POLICY_MAX_RULES);
	return r;
}

static int statement(struct parse_state *st, const struct lex_line *ln)
{
	const struct lex_tok *t = &ln->t[0];

	if (t->has_eq &&
	    (lex_is(t->key, t->klen, "policy_name") || lex_is(t->key, t->klen, "policy_version")))
		return header(st, ln);
	if (!st->have_header)
		return lex_error(st->err, ln->no, t->col,
				 "a policy starts with policy_name=... policy_version=...");
	if (t->has_eq && lex_is(t->key, t->klen, "mode"))
		return mode_stmt(st, ln);
	if (!t->has_eq && lex_is(t->key, t->klen, "DEFAULT"))
		return default_stmt(st, ln);
	if (t->has_eq && lex_is(t->key, t->klen, "trust_fs"))
		return trust_fs_stmt(st, ln);
	if (t->has_eq && lex_is(t->key, t->klen, "require"))
		return require_stmt(st, ln);
	if (t->has_eq && (lex_is(t->key, t->klen, "op") || lex_is(t->key, t->klen, "role") ||
			  lex_is(t->key, t->klen, "digest") || lex_is(t->key, t->klen, "action")))
		return rule_stmt(st, ln); /* a rule's fields may come in any order */
	if (t->has_eq)
		return lex_error(st->err, ln->no, t->col, "unknown field '%.*s'", (int)t->klen, t->key);
	return lex_error(st->err, ln->no, t->col, "unknown keyword '%.*s'", (int)t->klen, t->key);
}

/* Digest bytes past the algorithm's length are zero, so all of them can be compared. */
static int rule_qcmp(const void *a, const void *b)
{
	const struct uie_lang_rule *x = a, *y = b;
	int c = uie_policy_rule_cmp(&x->r, &y->r, UIE_DIGEST_MAX);

	return c ? c : (x->line > y->line) - (x->line < y->line);
}

int uie_lang_sort(struct uie_lang_policy *p, struct uie_lang_err *err)
{
	size_t dlen = uie_hash_len(p->hash_alg);

	if (p->nrules > 1)
		qsort(p->rules, p->nrules, sizeof(*p->rules), rule_qcmp);
	for (uint32_t i = 1; i < p->nrules; i++)
		if (uie_policy_rule_cmp(&p->rules[i - 1].r, &p->rules[i].r, dlen) == 0)
			return lex_error(err, p->rules[i].line, 1, "duplicate rule (same as line %u)",
					 p->rules[i - 1].line);
	return UIE_OK;
}

void uie_lang_policy_fini(struct uie_lang_policy *p)
{
	if (!p)
		return;
	free(p->rules);
	memset(p, 0, sizeof(*p));
}

int uie_lang_parse(const char *text, size_t len, struct uie_lang_policy *out, struct uie_lang_err *err)
{
	struct parse_state st = { .p = out, .err = err };
	struct lex_line ln;
	struct lexer lx;
	int r;

	if (!out || !err)
		return UIE_E_INVAL;
	memset(out, 0, sizeof(*out));
	memset(err, 0, sizeof(*err));
	out->mode = UIE_MODE_ENFORCE;
	out->hash_alg = UIE_HASH_SHA256;
	lex_init(&lx, text, len);
	while ((r = lex_next(&lx, &ln, err)) == 1)
		if (ln.n && (r = statement(&st, &ln)) != UIE_OK)
			break;
	if (r == UIE_OK && !st.have_header)
		r = lex_error(err, 1, 1, "a policy starts with policy_name=... policy_version=...");
	if (r == UIE_OK && !st.have_default)
		r = lex_error(err, lx.line + 1, 1, "missing DEFAULT action=ALLOW|DENY");
	if (r == UIE_OK)
		r = uie_lang_sort(out, err);
	if (r != UIE_OK)
		uie_lang_policy_fini(out);
	return r;
}
