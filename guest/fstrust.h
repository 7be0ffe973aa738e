/* SPDX-License-Identifier: Apache-2.0 */
/*
 * What a granted file's source is (docs/THREAT-MODEL.md, "Writes to
 * code"): the kind of file system it is on, which the monitor refuses
 * unless the policy trusts it when its content can change without a write
 * through this kernel (FUSE, virtiofs, NFS, ...), and whether it is
 * immutable (fs-verity, a sealed memfd, a local file system mounted
 * read-only that the tree cannot remount), which needs no lease and
 * satisfies a policy's require=immutable.
 */
#ifndef UIE_GUEST_FSTRUST_H
#define UIE_GUEST_FSTRUST_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>

#define UIE_MOUNTS_CACHED 32
#define UIE_MOUNT_LINES 4 /* lines of our own mount table kept (overlays under granted files) */

/*
 * What the mount table said of the mounts granted files were on (fstrust.c),
 * kept until the table changes: reading it costs tens of microseconds, and
 * without a cache every grant from a read-only or FUSE mount paid that.
 * Only for targets in the interceptor's own mount namespace, whose changes
 * (mount, unmount, remount) the polled descriptor reports.
 */
struct uie_mounts {
	int watch;   /* our /proc/self/mountinfo (POLLPRI on a change); -1: not opened, -2: none */
	uint64_t ns; /* inode of our mount namespace */
	unsigned n, next;
	struct uie_mount_seen {
		uint64_t mnt_id, dev; /* the mount, and the file system's device */
		uint8_t kind;         /* its type's kind (uie_sys_fs_kind_of_type) */
		bool ro;              /* the mount and its superblock read-only */
	} e[UIE_MOUNTS_CACHED];
	unsigned nlines, next_line;
	struct uie_mount_line {
		uint64_t mnt_id;
		char *line; /* owned */
	} line[UIE_MOUNT_LINES];
};

struct uie_fs_source {
	uint8_t kind;   /* enum uie_fs_kind */
	bool immutable; /* UIE_COND_IMMUTABLE: nothing can change the file's bytes */
	bool overlay;   /* on overlayfs, or not known (fstatfs failed) */
};

/*
 * The source of fd (st: its fstat), a file pid got executable.  Its mount
 * is looked up in pid's mount table (through mc when pid shares our mount
 * namespace and the tree cannot mount).  tree_mounts: the tree may mount
 * (uie run --allow-mounts), so a read-only mount proves nothing.  What
 * cannot be found out counts against the file: its kind by the file
 * system's magic alone, and not immutable.
 */
void uie_guest_fs_source(struct uie_mounts *mc, int fd, const struct stat *st, pid_t pid, bool tree_mounts,
			 struct uie_fs_source *out);
/*
 * The line of mount mnt_id in our own mount table (mountinfo.h), kept in
 * mc until the table changes; NULL with errno.  mc owns it: valid until
 * the next call.
 */
const char *uie_guest_own_mount_line(struct uie_mounts *mc, uint64_t mnt_id);
/* Closes mc's descriptor, frees its lines. */
void uie_guest_mounts_release(struct uie_mounts *mc);

#endif
