/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The source of a granted file (fstrust.h).  One fstatfs names the file
 * system by its magic; only for FUSE (which virtiofs shares) and for
 * read-only mounts is the mount table read, for the mount's type and its
 * superblock's options: a read-only bind mount of a file system mounted
 * writable elsewhere is not immutable, and neither is an overlay (its
 * lower layers can be written beside it).  fs-verity is read from statx
 * (STATX_ATTR_VERITY, set by the VFS, not the file system's ioctl, which a
 * FUSE daemon would answer itself).
 */
#include "fstrust.h"

#include <fcntl.h>
#include <linux/magic.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "mountinfo.h"
#include "uie/err.h"
#include "uie/sys.h"
#include "uie/types.h"

/* Whether the comma-separated options list opts (n bytes) holds "ro". */
static bool has_ro(const char *opts, size_t n)
{
	for (size_t i = 0; i + 2 <= n; i++)
		if ((i == 0 || opts[i - 1] == ',') && !strncmp(opts + i, "ro", 2) &&
		    (i + 2 == n || opts[i + 2] == ','))
			return true;
	return false;
}

struct mount_info {
	uint8_t kind; /* of its type */
	bool ro;      /* the mount and its superblock read-only */
};

/* What mount mnt_id is, as pid's mountinfo says. */
static bool mount_of(pid_t pid, uint64_t mnt_id, struct mount_info *mi)
{
	char *line = uie_guest_mountinfo_line_dup(pid, mnt_id), type[64];
	const char *opts, *super, *t;
	size_t nopts, nsuper, nt;
	bool found = line && uie_guest_mountinfo_field(line, UIE_MI_OPTIONS, &opts, &nopts) == UIE_OK &&
		     uie_guest_mountinfo_field(line, UIE_MI_TYPE, &t, &nt) == UIE_OK &&
		     uie_guest_mountinfo_field(line, UIE_MI_SUPER, &super, &nsuper) == UIE_OK &&
		     uie_guest_mountinfo_unescape(t, nt, type, sizeof(type)) == UIE_OK;

	if (found) {
		mi->kind = uie_sys_fs_kind_of_type(type);
		mi->ro = has_ro(opts, nopts) && has_ro(super, nsuper);
	}
	free(line);
	return found;
}

/* The inode of pid's mount namespace (0 when it cannot be read). */
static uint64_t mnt_ns_of(pid_t pid)
{
	char path[40];
	struct stat st;

	snprintf(path, sizeof(path), "/proc/%d/ns/mnt", (int)pid);
	return stat(path, &st) == 0 ? (uint64_t)st.st_ino : 0;
}

/* Forgets the lines kept. */
static void drop_lines(struct uie_mounts *mc)
{
	for (unsigned i = 0; i < mc->nlines; i++)
		free(mc->line[i].line);
	mc->nlines = mc->next_line = 0;
}

/*
 * Whether what mc keeps of our own mount table may be used: the table
 * watched from the first use, and emptied when it changed since the last
 * look.
 */
static bool table_kept(struct uie_mounts *mc)
{
	struct pollfd pfd;

	if (mc->watch == -1) {
		mc->ns = mnt_ns_of(getpid());
		mc->watch = mc->ns ? open("/proc/self/mountinfo", O_RDONLY | O_CLOEXEC) : -1;
		if (mc->watch < 0)
			mc->watch = -2;
	}
	if (mc->watch < 0)
		return false;
	pfd = (struct pollfd){ .fd = mc->watch, .events = POLLPRI };
	if (poll(&pfd, 1, 0) != 0) { /* a change (or an error): nothing kept is known to hold */
		mc->n = mc->next = 0;
		drop_lines(mc);
	}
	return true;
}

/*
 * Whether mc may answer for pid.  A target in another mount namespace (its
 * mount IDs are not ours, and its changes are not polled here) is always
 * looked up in its own table.
 */
static bool cache_usable(struct uie_mounts *mc, pid_t pid)
{
	return table_kept(mc) && mnt_ns_of(pid) == mc->ns;
}

const char *uie_guest_own_mount_line(struct uie_mounts *mc, uint64_t mnt_id)
{
	bool kept = table_kept(mc);
	struct uie_mount_line *l;
	char *line;

	for (unsigned i = 0; kept && i < mc->nlines; i++)
		if (mc->line[i].mnt_id == mnt_id)
			return mc->line[i].line;
	if (!(line = uie_guest_mountinfo_line_dup(0, mnt_id)))
		return NULL;
	/* Kept even unwatched (-2), as the only one: valid until the next call, as promised. */
	if (!kept)
		drop_lines(mc);
	l = &mc->line[mc->next_line];
	if (mc->next_line < mc->nlines)
		free(l->line);
	*l = (struct uie_mount_line){ .mnt_id = mnt_id, .line = line };
	mc->next_line = (mc->next_line + 1) % UIE_MOUNT_LINES;
	if (mc->nlines < UIE_MOUNT_LINES)
		mc->nlines++;
	return line;
}

/* Mount mnt_id (of a file on device dev) as pid's table says, through mc when it may. */
static bool mount_lookup(struct uie_mounts *mc, pid_t pid, bool tree_mounts, uint64_t mnt_id, uint64_t dev,
			 struct mount_info *mi)
{
	bool cached = !tree_mounts && cache_usable(mc, pid);
	struct uie_mount_seen *e;

	for (unsigned i = 0; cached && i < mc->n; i++)
		if (mc->e[i].mnt_id == mnt_id && mc->e[i].dev == dev) {
			*mi = (struct mount_info){ .kind = mc->e[i].kind, .ro = mc->e[i].ro };
			return true;
		}
	if (!mount_of(pid, mnt_id, mi))
		return false;
	if (cached) {
		e = &mc->e[mc->next];
		*e = (struct uie_mount_seen){ .mnt_id = mnt_id, .dev = dev, .kind = mi->kind, .ro = mi->ro };
		mc->next = (mc->next + 1) % UIE_MOUNTS_CACHED;
		if (mc->n < UIE_MOUNTS_CACHED)
			mc->n++;
	}
	return true;
}

void uie_guest_mounts_release(struct uie_mounts *mc)
{
	drop_lines(mc);
	if (mc->watch >= 0)
		close(mc->watch);
	mc->watch = -2;
	mc->n = 0;
}

void uie_guest_fs_source(struct uie_mounts *mc, int fd, const struct stat *st, pid_t pid, bool tree_mounts,
			 struct uie_fs_source *out)
{
	struct mount_info mi;
	struct statfs sfs;
	struct statx sx;
	bool mounted;

	out->kind = UIE_FS_LOCAL;
	out->immutable = out->overlay = false;
	if (st->st_nlink == 0) { /* only sealed memfds get here (fileless ones are ANON) */
		out->immutable = true;
		return;
	}
	if (fstatfs(fd, &sfs) != 0) {
		out->kind = UIE_FS_REMOTE; /* unknown: untrusted */
		out->overlay = true;
		return;
	}
	out->kind = uie_sys_fs_kind_of_magic((uint64_t)sfs.f_type);
	out->overlay = sfs.f_type == OVERLAYFS_SUPER_MAGIC;
	if (statx(fd, "", AT_EMPTY_PATH, STATX_MNT_ID, &sx) != 0)
		return;
	if (out->kind == UIE_FS_LOCAL && (sx.stx_attributes_mask & STATX_ATTR_VERITY) &&
	    (sx.stx_attributes & STATX_ATTR_VERITY)) {
		out->immutable = true;
		return;
	}
	if (out->kind != UIE_FS_FUSE && (out->kind != UIE_FS_LOCAL || !(sfs.f_flags & ST_RDONLY)))
		return;
	mounted = (sx.stx_mask & STATX_MNT_ID) &&
		  mount_lookup(mc, pid, tree_mounts, sx.stx_mnt_id, (uint64_t)st->st_dev, &mi);
	if (mounted && out->kind == UIE_FS_FUSE)
		out->kind = mi.kind == UIE_FS_VIRTIOFS ? UIE_FS_VIRTIOFS : UIE_FS_FUSE;
	else if (mounted && mi.ro && !tree_mounts && sfs.f_type != OVERLAYFS_SUPER_MAGIC)
		out->immutable = true;
}
