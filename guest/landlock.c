/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Writes to code through /proc/PID/mem: the kernel lets a process write
 * its own (and, with ptrace rights, others') read-only code pages through
 * that file.  Instead of trapping every open, the child restricts itself
 * with Landlock so that no file below /proc can be opened for writing;
 * every other top-level directory (and the file systems mounted below it)
 * stays writable.  Landlock also forbids the tree to mount a second procfs
 * elsewhere.  The price: the tree cannot write /proc/self/oom_score_adj,
 * /proc/sys and the like (docs/THREAT-MODEL.md).
 *
 * Every Landlock ruleset refuses renames and links across directories
 * unless it handles LANDLOCK_ACCESS_FS_REFER (ABI 2, Linux 5.19) and
 * allows it; where the kernel has it, it is allowed wherever writes are.
 *
 * It runs in spawn.c's child, which shares the supervisor's memory: raw
 * system calls only (rawsys.h), the directory read into a buffer on the
 * stack, nothing allocated.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/landlock.h>
#include <stddef.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>

#include "confine.h"
#include "rawsys.h"

/* A record of getdents64: the name, NUL-terminated, fills it up to reclen. */
struct dent64 {
	uint64_t ino;
	int64_t off;
	unsigned short reclen;
	unsigned char type;
	char name[];
};
#define NAME_AT offsetof(struct dent64, name)

static long add_rule(long ruleset, uint64_t access, long dirfd, const struct dent64 *de)
{
	struct landlock_path_beneath_attr pb = { .allowed_access = access };
	long fd = uie_raw(__NR_openat, dirfd, de->name, O_PATH | O_CLOEXEC | O_NOFOLLOW);
	bool dir = de->type == DT_DIR;
	struct stat st = { 0 };
	long r;

	if (fd < 0)
		return 0; /* vanished, or a dangling symlink: nothing to allow */
	if (de->type == DT_UNKNOWN && uie_raw(__NR_fstat, fd, &st) == 0)
		dir = S_ISDIR(st.st_mode);
	if (!dir)
		pb.allowed_access &= ~(uint64_t)LANDLOCK_ACCESS_FS_REFER; /* a directory right */
	pb.parent_fd = (int32_t)fd;
	r = uie_raw(__NR_landlock_add_rule, ruleset, LANDLOCK_RULE_PATH_BENEATH, &pb, 0);
	uie_raw(__NR_close, fd);
	return r == -EINVAL ? 0 : r; /* symlinks and special files cannot carry rules */
}

static bool skipped(const char *name)
{
	return !strcmp(name, ".") || !strcmp(name, "..") || !strcmp(name, "proc");
}

int uie_guest_landlock_apply(int abi)
{
	uint64_t access = LANDLOCK_ACCESS_FS_WRITE_FILE | (abi >= 2 ? LANDLOCK_ACCESS_FS_REFER : 0);
	struct landlock_ruleset_attr ra = { .handled_access_fs = access };
	_Alignas(struct dent64) char buf[4096] = { 0 };
	long rs, root, n = 0, r = 0;

	rs = uie_raw(__NR_landlock_create_ruleset, &ra, sizeof(ra), 0);
	if (rs < 0)
		return (int)rs; /* no Landlock: the caller refuses to run (fail closed) */
	root = uie_raw(__NR_openat, AT_FDCWD, "/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (root < 0) {
		uie_raw(__NR_close, rs);
		return (int)root;
	}
	while (r == 0 && (n = uie_raw(__NR_getdents64, root, buf, sizeof(buf))) > 0)
		for (long off = 0; r == 0 && off < n;) {
			const struct dent64 *de = (const struct dent64 *)(const void *)(buf + off);

			if (n - off < (long)NAME_AT + 1 || de->reclen < NAME_AT + 1 || de->reclen > n - off)
				r = -EIO; /* not a record the kernel writes */
			else if (!skipped(de->name))
				r = add_rule(rs, access, root, de);
			off += de->reclen;
		}
	if (r == 0 && n < 0)
		r = n;
	if (r == 0)
		r = uie_raw(__NR_landlock_restrict_self, rs, 0);
	uie_raw(__NR_close, root);
	uie_raw(__NR_close, rs);
	return (int)r;
}
