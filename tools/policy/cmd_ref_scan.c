/* SPDX-License-Identifier: Apache-2.0 */
/*
 * `uie ref scan PATH... [--json] [-o FILE]`: walks files, measures every
 * ELF object the way the monitor does (docs/FORMATS.md section 1) and
 * writes a reference manifest of (role, digest, path) for the TTP to
 * review and compile.  Paths are percent-encoded so any byte survives.
 */
#include <errno.h>
#include <fcntl.h>
#include <fts.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "uie/err.h"
#include "uie/measure.h"

#include "cmd.h"
#include "host_platform.h"
#include "lang.h"
#include "policy_cmds.h"

#define ET_EXEC_ 2
#define ET_DYN_ 3

struct scan {
	struct uie_host_platform hp;
	FILE *out;
	bool json, progress;
	uint64_t files, objects, skipped;
	uint64_t last_ns;
};

/* The role a TTP most likely means for an object; the manifest is reviewed anyway. */
static uint8_t guess_role(const struct uie_elf_info *info, const char *path)
{
	const char *base = strrchr(path, '/');

	base = base ? base + 1 : path;
	if (!strncmp(base, "ld-linux", 8) || !strncmp(base, "ld64.so", 7) || !strncmp(base, "ld.so", 5) ||
	    !strncmp(base, "ld-musl", 7))
		return UIE_ROLE_INTERP;
	if (info->e_type == ET_DYN_ && strstr(base, ".so"))
		return UIE_ROLE_DSO;
	if (info->e_type == ET_EXEC_ || info->has_interp)
		return UIE_ROLE_MAIN;
	return UIE_ROLE_DSO;
}

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
	fprintf(stderr, "\r\033[Kscanning: %llu files, %llu ELF objects, %llu skipped",
		(unsigned long long)s->files, (unsigned long long)s->objects,
		(unsigned long long)s->skipped);
	if (final)
		fputc('\n', stderr);
}

static void emit(struct scan *s, const char *path, uint8_t role, const struct uie_digest *d)
{
	if (s->json)
		fprintf(s->out, "%s\n    {\"role\": \"%s\", \"digest\": \"sha256:", s->objects ? "," : "",
			uie_lang_role_name(role));
	else
		fprintf(s->out, "role=%s digest=sha256:", uie_lang_role_name(role));
	for (unsigned i = 0; i < d->len; i++)
		fprintf(s->out, "%02x", d->bytes[i]);
	fprintf(s->out, s->json ? "\", \"path\": \"" : " path=");
	put_path(s->out, path);
	fprintf(s->out, s->json ? "\"}" : "\n");
}

/* follow: a symlink named on the command line is scanned as its target. */
static void scan_file(struct scan *s, const char *path, bool follow)
{
	struct uie_host_object ho;
	struct uie_elf_info info;
	struct uie_digest d;
	unsigned char magic[4];
	int fd;

	s->files++;
	if ((fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | (follow ? 0 : O_NOFOLLOW))) < 0)
		goto skipped;
	if (pread(fd, magic, 4, 0) != 4 || memcmp(magic, "\177ELF", 4) != 0) {
		close(fd);
		return; /* not ELF: nothing a manifest lists */
	}
	if (uie_host_object_open(&ho, fd, true, NULL) != UIE_OK) {
		close(fd);
		goto skipped;
	}
	if (uie_elf_measure(&s->hp.pl, &ho.obj, UIE_HASH_SHA256, &info, &d) == UIE_OK && info.nexec) {
		emit(s, path, guess_role(&info, path), &d);
		s->objects++;
	} else {
		s->skipped++; /* relocatable, malformed or without code */
	}
	uie_host_object_close(&ho);
	close(fd);
	return;
skipped:
	s->skipped++;
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
		if (e->fts_info == FTS_F)
			scan_file(s, e->fts_path, e->fts_level == 0);
		else if (e->fts_info == FTS_DNR || e->fts_info == FTS_ERR || e->fts_info == FTS_NS) {
			fprintf(stderr, "%suie ref scan: %s: %s\n", s->progress ? "\n" : "", e->fts_path,
				strerror(e->fts_errno));
			if (e->fts_level == 0)
				r = UIE_E_IO;
		}
		progress(s, false);
	}
	if (errno)
		r = UIE_E_IO; /* fts_read ended on an error, not at the end */
	fts_close(fts);
	return r;
}

int uie_cmd_ref_scan(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "output", required_argument, NULL, 'o' },
		{ NULL, 0, NULL, 0 },
	};
	struct scan s = { 0 };
	const char *out = NULL;
	char *tmp = NULL;
	int c, r, fd = -1;

	optind = 1;
	while ((c = getopt_long(argc, argv, "jo:", opts, NULL)) != -1) {
		if (c == 'j')
			s.json = true;
		else if (c == 'o')
			out = optarg;
		else
			goto usage;
	}
	if (optind >= argc)
		goto usage;
	if ((r = uie_host_platform_init(&s.hp)) != UIE_OK)
		goto fail;
	s.out = stdout;
	if (out) {
		size_t n = strlen(out) + 16;

		r = UIE_E_IO;
		if (!(tmp = malloc(n)))
			goto fail;
		snprintf(tmp, n, "%s.tmp.XXXXXX", out);
		if ((fd = mkstemp(tmp)) < 0 || fchmod(fd, 0644) != 0 || !(s.out = fdopen(fd, "w")))
			goto fail;
		fd = -1;
	}
	s.progress = isatty(STDERR_FILENO) && (out || !isatty(STDOUT_FILENO));
	fputs(s.json ? "{\n  \"manifest\": \"uie reference manifest v1\",\n  \"entries\": [" :
		       UIE_MANIFEST_BANNER "\n", s.out);
	r = walk(&s, argv + optind);
	if (s.json)
		fputs("\n  ]\n}\n", s.out);
	else
		fprintf(s.out, "# %llu objects\n", (unsigned long long)s.objects);
	progress(&s, true);
	if (fflush(s.out) != 0 || ferror(s.out))
		r = UIE_E_IO;
	if (out) {
		if (fclose(s.out) != 0 && r == UIE_OK)
			r = UIE_E_IO;
		s.out = NULL;
		if (r == UIE_OK && rename(tmp, out) != 0)
			r = UIE_E_IO;
	}
fail:
	if (fd >= 0)
		close(fd);
	if (tmp && r != UIE_OK)
		unlink(tmp);
	free(tmp);
	uie_host_platform_fini(&s.hp);
	if (r != UIE_OK) {
		fprintf(stderr, "uie ref scan: %s\n", uie_err_str(r));
		return UIE_EXIT_FAIL;
	}
	return UIE_EXIT_OK;
usage:
	fprintf(stderr, "usage: uie ref scan PATH... [--json] [-o FILE]\n");
	return UIE_EXIT_USAGE;
}
