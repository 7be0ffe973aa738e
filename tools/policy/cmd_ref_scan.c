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
#include <fts.h>
#include <getopt.h>
#include <glob.h>
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

#define DPKG_INFO "/var/lib/dpkg/info"
#define MAX_ARGS 256

struct scan {
	struct uie_host_platform hp;
	FILE *out;
	bool json, progress;
	uint64_t files, objects, skipped, unreadable, missing;
	uint64_t last_ns;
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

static void progress(struct scan *s, bool final)
{
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
		(unsigned long long)s->files, (unsigned long long)s->objects,
		(unsigned long long)s->skipped);
	if (final)
		fputc('\n', stderr);
}

/* A line on stderr that the progress line does not overwrite. */
static void complain(struct scan *s, const char *path, const char *why)
{
	fprintf(stderr, "%suie ref scan: %s: %s\n", s->progress ? "\r\033[K" : "", path, why);
}

static void emit(struct scan *s, const char *path, const char *role, const struct uie_digest *d)
{
	if (s->json)
		fprintf(s->out, "%s\n    {\"role\": \"%s\", \"digest\": \"sha256:", s->objects ? "," : "",
			role);
	else
		fprintf(s->out, "role=%s digest=sha256:", role);
	for (unsigned i = 0; i < d->len; i++)
		fprintf(s->out, "%02x", d->bytes[i]);
	fprintf(s->out, s->json ? "\", \"path\": \"" : " path=");
	put_path(s->out, path);
	fprintf(s->out, s->json ? "\"}" : "\n");
	s->objects++;
}

/*
 * follow: a symlink named on the command line is scanned as its target.
 * jit: the file must be an ELF program; it gets a JIT entry too.
 */
static void scan_file(struct scan *s, const char *path, bool follow, bool jit)
{
	enum uie_scan_kind kind;
	struct uie_digest d;
	const char *role;
	int fd, r;

	s->files++;
	if ((fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | (follow ? 0 : O_NOFOLLOW))) < 0) {
		s->unreadable++;
		complain(s, path, strerror(errno));
		return;
	}
	r = uie_scan_measure(&s->hp.pl, UIE_HASH_SHA256, fd, path, &kind, &role, &d);
	close(fd);
	if (r != UIE_OK) {
		s->unreadable++;
		complain(s, path, uie_err_str(r));
	} else if (kind == UIE_SCAN_OBJECT) {
		emit(s, path, role, &d);
		if (jit && strcmp(role, "SCRIPT") != 0)
			emit(s, path, "JIT", &d);
	} else if (kind == UIE_SCAN_UNUSABLE) {
		s->skipped++; /* relocatable, malformed or without code */
	}
	if (jit && r == UIE_OK && (kind != UIE_SCAN_OBJECT || !strcmp(role, "SCRIPT"))) {
		s->unreadable++;
		complain(s, path, "--jit needs an ELF program");
	}
}

static int by_name(const FTSENT **a, const FTSENT **b)
{
	return strcmp((*a)->fts_name, (*b)->fts_name);
}

static int walk(struct scan *s, char **roots)
{
	FTS *fts = fts_open(roots, FTS_PHYSICAL | FTS_NOCHDIR | FTS_COMFOLLOW, by_name);
	FTSENT *e;
	int r = UIE_OK;

	if (!fts)
		return UIE_E_IO;
	for (;;) {
		errno = 0;
		if (!(e = fts_read(fts)))
			break;
		if (e->fts_info == FTS_F) {
			scan_file(s, e->fts_path, e->fts_level == 0, false);
		} else if (e->fts_info == FTS_DNR || e->fts_info == FTS_ERR || e->fts_info == FTS_NS) {
			s->unreadable++;
			complain(s, e->fts_path, strerror(e->fts_errno));
		}
		progress(s, false);
	}
	if (errno)
		r = UIE_E_IO; /* fts_read ended on an error, not at the end */
	fts_close(fts);
	return r;
}

/* dpkg's list of a package: NAME.list, or NAME:ARCH.list for a multi-arch one. */
static FILE *open_list(const char *name)
{
	char path[4096];
	glob_t g;
	FILE *f;

	if (!name[0] || strchr(name, '/') || (size_t)snprintf(path, sizeof(path), "%s/%s.list",
							      DPKG_INFO, name) >= sizeof(path))
		return NULL;
	if ((f = fopen(path, "re")) || strchr(name, ':'))
		return f;
	snprintf(path, sizeof(path), "%s/%s:*.list", DPKG_INFO, name);
	if (glob(path, 0, NULL, &g) != 0)
		return NULL;
	f = g.gl_pathc == 1 ? fopen(g.gl_pathv[0], "re") : NULL;
	globfree(&g);
	return f;
}

/*
 * The regular files a package installed.  Directories and symlinks are
 * not objects (a link's target is listed itself); a listed file that is
 * gone (dpkg path-exclude, a diversion) is counted and named with -v, not
 * an error; any other failure to read one is.
 */
static int scan_package(struct scan *s, const char *name)
{
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;
	FILE *f = open_list(name);

	if (!f) {
		fprintf(stderr, "uie ref scan: no installed package '%s' (no %s/%s.list)\n", name,
			DPKG_INFO, name);
		return UIE_E_IO;
	}
	while ((n = getline(&line, &cap, f)) > 0) {
		struct stat st;

		if (line[n - 1] == '\n')
			line[--n] = '\0';
		if (n == 0 || line[0] != '/')
			continue;
		if (lstat(line, &st) != 0) {
			if (errno == ENOENT) {
				s->missing++;
				continue;
			}
			s->unreadable++;
			complain(s, line, strerror(errno));
			continue;
		}
		if (S_ISREG(st.st_mode))
			scan_file(s, line, false, false);
		progress(s, false);
	}
	free(line);
	fclose(f);
	return UIE_OK;
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
	s.out = stdout;
	if (out && (r = open_output(out, &tmp, &s.out)) != UIE_OK) {
		s.out = NULL;
		goto fail;
	}
	s.progress = isatty(STDERR_FILENO) && (out || !isatty(STDOUT_FILENO));
	fputs(s.json ? "{\n  \"manifest\": \"uie reference manifest v1\",\n  \"entries\": [" :
		       UIE_MANIFEST_BANNER "\n", s.out);
	for (unsigned i = 0; i < npkg && r == UIE_OK; i++)
		r = scan_package(&s, pkgs[i]);
	for (unsigned i = 0; i < njit && r == UIE_OK; i++)
		scan_file(&s, jits[i], true, true);
	if (r == UIE_OK && optind < argc)
		r = walk(&s, argv + optind);
	if (s.json)
		fputs("\n  ]\n}\n", s.out);
	else
		fprintf(s.out, "# %llu objects\n", (unsigned long long)s.objects);
	progress(&s, true);
	if (fflush(s.out) != 0 || ferror(s.out))
		r = UIE_E_IO;
	if (s.missing)
		fprintf(stderr, "uie ref scan: %llu file(s) the packages list are not installed "
				"(dpkg path-exclude or diversions); not an error\n",
			(unsigned long long)s.missing);
	if (r == UIE_OK && s.unreadable) {
		fprintf(stderr, "uie ref scan: %llu path(s) could not be measured (named above)\n",
			(unsigned long long)s.unreadable);
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
