/* SPDX-License-Identifier: Apache-2.0 OR GPL-2.0-only */
/*
 * The whole-boot guard (docs/SYSCALLS.md, "Whole-boot mode"): a BPF LSM
 * program uie-init loads before the tree's first exec when the tree runs
 * without a Landlock domain (--allow-mounts).  For processes of the tree
 * (marked in the task storage map `tree`: the first one by uie-init, every
 * task a marked task creates by lsm/task_alloc) it refuses with EPERM:
 *   - a write open of a process's mem file (file operations
 *     proc_mem_operations, in every procfs instance);
 *   - a write open of any file of a binfmt_misc file system (register,
 *     status, the entries), and of the core_pattern and modprobe sysctls
 *     (the sysctl's data is the kernel's core_pattern or modprobe_path);
 *   - a new user namespace (not loaded when uie-init is given --allow-userns);
 *   - a descriptor of a BPF object by its id (which would reach `tree`).
 * No vmlinux.h: the few kernel structures are declared here with the
 * fields used, and libbpf relocates them against the kernel's BTF (CO-RE).
 */
#include <stdbool.h>
#include <linux/bpf.h>
#include <linux/types.h>
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#define EPERM 1
#define ENOMEM 12
#define FMODE_WRITE 0x2
#define BINFMTFS_MAGIC 0x42494e4d

struct super_block {
	unsigned long s_magic;
} __attribute__((preserve_access_index));

struct inode {
	struct super_block *i_sb;
} __attribute__((preserve_access_index));

struct file {
	const void *f_op;
	struct inode *f_inode;
	unsigned int f_mode;
} __attribute__((preserve_access_index));

struct ctl_table {
	void *data;
} __attribute__((preserve_access_index));

struct proc_inode {
	struct ctl_table *sysctl_entry;
	struct inode vfs_inode;
} __attribute__((preserve_access_index));

struct task_struct;
struct cred;

extern const void proc_mem_operations __ksym;
extern const void proc_sys_file_operations __ksym;
extern const void core_pattern __ksym;
extern const void modprobe_path __ksym;

struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, __u8);
} tree SEC(".maps");

static bool in_tree(void)
{
	return bpf_task_storage_get(&tree, bpf_get_current_task_btf(), 0, 0) != 0;
}

/* cppcheck-suppress unknownMacro ; SEC (bpf_helpers.h): the ELF section, i.e. the hook */
SEC("lsm/task_alloc")
int BPF_PROG(tree_fork, struct task_struct *task, unsigned long clone_flags)
{
	__u8 one = 1;

	if (!in_tree())
		return 0;
	/* A task of the tree that could not be marked is not created. */
	if (!bpf_task_storage_get(&tree, task, &one, BPF_LOCAL_STORAGE_GET_F_CREATE))
		return -ENOMEM;
	return 0;
}

SEC("lsm/file_open")
int BPF_PROG(tree_open, struct file *file)
{
	const void *fop;

	if (!(BPF_CORE_READ(file, f_mode) & FMODE_WRITE) || !in_tree())
		return 0;
	fop = BPF_CORE_READ(file, f_op);
	if (fop == &proc_mem_operations)
		return -EPERM;
	if (BPF_CORE_READ(file, f_inode, i_sb, s_magic) == BINFMTFS_MAGIC)
		return -EPERM;
	if (fop == &proc_sys_file_operations) {
		/* A sysctl's inode is the vfs_inode of a proc_inode. */
		const struct proc_inode *pi =
			(const void *)((const char *)BPF_CORE_READ(file, f_inode) -
				       bpf_core_field_offset(struct proc_inode, vfs_inode));
		const void *data = BPF_CORE_READ(pi, sysctl_entry, data);

		if (data == &core_pattern || data == &modprobe_path)
			return -EPERM;
	}
	return 0;
}

SEC("lsm/userns_create")
int BPF_PROG(tree_userns, const struct cred *cred)
{
	return in_tree() ? -EPERM : 0;
}

SEC("lsm/bpf")
int BPF_PROG(tree_bpf, int cmd, union bpf_attr *attr, unsigned int size)
{
	switch (cmd) {
	case BPF_PROG_GET_FD_BY_ID:
	case BPF_MAP_GET_FD_BY_ID:
	case BPF_LINK_GET_FD_BY_ID:
	case BPF_BTF_GET_FD_BY_ID: return in_tree() ? -EPERM : 0;
	default: return 0;
	}
}

/* The kernel gives the helpers used here only to GPL-compatible programs. */
char LICENSE[] SEC("license") = "GPL";
