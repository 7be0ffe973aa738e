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

struct uie_fs_source {
	uint8_t kind;   /* enum uie_fs_kind */
	bool immutable; /* UIE_COND_IMMUTABLE: nothing can change the file's bytes */
};

/*
 * The source of fd (st: its fstat), a file pid got executable.  Its mount
 * is looked up in pid's mount table.  tree_mounts: the tree may mount
 * (uie run --allow-mounts), so a read-only mount proves nothing.  What
 * cannot be found out counts against the file: its kind by the file
 * system's magic alone, and not immutable.
 */
void uie_guest_fs_source(int fd, const struct stat *st, pid_t pid, bool tree_mounts,
			 struct uie_fs_source *out);

#endif
