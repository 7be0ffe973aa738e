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
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/landlock.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "confine.h"
#include "uie/err.h"

static int add_rule(int ruleset, uint64_t access, int dirfd, const char *name)
{
	struct landlock_path_beneath_attr pb = { .allowed_access = access };
	int fd = openat(dirfd, name, O_PATH | O_CLOEXEC | O_NOFOLLOW);
	struct stat st;
	int r = UIE_OK;

	if (fd < 0)
		return UIE_OK; /* vanished, or a dangling symlink: nothing to allow */
	if (fstat(fd, &st) == 0 && !S_ISDIR(st.st_mode))
		pb.allowed_access &= ~(uint64_t)LANDLOCK_ACCESS_FS_REFER; /* a directory right */
	pb.parent_fd = fd;
	if (syscall(__NR_landlock_add_rule, ruleset, LANDLOCK_RULE_PATH_BENEATH, &pb, 0) != 0 &&
	    errno != EINVAL) /* symlinks and special files cannot carry rules */
		r = UIE_E_SYS;
	close(fd);
	return r;
}

int uie_guest_landlock_apply(int abi)
{
	uint64_t access = LANDLOCK_ACCESS_FS_WRITE_FILE | (abi >= 2 ? LANDLOCK_ACCESS_FS_REFER : 0);
	struct landlock_ruleset_attr ra = { .handled_access_fs = access };
	struct dirent *de;
	DIR *root;
	int rs, r = UIE_OK;

	rs = (int)syscall(__NR_landlock_create_ruleset, &ra, sizeof(ra), 0);
	if (rs < 0)
		return UIE_E_SYS; /* no Landlock: the caller refuses to run (fail closed) */
	root = opendir("/");
	if (!root) {
		close(rs);
		return UIE_E_SYS;
	}
	while (r == UIE_OK && (de = readdir(root)) != NULL) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, "..") || !strcmp(de->d_name, "proc"))
			continue;
		r = add_rule(rs, access, dirfd(root), de->d_name);
	}
	closedir(root);
	if (r == UIE_OK && syscall(__NR_landlock_restrict_self, rs, 0) != 0)
		r = UIE_E_SYS;
	close(rs);
	return r;
}
