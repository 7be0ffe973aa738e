/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A Debian package file measured as it will be installed, without
 * installing it (scan.h, uie_scan_deb): dpkg-deb, which knows every .deb
 * format and compressor, unpacks the data and control archives to pipes;
 * debtar.h reads them; each regular member goes to a memfd with its mode
 * and is measured there as uie_scan_file would measure it on disk.
 */
#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "uie/err.h"

#include "debtar.h"
#include "fileio.h"
#include "scan.h"

#define DPKG_INFO "/var/lib/dpkg/info"
#define CONTROL_MAX (1u << 20) /* bytes of the control file */
#define CONTROL_MEMBERS 32     /* maintainer scripts, md5sums, triggers, shlibs, ... */
#define PKG_NAME_MAX 128
#define MEMBER_MAX (2ull << 30) /* bytes of one object measured in a memfd */

/* A control member measured before the package's name (in "control", in any order) is known. */
struct ctl_member {
	char name[64];
	const char *role;
	struct uie_digest d;
};

struct deb_scan {
	struct uie_scan_walker *w;
	const char *deb;
	char pkg[PKG_NAME_MAX + 1]; /* "NAME" or "NAME:ARCH" (Multi-Arch: same), as dpkg names its files */
	struct ctl_member ctl[CONTROL_MEMBERS];
	size_t nctl;
};

/* The package named with what is wrong ("WHAT: DETAIL", or WHAT alone). */
static void bad(struct deb_scan *s, const char *what, const char *detail)
{
	char msg[512];

	snprintf(msg, sizeof(msg), "%s%s%s", what, detail ? ": " : "", detail ? detail : "");
	uie_scan_unreadable(s->w, s->deb, msg);
}

/* dpkg-deb OPTION DEB with its stdout on *fd; the child's pid, or -1 (named). */
static pid_t spawn_dpkg_deb(struct deb_scan *s, const char *option, int *fd)
{
	char arg[4096];
	char *argv[] = { "dpkg-deb", (char *)option, arg, NULL };
	posix_spawn_file_actions_t fa;
	int p[2], e;
	pid_t pid = -1;

	/* dpkg-deb takes no "--": a name starting with '-' is given as ./NAME. */
	if ((size_t)snprintf(arg, sizeof(arg), "%s%s", s->deb[0] == '-' ? "./" : "", s->deb) >= sizeof(arg)) {
		bad(s, "path too long", NULL);
		return -1;
	}
	if (pipe2(p, O_CLOEXEC) != 0) {
		bad(s, "pipe", strerror(errno));
		return -1;
	}
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, p[1], STDOUT_FILENO);
	e = posix_spawnp(&pid, "dpkg-deb", &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	close(p[1]);
	if (e != 0) {
		close(p[0]);
		bad(s, e == ENOENT ? "dpkg-deb (package dpkg)" : "dpkg-deb", strerror(e));
		return -1;
	}
	*fd = p[0];
	return pid;
}

/* Reads the rest of the stream if drain, so that dpkg-deb ends normally; its exit status (-1: killed). */
static int finish_dpkg_deb(pid_t pid, int fd, bool drain)
{
	char buf[8192];
	ssize_t k;
	int st;

	while (drain && ((k = read(fd, buf, sizeof(buf))) > 0 || (k < 0 && errno == EINTR)))
		;
	close(fd); /* after an error: dpkg-deb ends on SIGPIPE */
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/*
 * The member's data in a memfd with its mode (head: its first nhead bytes,
 * read already), or a negative error (the reader's: in t->why).
 */
static int member_fd(struct deb_scan *s, struct uie_tar *t, const struct uie_tar_entry *e,
		     const uint8_t *head, size_t nhead)
{
	int fd, r;

	if (e->size > MEMBER_MAX) {
		char size[64];

		snprintf(size, sizeof(size), "%llu bytes, more than is measured in memory",
			 (unsigned long long)e->size);
		bad(s, e->path, size);
		return UIE_E_LIMIT;
	}
	if ((fd = memfd_create("uie-deb-member", MFD_CLOEXEC)) < 0) {
		bad(s, "memfd_create", strerror(errno));
		return UIE_E_SYS;
	}
	if ((r = uie_fd_write_all(fd, head, nhead)) != UIE_OK) {
		bad(s, "writing a memfd", strerror(errno));
	} else if ((r = uie_tar_copy(t, fd)) == UIE_OK && fchmod(fd, e->mode & 0777) != 0) {
		/* The mode matters: a #! script is an object only when it may be executed. */
		bad(s, "fchmod of a memfd", strerror(errno));
		r = UIE_E_SYS;
	}
	if (r != UIE_OK) {
		close(fd);
		return r;
	}
	return fd;
}

/* The value of field name in the control file text (NUL-terminated), or NULL. */
static const char *control_field(const char *text, const char *name, size_t *len)
{
	size_t n = strlen(name);

	for (const char *l = text; l; l = strchr(l, '\n'), l = l ? l + 1 : NULL) {
		if (!strncmp(l, name, n) && l[n] == ':') {
			const char *v = l + n + 1;

			v += strspn(v, " \t");
			*len = strcspn(v, " \t\n");
			return v;
		}
	}
	return NULL;
}

static bool all_of(const char *v, size_t n, const char *set)
{
	return strspn(v, set) >= n;
}

/* s->pkg from the control file: Package (":" Architecture for Multi-Arch: same). */
static int read_control(struct deb_scan *s, int fd)
{
	static const char name_chars[] = "abcdefghijklmnopqrstuvwxyz0123456789+-.";
	const char *name, *arch, *ma;
	size_t nlen = 0, alen = 0, malen = 0, len;
	uint8_t *raw = NULL;
	char *text;
	int r;

	if (lseek(fd, 0, SEEK_SET) != 0 || uie_fd_read_alloc(fd, CONTROL_MAX, &raw, &len) != UIE_OK) {
		bad(s, "the control file", strerror(errno));
		return UIE_E_IO;
	}
	if (!(text = realloc(raw, len + 1))) {
		free(raw);
		bad(s, uie_err_str(UIE_E_NOMEM), NULL);
		return UIE_E_NOMEM;
	}
	text[len] = '\0';
	name = control_field(text, "Package", &nlen);
	arch = control_field(text, "Architecture", &alen);
	ma = control_field(text, "Multi-Arch", &malen);
	r = UIE_OK;
	if (!name || !nlen || nlen + 1 + alen > PKG_NAME_MAX || !all_of(name, nlen, name_chars)) {
		bad(s, "the control file has no valid Package field", NULL);
		r = UIE_E_FORMAT;
	} else if (ma && malen == 4 && !strncmp(ma, "same", 4) && arch && alen &&
		   all_of(arch, alen, name_chars)) {
		snprintf(s->pkg, sizeof(s->pkg), "%.*s:%.*s", (int)nlen, name, (int)alen, arch);
	} else {
		snprintf(s->pkg, sizeof(s->pkg), "%.*s", (int)nlen, name);
	}
	free(text);
	return r;
}

/* One control member: "control" names the package; any other is measured, named later. */
static int control_member(struct deb_scan *s, struct uie_tar *t, const struct uie_tar_entry *e)
{
	const char *base = e->path + 1;
	enum uie_scan_kind kind;
	struct ctl_member *m;
	int fd, r;

	if (e->type != UIE_TAR_FILE || !*base)
		return UIE_OK;
	if (strchr(base, '/') || strlen(base) >= sizeof(m->name)) {
		bad(s, "unexpected control member", e->path);
		return UIE_E_FORMAT;
	}
	if (s->nctl == CONTROL_MEMBERS) {
		bad(s, "more control members than dpkg uses", NULL);
		return UIE_E_LIMIT;
	}
	if ((fd = member_fd(s, t, e, NULL, 0)) < 0)
		return fd;
	s->w->files++;
	m = &s->ctl[s->nctl];
	if (!strcmp(base, "control")) {
		r = read_control(s, fd);
	} else if ((r = uie_scan_measure(s->w->pl, s->w->alg, fd, base, &kind, &m->role, &m->d)) != UIE_OK) {
		bad(s, base, uie_err_str(r));
	} else if (kind == UIE_SCAN_OBJECT) {
		snprintf(m->name, sizeof(m->name), "%s", base);
		s->nctl++;
	} else if (kind == UIE_SCAN_UNUSABLE) {
		s->w->skipped++;
	}
	close(fd);
	return r;
}

static int data_member(struct deb_scan *s, struct uie_tar *t, const struct uie_tar_entry *e)
{
	uint8_t head[4];
	int fd, n;

	/* A hard link names a file the archive held before: its digest is listed under that name. */
	if (e->type != UIE_TAR_FILE)
		return UIE_OK;
	s->w->files++;
	if ((n = uie_tar_read(t, head, sizeof(head))) < 0)
		return n;
	/*
	 * Only what could be an object is measured (uie_scan_measure decides): an ELF file or an
	 * executable #! script.  The rest of the data (documentation, images) is skipped unread.
	 */
	if (!(n == 4 && !memcmp(head, "\177ELF", 4)) &&
	    !(n >= 2 && head[0] == '#' && head[1] == '!' && (e->mode & 0111)))
		return UIE_OK;
	if ((fd = member_fd(s, t, e, head, (size_t)n)) < 0)
		return fd;
	uie_scan_fd(s->w, fd, e->path);
	close(fd);
	if (s->w->tick)
		s->w->tick(s->w->ctx);
	return UIE_OK;
}

/* Every member of dpkg-deb OPTION's archive through each(); what went wrong is named. */
static int read_archive(struct deb_scan *s, const char *option,
			int (*each)(struct deb_scan *, struct uie_tar *, const struct uie_tar_entry *))
{
	struct uie_tar_entry e;
	struct uie_tar t;
	char msg[384];
	int fd, r, st;
	pid_t pid = spawn_dpkg_deb(s, option, &fd);

	if (pid < 0)
		return UIE_E_SYS;
	uie_tar_init(&t, fd);
	while ((r = uie_tar_next(&t, &e)) == 1 && (r = each(s, &t, &e)) == UIE_OK)
		;
	st = finish_dpkg_deb(pid, fd, r == 0);
	if (st != 0 && (r == 0 || r == UIE_E_TRUNCATED)) {
		/* dpkg-deb has named the cause on stderr (not a Debian archive, corrupt compressed data). */
		snprintf(msg, sizeof(msg), "dpkg-deb %s failed (%s %d)", option,
			 st < 0 ? "killed, status" : "exit", st);
		uie_scan_unreadable(s->w, s->deb, msg);
		return UIE_E_FORMAT;
	}
	if (r < 0 && t.why[0]) {
		snprintf(msg, sizeof(msg), "dpkg-deb %s: %s", option, t.why);
		uie_scan_unreadable(s->w, s->deb, msg);
	}
	return r < 0 ? r : UIE_OK;
}

void uie_scan_deb(struct uie_scan_walker *w, const char *deb)
{
	struct deb_scan s = { .w = w, .deb = deb };
	char path[sizeof(DPKG_INFO) + PKG_NAME_MAX + 66];
	int fd = open(deb, O_RDONLY | O_CLOEXEC | O_NONBLOCK);

	/* The system's error for a file that cannot be read, before dpkg-deb says it its way. */
	if (fd < 0) {
		bad(&s, strerror(errno), NULL);
		return;
	}
	close(fd);
	if (read_archive(&s, "--ctrl-tarfile", control_member) != UIE_OK)
		return;
	if (!s.pkg[0]) {
		bad(&s, "no control file in the control archive", NULL);
		return;
	}
	if (read_archive(&s, "--fsys-tarfile", data_member) != UIE_OK)
		return;
	for (size_t i = 0; i < s.nctl; i++) {
		snprintf(path, sizeof(path), "%s/%s.%s", DPKG_INFO, s.pkg, s.ctl[i].name);
		w->objects++;
		w->found(w->ctx, path, s.ctl[i].role, &s.ctl[i].d);
	}
}
