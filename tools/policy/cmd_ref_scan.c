/* SPDX-License-Identifier: Apache-2.0 */
/*
 * `uie ref scan [--package NAME]... [--deb FILE.deb]... [--jit PROGRAM]...
 * [--json] [-o FILE] [PATH...]`: walks files and directories, the files
 * Debian packages installed (dpkg's file lists) and the files a package
 * file would install (before it is), measures every ELF object and executable
 * "#!" script the way the monitor does (docs/FORMATS.md section 1) and
 * writes a reference manifest of (role, digest, path) for the TTP to
 * review and compile.  Paths are percent-encoded so any byte survives.
 * A file that cannot be read is named on stderr and makes the scan fail:
 * a manifest that silently lacks a program is the problem this avoids.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "uie/err.h"

#include <jansson.h>

#include "cmd.h"
#include "fileio.h"
#include "hex.h"
#include "host_platform.h"
#include "lang.h"
#include "opts.h"
#include "subcmds.h"
#include "scan.h"

#define MAX_ARGS 256
#define JSON_BANNER "uie reference manifest v1"

/* One manifest entry, kept until the scan ends: nothing is written on error. */
struct entry {
	const char *role; /* static */
	struct uie_digest d;
	char *path;   /* owned */
	size_t order; /* position found, for the output order after folding */
};

struct scan {
	struct uie_host_platform hp;
	struct uie_scan_walker w;
	bool json, progress;
	struct entry *e;
	size_t n, cap;
	bool nomem;
	uint64_t last_ns;
	struct uie_digest last; /* of the last entry, and whether it was a script */
	bool last_script;
};

/* The percent-encoded path (docs/POLICY.md section 2), malloc'ed. */
static char *encode_path(const char *p)
{
	char *out = malloc(3 * strlen(p) + 1), *o = out;

	if (!out)
		return NULL;
	for (; *p; p++) {
		unsigned char c = (unsigned char)*p;

		if (c <= 0x20 || c >= 0x7f || c == '%' || c == '#' || c == '"' || c == '\\')
			o += sprintf(o, "%%%02X", c);
		else
			*o++ = (char)c;
	}
	*o = '\0';
	return out;
}

static void progress(void *ctx, bool final)
{
	struct scan *s = ctx;
	struct timespec ts;
	uint64_t now;

	if (!s->progress)
		return;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	now = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
	if (!final && now - s->last_ns < 100000000u)
		return;
	s->last_ns = now;
	fprintf(stderr, "\r\033[Kscanning: %llu files, %llu objects, %llu skipped",
		(unsigned long long)s->w.files, (unsigned long long)s->w.objects,
		(unsigned long long)s->w.skipped);
	if (final)
		fputc('\n', stderr);
}

/* A line on stderr that the progress line does not overwrite. */
static void complain(void *ctx, const char *path, const char *why)
{
	struct scan *s = ctx;

	fprintf(stderr, "%suie ref scan: %s: %s\n", s->progress ? "\r\033[K" : "", path, why);
}

static void emit(void *ctx, const char *path, const char *role, const struct uie_digest *d)
{
	struct scan *s = ctx;
	struct entry *ne;

	s->last = *d;
	s->last_script = !strcmp(role, "SCRIPT");
	if (s->n == s->cap) {
		size_t cap = s->cap ? 2 * s->cap : 256;

		if (!(ne = realloc(s->e, cap * sizeof(*ne)))) {
			s->nomem = true;
			return;
		}
		s->e = ne;
		s->cap = cap;
	}
	s->e[s->n] = (struct entry){ .role = role, .d = *d, .path = encode_path(path), .order = s->n };
	if (!s->e[s->n].path)
		s->nomem = true;
	else
		s->n++;
}

static void found(void *ctx, const char *path, const char *role, const struct uie_digest *d)
{
	emit(ctx, path, role, d);
}

static void unreadable(void *ctx, const char *path, const char *why)
{
	complain(ctx, path, why);
}

static void tick(void *ctx)
{
	progress(ctx, false);
}

/* --jit PROGRAM: its entry, and a JIT entry for the same digest. */
static void scan_jit(struct scan *s, const char *path)
{
	uint64_t before = s->w.objects, failed = s->w.unreadable_count;

	uie_scan_file(&s->w, path, true);
	if (s->w.unreadable_count != failed)
		return; /* named already */
	if (s->w.objects == before || s->last_script) {
		s->w.unreadable_count++;
		complain(s, path, "--jit needs an ELF program");
		return;
	}
	emit(s, path, "JIT", &s->last);
}

static int by_entry(const void *a, const void *b)
{
	const struct entry *x = a, *y = b;
	int c = strcmp(x->path, y->path);

	if (!c)
		c = strcmp(x->role, y->role);
	if (!c)
		c = memcmp(x->d.bytes, y->d.bytes, sizeof(x->d.bytes));
	return c ? c : x->order < y->order ? -1 : 1;
}

static int by_order(const void *a, const void *b)
{
	const struct entry *x = a, *y = b;

	return x->order < y->order ? -1 : x->order > y->order;
}

/*
 * Folds entries found more than once (a package or path given twice, a
 * file in two packages' lists) into the first, keeping the order found.
 */
static void fold(struct scan *s)
{
	size_t k = 0;

	if (s->n == 0)
		return; /* nothing found (an empty directory): qsort takes no null array */
	qsort(s->e, s->n, sizeof(*s->e), by_entry);
	for (size_t i = 0; i < s->n; i++) {
		if (k && !strcmp(s->e[k - 1].path, s->e[i].path) && !strcmp(s->e[k - 1].role, s->e[i].role) &&
		    !memcmp(s->e[k - 1].d.bytes, s->e[i].d.bytes, sizeof(s->e[i].d.bytes))) {
			free(s->e[i].path);
			continue;
		}
		s->e[k++] = s->e[i];
	}
	s->n = k;
	qsort(s->e, s->n, sizeof(*s->e), by_order);
}

static void digest_text(const struct uie_digest *d, char out[8 + 2 * UIE_DIGEST_MAX + 1])
{
	snprintf(out, 8, "sha256:");
	uie_hex_encode(out + 7, d->bytes, d->len);
}

/* The manifest as text (docs/POLICY.md section 2), malloc'ed. */
static int text_alloc(const struct scan *s, char **out, size_t *len)
{
	char dig[8 + 2 * UIE_DIGEST_MAX + 1];
	uint64_t objects = 0;
	FILE *f = open_memstream(out, len);

	if (!f)
		return UIE_E_NOMEM;
	fprintf(f, "%s\n", UIE_MANIFEST_BANNER);
	for (size_t i = 0; i < s->n; i++) {
		digest_text(&s->e[i].d, dig);
		fprintf(f, "role=%s digest=%s path=%s\n", s->e[i].role, dig, s->e[i].path);
		objects += strcmp(s->e[i].role, "JIT") != 0;
	}
	fprintf(f, "# %llu objects\n", (unsigned long long)objects);
	return fclose(f) == 0 ? UIE_OK : UIE_E_NOMEM;
}

/* The manifest as JSON (the same entries), malloc'ed. */
static int json_alloc(const struct scan *s, char **out, size_t *len)
{
	char dig[8 + 2 * UIE_DIGEST_MAX + 1];
	json_t *arr = json_array(), *root = json_object(), *e;
	int r = arr && root ? UIE_OK : UIE_E_NOMEM;

	for (size_t i = 0; r == UIE_OK && i < s->n; i++) {
		digest_text(&s->e[i].d, dig);
		e = json_pack("{s:s, s:s, s:s}", "role", s->e[i].role, "digest", dig, "path", s->e[i].path);
		if (!e || json_array_append_new(arr, e) != 0)
			r = UIE_E_NOMEM;
	}
	if (r == UIE_OK && (json_object_set_new(root, "manifest", json_string(JSON_BANNER)) != 0 ||
			    json_object_set(root, "entries", arr) != 0))
		r = UIE_E_NOMEM;
	if (r == UIE_OK) {
		FILE *f = open_memstream(out, len);

		if (!f || json_dumpf(root, f, JSON_INDENT(2) | JSON_PRESERVE_ORDER) != 0 ||
		    fputc('\n', f) == EOF)
			r = UIE_E_NOMEM;
		if (f && fclose(f) != 0)
			r = UIE_E_NOMEM;
	}
	json_decref(arr);
	json_decref(root);
	return r;
}

/* Writes the manifest to out (atomically) or stdout; says why it could not. */
static int write_manifest(const struct scan *s, const char *out)
{
	char *buf = NULL;
	size_t len = 0;
	int r = s->json ? json_alloc(s, &buf, &len) : text_alloc(s, &buf, &len);

	if (r == UIE_OK) {
		r = uie_file_write_output(out ? out : "-", buf, len, 0644);
		if (r != UIE_OK)
			fprintf(stderr, "uie ref scan: %s: %s\n", out ? out : "standard output",
				uie_file_err_str(r));
	} else {
		fprintf(stderr, "uie ref scan: %s\n", uie_err_str(r));
	}
	free(buf);
	return r;
}

static void usage(FILE *f)
{
	fprintf(f, "usage: uie ref scan [--package NAME]... [--deb FILE.deb]... [--jit PROGRAM]... [--json] "
		   "[-o FILE] [PATH...]\n");
}

int uie_cmd_ref_scan(int argc, char **argv)
{
	const char *pkgs[MAX_ARGS], *jits[MAX_ARGS], *debs[MAX_ARGS];
	unsigned npkg = 0, njit = 0, ndeb = 0;
	struct scan s = { 0 };
	const char *out = NULL;
	const struct uie_opt t[] = {
		UIE_OPT_FLAG("json", 'j', UIE_OPTK_SET, &s.json),
		UIE_OPT_STRING("output", 'o', &out),
		UIE_OPT_LIST("package", 0, pkgs, &npkg, MAX_ARGS),
		UIE_OPT_LIST("jit", 0, jits, &njit, MAX_ARGS),
		UIE_OPT_LIST("deb", 0, debs, &ndeb, MAX_ARGS),
		UIE_OPT_END,
	};
	const struct uie_opts spec = {
		.prog = "uie ref scan", .opt = t, .usage = usage, .max_operands = UIE_OPTS_ANY
	};
	int r;

	if ((r = uie_opts_parse(&spec, argc, argv)) != UIE_OPTS_GO)
		return r;
	if (optind == argc && !npkg && !njit && !ndeb)
		return uie_opts_usage(&spec);
	if ((r = uie_host_platform_init(&s.hp)) != UIE_OK) {
		fprintf(stderr, "uie ref scan: %s\n", uie_err_str(r));
		return UIE_EXIT_FAIL;
	}
	s.w = (struct uie_scan_walker){ .pl = &s.hp.pl,
					.alg = UIE_HASH_SHA256,
					.ctx = &s,
					.found = found,
					.unreadable = unreadable,
					.tick = tick };
	s.progress = isatty(STDERR_FILENO) && (out || !isatty(STDOUT_FILENO));
	for (unsigned i = 0; i < npkg && r == UIE_OK; i++)
		if ((r = uie_scan_package(&s.w, pkgs[i])) != UIE_OK)
			fprintf(stderr,
				"uie ref scan: no installed package '%s' (no "
				"/var/lib/dpkg/info/%s.list)\n",
				pkgs[i], pkgs[i]);
	for (unsigned i = 0; i < ndeb && r == UIE_OK; i++)
		uie_scan_deb(&s.w, debs[i]);
	for (unsigned i = 0; i < njit && r == UIE_OK; i++)
		scan_jit(&s, jits[i]);
	if (r == UIE_OK && optind < argc)
		r = uie_scan_tree(&s.w, argv + optind);
	progress(&s, true);
	if (s.w.missing)
		fprintf(stderr,
			"uie ref scan: %llu file(s) the packages list are not installed "
			"(dpkg path-exclude or diversions); not an error\n",
			(unsigned long long)s.w.missing);
	if (r == UIE_OK && s.nomem) {
		fprintf(stderr, "uie ref scan: %s\n", uie_err_str(UIE_E_NOMEM));
		r = UIE_E_NOMEM;
	}
	if (r == UIE_OK && s.w.unreadable_count) {
		fprintf(stderr,
			"uie ref scan: %llu path(s) could not be measured (named above); "
			"nothing written\n",
			(unsigned long long)s.w.unreadable_count);
		r = UIE_E_IO;
	}
	if (r == UIE_OK) {
		fold(&s);
		r = write_manifest(&s, out);
	}
	for (size_t i = 0; i < s.n; i++)
		free(s.e[i].path);
	free(s.e);
	uie_host_platform_fini(&s.hp);
	return r == UIE_OK ? UIE_EXIT_OK : UIE_EXIT_FAIL;
}
