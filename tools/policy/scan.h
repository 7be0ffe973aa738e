/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Measuring files the way the monitor will (docs/FORMATS.md section 1)
 * and guessing the manifest role each would be asked about in, for one
 * file, a tree, or a Debian package's files: shared by `uie ref scan` and
 * `uie policy check`.  Hosted (tools only).
 */
#ifndef UIE_TOOLS_SCAN_H
#define UIE_TOOLS_SCAN_H

#include <stdbool.h>
#include <stdint.h>

#include "uie/platform.h"
#include "uie/types.h"

enum uie_scan_kind {
	UIE_SCAN_OBJECT = 0, /* *role and *d are set */
	UIE_SCAN_OTHER,      /* neither ELF nor an executable #! script: no entry */
	UIE_SCAN_UNUSABLE,   /* ELF without code, relocatable or malformed: counted as skipped */
};

/*
 * Measures the open regular file fd (named path, for the role guess):
 * ELF objects get their object digest, executable files that start with
 * "#!" their whole-file digest (role SCRIPT).  *kind says which;
 * returns UIE_OK or the I/O error reading it.  alg: the digest algorithm.
 */
int uie_scan_measure(const struct uie_platform *pl, uint16_t alg, int fd, const char *path,
		     enum uie_scan_kind *kind, const char **role, struct uie_digest *d);

/* A walk over files: what it found goes to the callbacks, what it could not read is counted. */
struct uie_scan_walker {
	const struct uie_platform *pl;
	uint16_t alg;
	void *ctx;
	/* An object (role MAIN, INTERP, DSO or SCRIPT). */
	void (*found)(void *ctx, const char *path, const char *role, const struct uie_digest *d);
	/* A path that could not be opened or read, and why. */
	void (*unreadable)(void *ctx, const char *path, const char *why);
	void (*tick)(void *ctx); /* after each file (progress); may be NULL */
	uint64_t files, objects, skipped, unreadable_count, missing;
};

/* A path that cannot be measured: counted, and named through w->unreadable with why. */
void uie_scan_unreadable(struct uie_scan_walker *w, const char *path, const char *why);

/* The open file fd, measured and reported under path (not counted in files: the caller does). */
void uie_scan_fd(struct uie_scan_walker *w, int fd, const char *path);

/* One file; follow: a symlink is followed (one named on the command line). */
void uie_scan_file(struct uie_scan_walker *w, const char *path, bool follow);

/* Files and directories (symlinks inside trees are not followed). UIE_E_IO if the walk broke. */
int uie_scan_tree(struct uie_scan_walker *w, char **roots);

/*
 * The regular files Debian package name installed (dpkg's NAME.list or
 * NAME:ARCH.list); listed files that are gone are counted in missing.
 * UIE_E_IO when no such package is installed.
 */
int uie_scan_package(struct uie_scan_walker *w, const char *name);

/*
 * What Debian package file deb would install, measured without installing
 * it (`dpkg-deb --fsys-tarfile` and `--ctrl-tarfile`, read as streams):
 * every regular file of its data under the path it will have, and every
 * control member dpkg keeps, among them the maintainer scripts, under
 * /var/lib/dpkg/info/PACKAGE.MEMBER.  A corrupt or unreadable package is
 * named through w->unreadable (as deb, with what was wrong).
 */
void uie_scan_deb(struct uie_scan_walker *w, const char *deb);

#endif
