/* SPDX-License-Identifier: Apache-2.0 */
/*
 * `uie ref scan [--package NAME]... [--jit PROGRAM]... [--json] [-o FILE]
 * [PATH...]`: walks files and directories, and the files Debian packages
 * installed (dpkg's file lists), measures every ELF object and executable
 * "#!" script the way the monitor does (docs/FORMATS.md section 1) and
 * writes a reference manifest of (role, digest, path) for the TTP to
 * review and compile.  Paths are percent-encoded so any byte survives.
 * A file that cannot be read is named on stderr and makes the scan fail:
 * a manifest that silently lacks a program is the problem this avoids.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "uie/err.h"

#include "cmd.h"
#include "host_platform.h"
#include "lang.h"
#include "policy_cmds.h"
#include "scan.h"

#define MAX_ARGS 256

struct scan {
	struct uie_host_platform hp;
	struct uie_scan_walker w;
	FILE *out;
	bool json, progress;
	uint64_t entries, last_ns;
	struct uie_digest last; /* of the last entry, and whether it was a script */
	bool last_script;
};

static void put_path(FILE *f, const char *p)
{
	for (; *p; p++) {
		unsigned char c = (unsigned char)*p;

		if (c <= 0x20 || c >= 0x7f || c == '%' || c == '#' || c == '"' || c == '\\')
			fprintf(f, "%%%02X", c);
		else
			fputc(c, f);
	}
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

	s->last = *d;
	s->last_script = !strcmp(role, "SCRIPT");
	if (s->json)
		fprintf(s->out, "%s\n    {\"role\": \"%s\", \"digest\": \"sha256:", s->entries ? "," : "",
			role);
	else
		fprintf(s->out, "role=%s digest=sha256:", role);
	for (unsigned i = 0; i < d->len; i++)
		fprintf(s->out, "%02x", d->bytes[i]);
	fprintf(s->out, s->json ? "\", \"path\": \"" : " path=");
	put_path(s->out, path);
	fprintf(s->out, s->json ? "\"}" : "\n");
	s->entries++;
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

static int open_output(const char *out, char **tmp, FILE **f)
{
	size_t n = strlen(out) + 16;
	int fd;

	if (!(*tmp = malloc(n)))
		return UIE_E_NOMEM;
	snprintf(*tmp, n, "%s.tmp.XXXXXX", out);
	if ((fd = mkstemp(*tmp)) < 0)
		return UIE_E_IO;
	if (fchmod(fd, 0644) != 0 || !(*f = fdopen(fd, "w"))) {
		close(fd);
		unlink(*tmp);
		return UIE_E_IO;
	}
	return UIE_OK;
}

static int usage(FILE *f)
{
	fprintf(f, "usage: uie ref scan [--package NAME]... [--jit PROGRAM]... [--json] [-o FILE] "
		   "[PATH...]\n");
	return f == stdout ? UIE_EXIT_OK : UIE_EXIT_USAGE;
}

int uie_cmd_ref_scan(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "output", required_argument, NULL, 'o' },
		{ "package", required_argument, NULL, 'P' },
		{ "jit", required_argument, NULL, 'J' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *pkgs[MAX_ARGS], *jits[MAX_ARGS];
	unsigned npkg = 0, njit = 0;
	struct scan s = { 0 };
	const char *out = NULL;
	char *tmp = NULL;
	int c, r = UIE_OK;

	optind = 1;
	while ((c = getopt_long(argc, argv, "jo:h", opts, NULL)) != -1) {
		if (c == 'j')
			s.json = true;
		else if (c == 'o')
			out = optarg;
		else if (c == 'P' && npkg < MAX_ARGS)
			pkgs[npkg++] = optarg;
		else if (c == 'J' && njit < MAX_ARGS)
			jits[njit++] = optarg;
		else
			return usage(c == 'h' ? stdout : stderr);
	}
	if (optind >= argc && !npkg && !njit)
		return usage(stderr);
	if ((r = uie_host_platform_init(&s.hp)) != UIE_OK)
		goto fail;
	s.w = (struct uie_scan_walker){ .pl = &s.hp.pl, .alg = UIE_HASH_SHA256, .ctx = &s,
					.found = found, .unreadable = unreadable, .tick = tick };
	s.out = stdout;
	if (out && (r = open_output(out, &tmp, &s.out)) != UIE_OK) {
		s.out = NULL;
		goto fail;
	}
	s.progress = isatty(STDERR_FILENO) && (out || !isatty(STDOUT_FILENO));
	fputs(s.json ? "{\n  \"manifest\": \"uie reference manifest v1\",\n  \"entries\": [" :
		       UIE_MANIFEST_BANNER "\n", s.out);
	for (unsigned i = 0; i < npkg && r == UIE_OK; i++)
		if ((r = uie_scan_package(&s.w, pkgs[i])) != UIE_OK)
			fprintf(stderr, "uie ref scan: no installed package '%s' (no "
					"/var/lib/dpkg/info/%s.list)\n", pkgs[i], pkgs[i]);
	for (unsigned i = 0; i < njit && r == UIE_OK; i++)
		scan_jit(&s, jits[i]);
	if (r == UIE_OK && optind < argc)
		r = uie_scan_tree(&s.w, argv + optind);
	if (s.json)
		fputs("\n  ]\n}\n", s.out);
	else
		fprintf(s.out, "# %llu objects\n", (unsigned long long)s.w.objects);
	progress(&s, true);
	if (fflush(s.out) != 0 || ferror(s.out))
		r = UIE_E_IO;
	if (s.w.missing)
		fprintf(stderr, "uie ref scan: %llu file(s) the packages list are not installed "
				"(dpkg path-exclude or diversions); not an error\n",
			(unsigned long long)s.w.missing);
	if (r == UIE_OK && s.w.unreadable_count) {
		fprintf(stderr, "uie ref scan: %llu path(s) could not be measured (named above)\n",
			(unsigned long long)s.w.unreadable_count);
		r = UIE_E_IO;
	}
	if (out) {
		if (fclose(s.out) != 0 && r == UIE_OK)
			r = UIE_E_IO;
		s.out = NULL;
		if (r == UIE_OK && rename(tmp, out) != 0)
			r = UIE_E_IO;
	}
fail:
	if (tmp && r != UIE_OK) {
		if (s.out)
			fclose(s.out);
		unlink(tmp);
	}
	free(tmp);
	uie_host_platform_fini(&s.hp);
	if (r != UIE_OK) {
		fprintf(stderr, "uie ref scan: %s\n", uie_err_str(r));
		return UIE_EXIT_FAIL;
	}
	return UIE_EXIT_OK;
}
