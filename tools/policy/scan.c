/* SPDX-License-Identifier: Apache-2.0 */
/* Files measured for a manifest (scan.h). */
#include "scan.h"

#include <errno.h>
#include <fcntl.h>
#include <fts.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "uie/err.h"
#include "uie/measure.h"

#include "host_platform.h"

#define DPKG_INFO "/var/lib/dpkg/info"
#define ET_EXEC_ 2
#define ET_DYN_ 3

/*
 * The role a TTP most likely means for an object; the manifest is reviewed
 * anyway.  A static-pie program (ldconfig, uie) is ET_DYN without
 * PT_INTERP like a library: it is told by its execute bit and a name
 * without ".so".
 */
static const char *guess_role(const struct uie_elf_info *info, const char *path, mode_t mode)
{
	const char *base = strrchr(path, '/');

	base = base ? base + 1 : path;
	if (!strncmp(base, "ld-linux", 8) || !strncmp(base, "ld64.so", 7) || !strncmp(base, "ld.so", 5) ||
	    !strncmp(base, "ld-musl", 7))
		return "INTERP";
	if (info->e_type == ET_DYN_ && strstr(base, ".so"))
		return "DSO";
	if (info->e_type == ET_EXEC_ || info->has_interp || (mode & 0111))
		return "MAIN";
	return "DSO";
}

int uie_scan_measure(const struct uie_platform *pl, uint16_t alg, int fd, const char *path,
		     enum uie_scan_kind *kind, const char **role, struct uie_digest *d)
{
	struct uie_host_object ho;
	struct uie_elf_info info;
	unsigned char magic[4];
	struct stat st;
	ssize_t n;
	int r;

	*kind = UIE_SCAN_OTHER;
	*role = NULL;
	memset(d, 0, sizeof(*d));
	if (fstat(fd, &st) != 0 || (n = pread(fd, magic, sizeof(magic), 0)) < 0)
		return UIE_E_IO;
	if (!S_ISREG(st.st_mode))
		return UIE_OK;
	/* A script is only run by execve when it may be executed: others are data. */
	if (n >= 2 && magic[0] == '#' && magic[1] == '!' && (st.st_mode & 0111)) {
		if ((r = uie_host_object_open(&ho, fd, true, NULL)) != UIE_OK)
			return r;
		r = uie_range_measure(pl, &ho.obj, alg, 0, ho.obj.size, d);
		uie_host_object_close(&ho);
		if (r == UIE_OK) {
			*kind = UIE_SCAN_OBJECT;
			*role = "SCRIPT";
		}
		return r;
	}
	if (n != 4 || memcmp(magic, "\177ELF", 4) != 0)
		return UIE_OK;
	if ((r = uie_host_object_open(&ho, fd, true, NULL)) != UIE_OK)
		return r;
	if (uie_elf_measure(pl, &ho.obj, alg, &info, d) == UIE_OK && info.nexec) {
		*kind = UIE_SCAN_OBJECT;
		*role = guess_role(&info, path, st.st_mode);
	} else {
		*kind = UIE_SCAN_UNUSABLE;
		memset(d, 0, sizeof(*d));
	}
	uie_host_object_close(&ho);
	return UIE_OK;
}

void uie_scan_unreadable(struct uie_scan_walker *w, const char *path, const char *why)
{
	w->unreadable_count++;
	w->unreadable(w->ctx, path, why);
}

void uie_scan_fd(struct uie_scan_walker *w, int fd, const char *path)
{
	enum uie_scan_kind kind;
	struct uie_digest d;
	const char *role;
	int r = uie_scan_measure(w->pl, w->alg, fd, path, &kind, &role, &d);

	if (r != UIE_OK) {
		uie_scan_unreadable(w, path, uie_err_str(r));
	} else if (kind == UIE_SCAN_OBJECT) {
		w->objects++;
		w->found(w->ctx, path, role, &d);
	} else if (kind == UIE_SCAN_UNUSABLE) {
		w->skipped++; /* relocatable, malformed or without code */
	}
}

void uie_scan_file(struct uie_scan_walker *w, const char *path, bool follow)
{
	int fd;

	w->files++;
	if ((fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | (follow ? 0 : O_NOFOLLOW))) < 0) {
		uie_scan_unreadable(w, path, strerror(errno));
		return;
	}
	uie_scan_fd(w, fd, path);
	close(fd);
}

static int by_name(const FTSENT **a, const FTSENT **b)
{
	return strcmp((*a)->fts_name, (*b)->fts_name);
}

int uie_scan_tree(struct uie_scan_walker *w, char **roots)
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
			uie_scan_file(w, e->fts_path, e->fts_level == 0);
		else if (e->fts_info == FTS_DNR || e->fts_info == FTS_ERR || e->fts_info == FTS_NS)
			uie_scan_unreadable(w, e->fts_path, strerror(e->fts_errno));
		if (w->tick)
			w->tick(w->ctx);
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

	if (!name[0] || strchr(name, '/') ||
	    (size_t)snprintf(path, sizeof(path), "%s/%s.list", DPKG_INFO, name) >= sizeof(path))
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
 * Directories and symlinks are not objects (a link's target is listed
 * itself); a listed file that is gone (dpkg path-exclude, a diversion) is
 * counted, not an error; any other failure to read one is.
 */
int uie_scan_package(struct uie_scan_walker *w, const char *name)
{
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;
	FILE *f = open_list(name);

	if (!f)
		return UIE_E_IO;
	while ((n = getline(&line, &cap, f)) > 0) {
		struct stat st;

		if (line[n - 1] == '\n')
			line[--n] = '\0';
		if (n == 0 || line[0] != '/')
			continue;
		if (lstat(line, &st) != 0) {
			if (errno == ENOENT)
				w->missing++;
			else
				uie_scan_unreadable(w, line, strerror(errno));
			continue;
		}
		if (S_ISREG(st.st_mode))
			uie_scan_file(w, line, false);
		if (w->tick)
			w->tick(w->ctx);
	}
	free(line);
	fclose(f);
	return UIE_OK;
}
