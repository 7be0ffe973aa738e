/* SPDX-License-Identifier: Apache-2.0 */
#include "state.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fileio.h"
#include "hex.h"
#include "monitor.h"
#include "uie/err.h"
#include "uie/package.h"

/* What the newest previous run left. */
struct uie_mon_prev {
	uint64_t boot; /* 0: none */
	struct uie_logfile_info info;
	uint8_t *log; /* the log file's bytes (info points in) */
	uint8_t *pkg; /* the package in force, copied out of its packages file */
	size_t pkg_len;
};

static int path_of(char *out, size_t cap, const char *dir, const char *name, uint64_t boot,
		   const char *suffix)
{
	int n = snprintf(out, cap, "%s/%s.%" PRIu64 "%s", dir, name, boot, suffix);

	return n > 0 && (size_t)n < cap ? UIE_OK : UIE_E_LIMIT;
}

/*
 * The directory must be ours and writable by nobody else: its files decide
 * the policy.  It is made if missing, but none of its parents is.
 */
static int open_dir(FILE *diag, const char *dir)
{
	struct stat st;

	if (mkdir(dir, 0700) != 0 && errno != EEXIST) {
		uie_mon_say(diag, "state directory %s: cannot create it: %s", dir, strerror(errno));
		return uie_err_from_errno(errno);
	}
	if (lstat(dir, &st) != 0 || !S_ISDIR(st.st_mode) || st.st_uid != geteuid() || (st.st_mode & 022)) {
		uie_mon_say(diag, "state directory %s: not a directory of ours writable only by us", dir);
		return UIE_E_STATE;
	}
	return UIE_OK;
}

/* One monitor per state directory: the lock is held until the monitor exits. */
static int lock_dir(FILE *diag, struct uie_mon_state *st, const char *dir)
{
	char path[4096];
	int n = snprintf(path, sizeof(path), "%s/lock", dir), r;

	if (n < 0 || (size_t)n >= sizeof(path))
		return UIE_E_LIMIT;
	st->lock_fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (st->lock_fd < 0) {
		uie_mon_say(diag, "%s: %s", path, strerror(errno));
		return uie_err_from_errno(errno);
	}
	if (flock(st->lock_fd, LOCK_EX | LOCK_NB) != 0) {
		r = errno == EWOULDBLOCK ? UIE_E_STATE : uie_err_from_errno(errno);
		uie_mon_say(diag, "state directory %s: %s", dir,
			    r == UIE_E_STATE ? "in use by another monitor" : strerror(errno));
		return r;
	}
	return UIE_OK;
}

/* True for "PREFIX.N" with N decimal digits only (no suffix), N stored in *n. */
static bool run_file(const char *name, const char *prefix, uint64_t *n)
{
	size_t pl = strlen(prefix);

	return strncmp(name, prefix, pl) == 0 && name[pl] == '.' && uie_parse_u64(name + pl + 1, n) == UIE_OK;
}

/* The newest run's number; removes files a start that did not finish left (*.tmp). */
static int newest_run(FILE *diag, const char *dir, uint64_t *boot)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	uint64_t n;

	*boot = 0;
	if (!d) {
		uie_mon_say(diag, "state directory %s: %s", dir, strerror(errno));
		return uie_err_from_errno(errno);
	}
	while ((e = readdir(d))) {
		size_t l = strlen(e->d_name);

		if (l > 4 && !strcmp(e->d_name + l - 4, ".tmp") &&
		    (!strncmp(e->d_name, "log.", 4) || !strncmp(e->d_name, "packages.", 9))) {
			uie_mon_say(diag, "removing %s/%s left by a start that did not finish", dir,
				    e->d_name);
			unlinkat(dirfd(d), e->d_name, 0);
		} else if (run_file(e->d_name, "log", &n) && n > *boot) {
			*boot = n;
		}
	}
	closedir(d);
	return UIE_OK;
}

/* Reads and checks the newest run's log and the package it ended with. */
static int load_prev(const struct uie_platform *pl, FILE *diag, const char *dir, struct uie_mon_prev *p)
{
	char path[4096];
	uint8_t *pk = NULL;
	size_t len, off, plen;
	int r;

	if ((r = newest_run(diag, dir, &p->boot)) != UIE_OK || p->boot == 0)
		return r;
	if ((r = path_of(path, sizeof(path), dir, "log", p->boot, "")) != UIE_OK)
		return r;
	if ((r = uie_file_read_alloc(path, SIZE_MAX / 2, &p->log, &len)) != UIE_OK) {
		uie_mon_say(diag, "%s: cannot read: %s", path, uie_file_err_str(r));
		return r;
	}
	if ((r = uie_logfile_parse(pl, p->log, len, &p->info)) != UIE_OK) {
		uie_mon_say(diag,
			    "%s: damaged at byte %" PRIu64 " (record %" PRIu64 "): %s; refusing to "
			    "start rather than drop records: keep the file as evidence and move it "
			    "aside to start a new history",
			    path, p->info.bad_offset, p->info.hdr.first_seq + p->info.nrecords,
			    uie_err_str(r));
		return r;
	}
	if (p->info.hdr.boot != p->boot) {
		uie_mon_say(diag, "%s: its header says run %" PRIu64, path, p->info.hdr.boot);
		return UIE_E_FORMAT;
	}
	if (!p->info.have_policy)
		return UIE_OK;
	if ((r = path_of(path, sizeof(path), dir, "packages", p->boot, "")) != UIE_OK ||
	    (r = uie_file_read_alloc(path, SIZE_MAX / 2, &pk, &len)) != UIE_OK ||
	    (r = uie_pkgfile_find(pl, pk, len, p->info.policy_id, &off, &plen)) != UIE_OK) {
		uie_mon_say(diag,
			    "%s: the package of the policy in force (epoch %" PRIu64 ") is not "
			    "there: %s; refusing to start in bootstrap",
			    path, p->info.epoch, uie_err_str(r));
		free(pk);
		return r;
	}
	p->pkg = malloc(plen);
	if (p->pkg) {
		memcpy(p->pkg, pk + off, plen);
		p->pkg_len = plen;
	}
	free(pk);
	return p->pkg ? UIE_OK : UIE_E_NOMEM;
}

/* packages.<boot>.tmp with the header and the restored package (pkg, or none), synced. */
static int create_pkgfile(struct uie_mon_state *st, const char *path, const uint8_t *pkg, size_t pkg_len)
{
	uint8_t h[UIE_PKGFILE_HDR_LEN];
	int r;

	st->pkg_fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0600);
	if (st->pkg_fd < 0)
		return uie_err_from_errno(errno);
	uie_pkgfile_hdr(st->boot, h);
	if ((r = uie_fd_write_all(st->pkg_fd, h, sizeof(h))) != UIE_OK)
		return r;
	st->pkg_len = sizeof(h);
	if (pkg && (r = uie_mon_state_persist(st, pkg, pkg_len)) != UIE_OK)
		return r;
	return fsync(st->pkg_fd) == 0 ? UIE_OK : uie_err_from_errno(errno);
}

static int sync_dir(const char *dir)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC), r;

	if (fd < 0)
		return uie_err_from_errno(errno);
	r = fsync(fd) == 0 ? UIE_OK : uie_err_from_errno(errno);
	close(fd);
	return r;
}

/* Starts the core: RESTART linking the previous log, then its policy re-checked. */
static int start_core(struct uie_monitor *m, struct uie_mon_prev *p)
{
	struct uie_log_sink sink = uie_logstore_sink(&m->log);
	struct uie_core_prev prev = { .boot = p->boot };
	int r;

	if (!p->boot)
		return uie_core_init(&m->core, m->pl, &sink, UIE_HASH_SHA256);
	prev.nrecords = p->info.hdr.first_seq + p->info.nrecords;
	memcpy(prev.pcr, p->info.end_pcr, UIE_PCR_LEN);
	if ((r = uie_core_init_restart(&m->core, m->pl, &sink, UIE_HASH_SHA256, &prev)) != UIE_OK)
		return r;
	if (!p->pkg)
		return UIE_OK;
	if ((r = uie_package_restore(&m->core, p->pkg, p->pkg_len, p->info.policy_id, p->info.epoch)) !=
	    UIE_OK) {
		uie_mon_diag(m,
			     "run %" PRIu64 "'s policy (epoch %" PRIu64 ") fails its checks again: "
			     "%s; refusing to start in bootstrap",
			     p->boot, p->info.epoch, uie_err_str(r));
		return r;
	}
	m->pkg = p->pkg;
	m->pkg_len = p->pkg_len;
	p->pkg = NULL;
	return UIE_OK;
}

void uie_mon_state_free(struct uie_mon_state *st)
{
	if (!st)
		return;
	uie_logfile_close(&st->log);
	if (st->pkg_fd >= 0)
		close(st->pkg_fd);
	if (st->lock_fd >= 0)
		close(st->lock_fd);
	if (st->prev) {
		free(st->prev->log);
		free(st->prev->pkg);
		free(st->prev);
	}
	free(st->dir);
	free(st);
}

int uie_mon_state_claim(const char *dir, const struct uie_platform *pl, uint8_t log_sync, FILE *diag,
			struct uie_mon_state **out)
{
	struct uie_mon_state *st;
	int r;

	*out = NULL;
	if (!(st = calloc(1, sizeof(*st))))
		return UIE_E_NOMEM;
	st->pkg_fd = -1;
	st->log_sync = log_sync;
	st->lock_fd = -1;
	st->log.fd = -1;
	if (!(st->dir = strdup(dir)) || !(st->prev = calloc(1, sizeof(*st->prev)))) {
		uie_mon_state_free(st);
		return UIE_E_NOMEM;
	}
	if ((r = open_dir(diag, dir)) != UIE_OK || (r = lock_dir(diag, st, dir)) != UIE_OK ||
	    (r = load_prev(pl, diag, dir, st->prev)) != UIE_OK) {
		uie_mon_state_free(st);
		return r;
	}
	*out = st;
	return UIE_OK;
}

int uie_mon_state_start(struct uie_monitor *m, struct uie_mon_state *st)
{
	struct uie_mon_prev *p = st->prev;
	struct uie_logfile_hdr hdr = { 0 };
	const char *dir = st->dir;
	char lpath[4096], ltmp[4096], ppath[4096], ptmp[4096];
	int r;

	m->state = st;
	st->boot = p->boot + 1;
	m->boot = st->boot;
	if ((r = path_of(lpath, sizeof(lpath), dir, "log", st->boot, "")) != UIE_OK ||
	    (r = path_of(ltmp, sizeof(ltmp), dir, "log", st->boot, ".tmp")) != UIE_OK ||
	    (r = path_of(ppath, sizeof(ppath), dir, "packages", st->boot, "")) != UIE_OK ||
	    (r = path_of(ptmp, sizeof(ptmp), dir, "packages", st->boot, ".tmp")) != UIE_OK)
		goto out;
	hdr.flags = uie_logstore_is_first_seen(&m->log) ? UIE_LOGFILE_FIRST_SEEN : 0;
	hdr.boot = st->boot;
	memcpy(hdr.boot_id, m->boot_id, UIE_BOOT_ID_LEN);
	if ((r = uie_logfile_create(ltmp, &hdr, st->log_sync == UIE_LOG_SYNC_ALWAYS, &st->log)) != UIE_OK) {
		uie_mon_diag(m, "%s: %s", ltmp, uie_file_err_str(r));
		goto out;
	}
	uie_logstore_set_file(&m->log, &st->log);
	if ((r = start_core(m, p)) != UIE_OK)
		goto out;
	/* The packages file first: a log.N always has its packages.N. */
	if ((r = uie_logfile_sync(&st->log)) != UIE_OK ||
	    (r = create_pkgfile(st, ptmp, m->pkg, m->pkg_len)) != UIE_OK || rename(ptmp, ppath) != 0 ||
	    rename(ltmp, lpath) != 0 || (r = sync_dir(dir)) != UIE_OK) {
		r = r != UIE_OK ? r : uie_err_from_errno(errno);
		uie_mon_diag(m, "state directory %s: cannot commit run %" PRIu64 ": %s", dir, st->boot,
			     uie_file_err_str(r));
		goto out;
	}
	if (p->boot)
		uie_mon_diag(m, "run %" PRIu64 " continues run %" PRIu64 " (%" PRIu64 " records%s)", st->boot,
			     p->boot, p->info.hdr.first_seq + p->info.nrecords,
			     m->core.have_policy ? ", its policy restored" : ", bootstrap");
out:
	free(p->log);
	free(p->pkg);
	free(p);
	st->prev = NULL;
	return r;
}

int uie_mon_state_persist(struct uie_mon_state *st, const uint8_t *pkg, size_t len)
{
	uint8_t h[UIE_PKGFILE_ENTRY_HDR_LEN];
	int r;

	if (st->pkg_fd < 0)
		return st->err = UIE_E_STATE;
	uie_pkgfile_entry_hdr((uint32_t)len, h);
	if ((r = uie_fd_write_all(st->pkg_fd, h, sizeof(h))) != UIE_OK ||
	    (r = uie_fd_write_all(st->pkg_fd, pkg, len)) != UIE_OK ||
	    (fdatasync(st->pkg_fd) != 0 && (r = uie_err_from_errno(errno)) != UIE_OK)) {
		/* Cut a partial entry back: the file stays readable for the next start. */
		if (ftruncate(st->pkg_fd, (off_t)st->pkg_len) != 0) {
			close(st->pkg_fd); /* a partial entry stays: no more appends */
			st->pkg_fd = -1;
		}
		return st->err = r;
	}
	st->pkg_len += sizeof(h) + len;
	return UIE_OK;
}

int uie_mon_state_sync_policy(struct uie_mon_state *st)
{
	int r;

	if (st->log_sync != UIE_LOG_SYNC_POLICY)
		return UIE_OK;
	if ((r = uie_logfile_sync(&st->log)) != UIE_OK)
		st->err = r;
	return r;
}
