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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/statvfs.h>

#include "uie/sys.h"
#include "uie/types.h"

/* Whether the comma-separated options list opts holds "ro". */
static bool has_ro(const char *opts)
{
	size_t n = strlen(opts);

	return !strncmp(opts, "ro,", 3) || !strcmp(opts, "ro") || strstr(opts, ",ro,") ||
	       (n > 3 && !strcmp(opts + n - 3, ",ro"));
}

struct mount_info {
	char type[64];
	bool ro; /* the mount and its superblock read-only */
};

/*
 * Finds mount mnt_id in pid's mountinfo (proc(5)): "ID PARENT MAJ:MIN ROOT
 * POINT OPTIONS [OPTIONAL...] - TYPE SOURCE SUPER_OPTIONS".
 */
static bool mount_of(pid_t pid, uint64_t mnt_id, struct mount_info *mi)
{
	char path[48], *line = NULL;
	size_t cap = 0;
	bool found = false;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/mountinfo", (int)pid);
	if (!(f = fopen(path, "re")))
		return false;
	while (!found && getline(&line, &cap, f) > 0) {
		char *save = NULL, *tok = strtok_r(line, " \n", &save), *opts = NULL, *super;
		unsigned long long id = strtoull(tok ? tok : "", NULL, 10);

		if (!tok || id != mnt_id)
			continue;
		for (int i = 1; i < 6 && (tok = strtok_r(NULL, " \n", &save)) != NULL; i++)
			opts = tok; /* field 6: the mount's options */
		while ((tok = strtok_r(NULL, " \n", &save)) != NULL && strcmp(tok, "-") != 0)
			; /* optional fields end at "-" */
		if (!opts || !tok || !(tok = strtok_r(NULL, " \n", &save)) || !strtok_r(NULL, " \n", &save) ||
		    !(super = strtok_r(NULL, " \n", &save)))
			break;
		snprintf(mi->type, sizeof(mi->type), "%s", tok);
		mi->ro = has_ro(opts) && has_ro(super);
		found = true;
	}
	free(line);
	fclose(f);
	return found;
}

void uie_guest_fs_source(int fd, const struct stat *st, pid_t pid, bool tree_mounts,
			 struct uie_fs_source *out)
{
	struct mount_info mi;
	struct statfs sfs;
	struct statx sx;
	bool mounted;

	out->kind = UIE_FS_LOCAL;
	out->immutable = false;
	if (st->st_nlink == 0) { /* only sealed memfds get here (fileless ones are ANON) */
		out->immutable = true;
		return;
	}
	if (fstatfs(fd, &sfs) != 0) {
		out->kind = UIE_FS_REMOTE; /* unknown: untrusted */
		return;
	}
	out->kind = uie_sys_fs_kind_of_magic((uint64_t)sfs.f_type);
	if (statx(fd, "", AT_EMPTY_PATH, STATX_MNT_ID, &sx) != 0)
		return;
	if (out->kind == UIE_FS_LOCAL && (sx.stx_attributes_mask & STATX_ATTR_VERITY) &&
	    (sx.stx_attributes & STATX_ATTR_VERITY)) {
		out->immutable = true;
		return;
	}
	if (out->kind != UIE_FS_FUSE && (out->kind != UIE_FS_LOCAL || !(sfs.f_flags & ST_RDONLY)))
		return;
	mounted = (sx.stx_mask & STATX_MNT_ID) && mount_of(pid, sx.stx_mnt_id, &mi);
	if (mounted && out->kind == UIE_FS_FUSE)
		out->kind = uie_sys_fs_kind_of_type(mi.type) == UIE_FS_VIRTIOFS ? UIE_FS_VIRTIOFS
										: UIE_FS_FUSE;
	else if (mounted && mi.ro && !tree_mounts && sfs.f_type != OVERLAYFS_SUPER_MAGIC)
		out->immutable = true;
}
