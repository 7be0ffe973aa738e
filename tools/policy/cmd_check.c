/* SPDX-License-Identifier: Apache-2.0 */
/*
 * `uie policy check [--key PUB] [--manifest MANIFEST]... [--package NAME]...
 * TABLE|PACKAGE [PATH...]`: compares a policy with the files on disk.  Each file the
 * manifests name is measured again (as `uie ref scan` does) and reported
 * when it is gone or unreadable, when it changed since the manifest, or
 * when the policy does not allow what is on disk now in its role ("not
 * covered"); so is every other object found in the packages and under the
 * PATHs that the policy does not allow.  Every digest the policy allows
 * that no file checked has any more is reported ("stale"), with the names
 * the manifests give it.  Exit 0 when nothing is reported, 1 otherwise (as
 * diff), 2 on a bad command line.  With --key a package whose signature
 * does not verify by that key is refused before anything is compared.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "uie/err.h"
#include "uie/package.h"
#include "uie/policy.h"

#include <jansson.h>

#include "cmd.h"
#include "hex.h"
#include "json.h"
#include "host_platform.h"
#include "lang.h"
#include "manifest.h"
#include "opts.h"
#include "subcmds.h"
#include "scan.h"
#include "tablefile.h"

#define MAX_PACKAGES 256

/* The request a file of a manifest role is first asked about in. */
static void primary_grant(const char *role, uint8_t *event, uint8_t *r)
{
	static const struct {
		const char *name;
		uint8_t event, role;
	} map[] = {
		{ "MAIN", UIE_EV_EXECVE, UIE_ROLE_MAIN },     { "INTERP", UIE_EV_EXECVE, UIE_ROLE_INTERP },
		{ "DSO", UIE_EV_MMAP_EXEC, UIE_ROLE_DSO },    { "FILE", UIE_EV_MMAP_EXEC, UIE_ROLE_FILE },
		{ "SCRIPT", UIE_EV_EXECVE, UIE_ROLE_SCRIPT }, { "JIT", UIE_EV_MPROTECT_EXEC, UIE_ROLE_ANON },
	};

	*event = UIE_EV_EXECVE;
	*r = UIE_ROLE_MAIN;
	for (size_t i = 0; i < sizeof(map) / sizeof(map[0]); i++)
		if (!strcmp(map[i].name, role)) {
			*event = map[i].event;
			*r = map[i].role;
		}
}

/* Where findings go: lines on stdout, or (--json) entries of one array. */
struct report {
	json_t *json; /* NULL: text */
	int err;
};

static void digest_text(const struct uie_digest *d, char out[8 + 2 * UIE_DIGEST_MAX + 1])
{
	snprintf(out, 8, "%s:", uie_lang_hash_name(d->alg));
	uie_hex_encode(out + strlen(out), d->bytes, d->len);
}

/*
 * One finding: kind (missing, changed, not-covered, stale), the role and
 * encoded path (NULL for stale), the digests it compares (NULL when none)
 * and a note (why it is missing, what the policy lacks, whose digest).
 */
static void finding(struct report *rp, const char *kind, const char *role, const char *path,
		    const struct uie_digest *was, const struct uie_digest *now, const char *note)
{
	char a[8 + 2 * UIE_DIGEST_MAX + 1] = "", b[8 + 2 * UIE_DIGEST_MAX + 1] = "";
	json_t *f;

	if (was)
		digest_text(was, a);
	if (now)
		digest_text(now, b);
	if (!rp->json) {
		printf("%s", kind);
		if (role)
			printf(" %s %s", role, path);
		if (was && now)
			printf(": manifest %s, on disk %s\n", a, b);
		else if (!role)
			printf(" %s: %s\n", b, note);
		else if (now)
			printf(": %s (%s)\n", b, note);
		else
			printf(": %s\n", note);
		return;
	}
	f = json_pack("{s:s}", "kind", kind);
	if (!f ||
	    (role && (json_object_set_new(f, "role", json_string(role)) != 0 ||
		      json_object_set_new(f, "path", json_string(path)) != 0)) ||
	    (was && json_object_set_new(f, "manifest_digest", json_string(a)) != 0) ||
	    (now && json_object_set_new(f, "digest", json_string(b)) != 0) ||
	    (note && json_object_set_new(f, "note", json_string(note)) != 0) ||
	    json_array_append_new(rp->json, f) != 0)
		rp->err = UIE_E_NOMEM;
}

/* Measures one named file now; 0 when *now is its digest. */
static int measure_now(const struct uie_platform *pl, uint16_t alg, const char *path, struct uie_digest *now,
		       const char **why)
{
	enum uie_scan_kind kind;
	const char *role;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	int r;

	*why = NULL;
	if (fd < 0) {
		*why = "cannot be opened";
		return -1;
	}
	r = uie_scan_measure(pl, alg, fd, path, &kind, &role, now);
	close(fd);
	if (r != UIE_OK)
		*why = uie_err_str(r);
	else if (kind != UIE_SCAN_OBJECT)
		*why = "is no longer an object the monitor measures";
	return *why ? -1 : 0;
}

static int dcmp(const void *a, const void *b)
{
	return memcmp(a, b, sizeof(struct uie_digest));
}

/* What a walk over packages and PATHs needs. */
struct walk_ctx {
	const struct uie_policy *pol;
	const struct uie_manifest *m;
	char **named;            /* the manifests' decoded paths, sorted */
	struct uie_digest *seen; /* digests found (grown) */
	size_t nseen, cap;
	unsigned findings;
	struct report *rp;
	int err;
};

static int pcmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void not_covered(struct report *rp, const char *role, const char *path, const struct uie_digest *d)
{
	char enc[3 * 4096 + 1], *o = enc, note[64];
	uint8_t ev, r;

	primary_grant(role, &ev, &r);
	for (const unsigned char *p = (const unsigned char *)path; *p && o < enc + sizeof(enc) - 4; p++) {
		/* the manifest's encoding */
		if (*p <= 0x20 || *p >= 0x7f || strchr("%#\"\\", *p))
			o += sprintf(o, "%%%02X", *p);
		else
			*o++ = (char)*p;
	}
	*o = '\0';
	snprintf(note, sizeof(note), "op=%s role=%s", uie_lang_event_name(ev), uie_lang_role_name(r));
	finding(rp, "not-covered", role, enc, NULL, d, note);
}

static bool covered(const struct uie_policy *pol, const char *role, const struct uie_digest *d)
{
	uint8_t ev, r, dec;
	uint16_t reason;

	primary_grant(role, &ev, &r);
	uie_policy_lookup(pol, ev, r, d->bytes, &dec, &reason);
	return dec == UIE_ALLOW && reason == UIE_R_RULE_ALLOW;
}

static void walk_found(void *ctx, const char *path, const char *role, const struct uie_digest *d)
{
	struct walk_ctx *w = ctx;

	if (w->nseen == w->cap) {
		size_t cap = w->cap ? 2 * w->cap : 256;
		struct uie_digest *n = realloc(w->seen, cap * sizeof(*n));

		if (!n) {
			w->err = UIE_E_NOMEM;
			return;
		}
		w->seen = n;
		w->cap = cap;
	}
	w->seen[w->nseen++] = *d;
	/* Files the manifests name are checked with their manifest role already. */
	if (w->m->n && bsearch(&path, w->named, w->m->n, sizeof(*w->named), pcmp))
		return;
	if (!covered(w->pol, role, d)) {
		not_covered(w->rp, role, path, d);
		w->findings++;
	}
}

static void walk_unreadable(void *ctx, const char *path, const char *why)
{
	struct walk_ctx *w = ctx;

	finding(w->rp, "missing", "FILE", path, NULL, NULL, why);
	w->findings++;
}

/* Files named by the manifests against the policy; returns the number of findings. */
static unsigned check_files(const struct uie_platform *pl, const struct uie_policy *pol,
			    const struct uie_manifest *m, struct uie_digest *now, struct report *rp)
{
	unsigned findings = 0;

	for (size_t i = 0; i < m->n; i++) {
		const struct uie_manifest_entry *e = &m->e[i];
		const char *why;

		if (measure_now(pl, pol->hash_alg, e->path, &now[i], &why) != 0) {
			finding(rp, "missing", e->role, e->path_enc, NULL, NULL, why);
			memset(&now[i], 0, sizeof(now[i]));
			findings++;
			continue;
		}
		if (e->digest.alg == pol->hash_alg && uie_digest_cmp(&now[i], &e->digest) != 0) {
			finding(rp, "changed", e->role, e->path_enc, &e->digest, &now[i], NULL);
			findings++;
		}
		if (!covered(pol, e->role, &now[i])) {
			not_covered(rp, e->role, e->path, &now[i]);
			findings++;
		}
	}
	return findings;
}

/* ALLOW digests of the policy that no file checked (now[0..n)) has now. */
static unsigned check_rules(const struct uie_policy *pol, const struct uie_manifest *m,
			    struct uie_digest *now, size_t n, struct report *rp)
{
	char note[4200];
	size_t dlen = uie_hash_len(pol->hash_alg);
	unsigned findings = 0;

	qsort(now, n, sizeof(*now), dcmp);
	for (uint32_t i = 0; i < pol->nrules; i++) {
		const uint8_t *q = pol->rules + (size_t)i * pol->rule_len;
		struct uie_digest d = { .alg = pol->hash_alg, .len = (uint8_t)dlen };
		size_t count;
		long first;

		/* Rules sharing a digest are adjacent: report each digest once. */
		const uint8_t *prev = i ? q - pol->rule_len : NULL;

		if (q[2] != UIE_ALLOW || (prev && !memcmp(prev + 4, q + 4, dlen) && prev[2] == UIE_ALLOW))
			continue;
		memcpy(d.bytes, q + 4, dlen);
		if (bsearch(&d, now, n, sizeof(*now), dcmp))
			continue;
		first = uie_manifest_find(m, &d, &count);
		if (first < 0)
			snprintf(note, sizeof(note), "allowed, no manifest names it");
		else
			snprintf(note, sizeof(note), "allowed, no longer the digest of %s%s",
				 m->e[first].path_enc, count > 1 ? " (and others)" : "");
		finding(rp, "stale", NULL, NULL, NULL, &d, note);
		findings++;
	}
	return findings;
}

/* The packages' and PATHs' objects (a walk), then the stale digests of all checked. */
static int check_walk(const struct uie_platform *pl, const struct uie_policy *pol,
		      const struct uie_manifest *m, struct uie_digest *now, const char *const *pkgs,
		      unsigned npkg, char **paths, struct report *rp, unsigned *findings)
{
	struct walk_ctx w = { .pol = pol, .m = m, .rp = rp };
	struct uie_scan_walker sw = {
		.pl = pl, .alg = pol->hash_alg, .ctx = &w, .found = walk_found, .unreadable = walk_unreadable
	};
	struct uie_digest *all;
	int r = UIE_OK;

	if (m->n && !(w.named = calloc(m->n, sizeof(*w.named))))
		return UIE_E_NOMEM;
	for (size_t i = 0; i < m->n; i++)
		w.named[i] = m->e[i].path;
	if (m->n)
		qsort(w.named, m->n, sizeof(*w.named), pcmp);
	for (unsigned i = 0; i < npkg && r == UIE_OK; i++)
		if ((r = uie_scan_package(&sw, pkgs[i])) != UIE_OK)
			fprintf(stderr, "uie policy check: no installed package '%s'\n", pkgs[i]);
	if (r == UIE_OK && paths[0])
		r = uie_scan_tree(&sw, paths);
	if (r == UIE_OK)
		r = w.err;
	if (r == UIE_OK && !(all = calloc(m->n + w.nseen + 1, sizeof(*all))))
		r = UIE_E_NOMEM;
	if (r == UIE_OK) {
		memcpy(all, now, m->n * sizeof(*all));
		if (w.nseen)
			memcpy(all + m->n, w.seen, w.nseen * sizeof(*all));
		*findings = w.findings + check_rules(pol, m, all, m->n + w.nseen, rp);
		free(all);
	}
	free(w.named);
	free(w.seen);
	return r;
}

static void usage(FILE *f)
{
	fprintf(f, "usage: uie policy check [--key PUB] [--json] [--manifest MANIFEST]... "
		   "[--package NAME]... TABLE|PACKAGE [PATH...]\n");
}

int uie_cmd_policy_check(int argc, char **argv)
{
	struct uie_review_args a = { .cmd = "uie policy check" };
	const char *pkgs[MAX_PACKAGES];
	unsigned findings = 0, walked = 0, npkg = 0;
	const struct uie_opt t[] = {
		UIE_OPT_CALL("manifest", 'm', uie_review_manifest_option, &a),
		UIE_OPT_LIST("package", 0, pkgs, &npkg, MAX_PACKAGES),
		UIE_OPT_STRING("key", 0, &a.key),
		UIE_OPT_FLAG("json", 0, UIE_OPTK_SET, &a.json),
		UIE_OPT_END,
	};
	const struct uie_opts spec = {
		.prog = a.cmd, .opt = t, .usage = usage, .min_operands = 1, .max_operands = UIE_OPTS_ANY
	};
	struct uie_host_platform hp;
	struct report rp = { 0 };
	struct uie_digest *now = NULL;
	struct uie_package pkg;
	struct uie_policy pol;
	bool is_pkg;
	uint8_t *buf = NULL;
	int r;

	/* Something to check the policy against: manifests, packages or paths. */
	if ((r = uie_opts_parse(&spec, argc, argv)) == UIE_OPTS_GO && !a.m.n && !npkg && optind == argc - 1)
		r = uie_opts_usage(&spec);
	if ((r = uie_review_start_alloc(&a, r, argv[optind], &buf, &pol, &pkg, &is_pkg)) != UIE_OPTS_GO)
		return r;
	r = UIE_OK;
	if (!(now = calloc(a.m.n ? a.m.n : 1, sizeof(*now))) || (a.json && !(rp.json = json_array())))
		r = UIE_E_NOMEM;
	if (r == UIE_OK && (r = uie_host_platform_init(&hp)) == UIE_OK) {
		findings = check_files(&hp.pl, &pol, &a.m, now, &rp);
		r = check_walk(&hp.pl, &pol, &a.m, now, pkgs, npkg, argv + optind + 1, &rp, &walked);
		findings += walked;
		uie_host_platform_fini(&hp);
		if (r == UIE_OK)
			r = rp.err;
		if (r == UIE_OK && a.json)
			r = uie_json_print(json_pack("{s:o, s:o, s:o, s:O}", "files_named",
						     uie_json_u64(a.m.n), "rules", uie_json_u64(pol.nrules),
						     "count", uie_json_u64(findings), "findings", rp.json));
		if (r == UIE_OK)
			fprintf(stderr, "uie policy check: %zu files named, %u rules: %u finding(s)\n", a.m.n,
				pol.nrules, findings);
	}
	json_decref(rp.json);
	free(now);
	free(buf);
	uie_manifest_fini(&a.m);
	if (r != UIE_OK) {
		fprintf(stderr, "uie policy check: %s\n", uie_err_str(r));
		return UIE_EXIT_FAIL;
	}
	return findings ? UIE_EXIT_FAIL : UIE_EXIT_OK;
}
