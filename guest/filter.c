/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The seccomp filter of the supervised tree (raw classic BPF).  It keeps
 * the common case in the kernel: mmap/mprotect/pkey_mprotect without
 * PROT_EXEC are allowed without a round trip; only grants of execute
 * permission and execve/execveat reach the supervisor.  Paths that cannot
 * be checked are refused in the kernel:
 *   - any ABI other than x86-64 (int 0x80 / sysenter i386): KILL_PROCESS;
 *     x32 system call numbers: EACCES;
 *   - shmat(SHM_EXEC), remap_file_pages, uselib: EACCES;
 *   - personality() setting READ_IMPLIES_EXEC: EACCES (the query
 *     personality(0xffffffff) passes);
 *   - process_vm_writev, ptrace, userfaultfd, modify_ldt: EPERM; so is
 *     the other way to a userfaultfd, ioctl USERFAULTFD_IOC_NEW (of
 *     /dev/userfaultfd, Linux 6.1): one could fill a page of a granted
 *     private mapping of a shmem file with any bytes, after every check;
 *   - mremap that can grow a mapping or move it (a new size above the old,
 *     MREMAP_FIXED, MREMAP_DONTUNMAP or any other flag but MREMAP_MAYMOVE):
 *     to the supervisor (remap.c); shrinking in place stays here;
 *   - sharing a descriptor table or an address space between processes
 *     (clone with CLONE_FILES, or CLONE_VM without CLONE_VFORK or with
 *     CLONE_PARENT, and no CLONE_THREAD) and io_uring (its requests bypass
 *     seccomp): EPERM; clone3 (flags out of reach of BPF): ENOSYS, so libc
 *     falls back to clone.  Only threads of a caller can then race its
 *     checks (freeze.c), and those of the parent of a vfork child, whose
 *     grants the supervisor refuses (loop.c);
 *   - prctl(PR_SET_MM, PR_SET_MM_EXE_FILE or PR_SET_MM_MAP): EPERM (they
 *     change /proc/PID/exe, docs/SYSCALLS.md "Program identity"; the other
 *     sub-options, which systemd uses for process titles, pass);
 *   - socket(AF_UNIX, SOCK_SEQPACKET): EACCES, when a socket path that
 *     forwards reports to the monitor may be in the tree's reach (process
 *     mode: the monitor listens only on such a socket, so no process of the
 *     tree can reach it; reports and control requests come from the
 *     interceptor alone, docs/DESIGN.md).  When the interceptor was handed
 *     its monitor connection and no such path exists (uie-init in VM mode,
 *     docs/THREAT-MODEL.md "SOCK_SEQPACKET in the tree"), the tree may use
 *     SOCK_SEQPACKET like any program (udev's control socket).
 * Every other number the census (docs/SYSCALLS.md) lists is allowed; a
 * number it does not list gets ENOSYS (census.h, generated from it), so a
 * call a newer kernel adds stays closed until the census reviews it.
 */
#include <errno.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/sched.h>
#include <linux/seccomp.h>
#include <linux/userfaultfd.h>
#include <stdbool.h>
#include <stddef.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/personality.h>
#include <sys/prctl.h>
#include <sys/shm.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "census.h"
#include "confine.h"
#include "rawsys.h"
#include "uie/err.h"
#include "uie/seccomp.h"

#define X32_SYSCALL_BIT 0x40000000u
#define SOCK_TYPE_BITS 0xfu /* the kernel's SOCK_TYPE_MASK */

enum label {
	L_ALLOW,
	L_NOTIFY,
	L_EACCES,
	L_EPERM,
	L_ENOSYS,
	L_KILL,
	L_PROT,
	L_SHM,
	L_PERS,
	L_PRCTL,
	L_CLONE,
	L_SOCK,
	L_REMAP,
	L_REMAP_FLAGS,
	L_IOCTL,
	L__MAX
};

struct prog {
	struct sock_filter ins[UIE_FILTER_MAX];
	unsigned n;
	unsigned at[L__MAX];
	struct fixup {
		unsigned pc;
		int jt, jf;
	} fix[UIE_FILTER_MAX]; /* label ids, -1 = next instruction */
	unsigned nfix;
	bool bad;
};

static void emit(struct prog *p, struct sock_filter f)
{
	if (p->n >= sizeof(p->ins) / sizeof(p->ins[0])) {
		p->bad = true;
		return;
	}
	p->ins[p->n++] = f;
}

/* Conditional jump to labels (-1: fall through). */
static void jump(struct prog *p, uint16_t code, uint32_t k, int jt, int jf)
{
	if (p->nfix >= sizeof(p->fix) / sizeof(p->fix[0])) {
		p->bad = true;
		return;
	}
	p->fix[p->nfix++] = (struct fixup){ p->n, jt, jf };
	emit(p, (struct sock_filter)BPF_JUMP(BPF_JMP | code | BPF_K, k, 0, 0));
}

static void label(struct prog *p, enum label l)
{
	p->at[l] = p->n;
}

static void ret(struct prog *p, uint32_t v)
{
	emit(p, (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, v));
}

static void load(struct prog *p, uint32_t off)
{
	emit(p, (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, off));
}

/* X = the word at off (through scratch memory: classic BPF loads X from there only). */
static void load_x(struct prog *p, uint32_t off)
{
	load(p, off);
	emit(p, (struct sock_filter)BPF_STMT(BPF_ST, 0));
	emit(p, (struct sock_filter)BPF_STMT(BPF_LDX | BPF_MEM, 0));
}

/* Low 32 bits of argument i (little-endian). */
#define ARG_LO(i) ((uint32_t)offsetof(struct seccomp_data, args[0]) + 8u * (i))
#define ARG_HI(i) (ARG_LO(i) + 4u)

static int resolve(struct prog *p)
{
	for (unsigned i = 0; i < p->nfix; i++) {
		unsigned pc = p->fix[i].pc;
		int l[2] = { p->fix[i].jt, p->fix[i].jf };
		uint8_t off[2];

		for (int k = 0; k < 2; k++) {
			unsigned to = l[k] < 0 ? pc + 1 : p->at[l[k]];

			if (to <= pc || to - pc - 1 > 255)
				return UIE_E_LIMIT;
			off[k] = (uint8_t)(to - pc - 1);
		}
		p->ins[pc].jt = off[0];
		p->ins[pc].jf = off[1];
	}
	return p->bad ? UIE_E_LIMIT : UIE_OK;
}

static const struct {
	uint32_t nr;
	enum label to;
} table[] = {
	{ __NR_mmap, L_PROT },          { __NR_mprotect, L_PROT },
	{ __NR_pkey_mprotect, L_PROT }, { __NR_execve, L_NOTIFY },
	{ __NR_execveat, L_NOTIFY },    { __NR_shmat, L_SHM },
	{ __NR_personality, L_PERS },   { __NR_remap_file_pages, L_EACCES },
	{ __NR_uselib, L_EACCES },      { __NR_process_vm_writev, L_EPERM },
	{ __NR_ptrace, L_EPERM },       { __NR_userfaultfd, L_EPERM },
	{ __NR_modify_ldt, L_EPERM },   { __NR_io_uring_setup, L_EPERM },
	{ __NR_clone, L_CLONE },        { __NR_clone3, L_ENOSYS },
	{ __NR_socket, L_SOCK },        { __NR_prctl, L_PRCTL },
	{ __NR_mremap, L_REMAP },       { __NR_ioctl, L_IOCTL },
};

/* Numbers outside the census's ranges: ENOSYS.  Ranges from the highest down; jumps go forward. */
static void known(struct prog *p)
{
	for (size_t i = sizeof(uie_census_ranges) / sizeof(uie_census_ranges[0]); i-- > 0;) {
		jump(p, BPF_JGT, uie_census_ranges[i].last, L_ENOSYS, -1);
		jump(p, BPF_JGE, uie_census_ranges[i].first, L_ALLOW, -1);
	}
	ret(p, SECCOMP_RET_ERRNO | ENOSYS);
}

static int build(struct prog *p, bool refuse_seqpacket)
{
	load(p, offsetof(struct seccomp_data, arch));
	jump(p, BPF_JEQ, AUDIT_ARCH_X86_64, -1, L_KILL);
	load(p, offsetof(struct seccomp_data, nr));
	jump(p, BPF_JGE, X32_SYSCALL_BIT, L_EACCES, -1);
	for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); i++)
		if (table[i].to != L_SOCK || refuse_seqpacket)
			jump(p, BPF_JEQ, table[i].nr, (int)table[i].to, -1);
	known(p);
	/* Argument checks first: classic BPF only jumps forward. */
	label(p, L_PROT); /* prot is argument 2 of mmap, mprotect and pkey_mprotect */
	load(p, ARG_LO(2));
	jump(p, BPF_JSET, PROT_EXEC, L_NOTIFY, L_ALLOW);
	label(p, L_SHM);
	load(p, ARG_LO(2));
	jump(p, BPF_JSET, SHM_EXEC, L_EACCES, L_ALLOW);
	label(p, L_PERS);
	load(p, ARG_LO(0));
	jump(p, BPF_JEQ, 0xffffffffu, L_ALLOW, -1);
	jump(p, BPF_JSET, READ_IMPLIES_EXEC, L_EACCES, L_ALLOW);
	label(p, L_PRCTL); /* option, sub-option: ints in the low halves */
	load(p, ARG_LO(0));
	jump(p, BPF_JEQ, PR_SET_MM, -1, L_ALLOW);
	load(p, ARG_LO(1));
	jump(p, BPF_JEQ, PR_SET_MM_EXE_FILE, L_EPERM, -1);
	jump(p, BPF_JEQ, PR_SET_MM_MAP, L_EPERM, L_ALLOW);
	/* Threads are fine; processes sharing a descriptor table or an address space are not,
	 * but for a vfork child, which must be its sharer's child (loop.c). */
	label(p, L_CLONE);
	load(p, ARG_LO(0));
	jump(p, BPF_JSET, CLONE_THREAD, L_ALLOW, -1);
	jump(p, BPF_JSET, CLONE_FILES, L_EPERM, -1);
	jump(p, BPF_JSET, CLONE_VM, -1, L_ALLOW);
	jump(p, BPF_JSET, CLONE_PARENT, L_EPERM, -1);
	jump(p, BPF_JSET, CLONE_VFORK, L_ALLOW, L_EPERM);
	/* The type argument carries SOCK_CLOEXEC and SOCK_NONBLOCK above the type bits. */
	label(p, L_SOCK);
	load(p, ARG_LO(0));
	jump(p, BPF_JEQ, AF_UNIX, -1, L_ALLOW);
	load(p, ARG_LO(1));
	emit(p, (struct sock_filter)BPF_STMT(BPF_ALU | BPF_AND | BPF_K, SOCK_TYPE_BITS));
	jump(p, BPF_JEQ, SOCK_SEQPACKET, L_EACCES, L_ALLOW);
	/* ---- mremap (remap.c): new_size (argument 2) above old_size (argument 1), as 64-bit
	 * numbers (high words first, compared through X), or a flag other than MREMAP_MAYMOVE. ---- */
	label(p, L_REMAP);
	load_x(p, ARG_HI(1));
	load(p, ARG_HI(2));
	jump(p, BPF_JGT | BPF_X, 0, L_NOTIFY, -1);
	jump(p, BPF_JEQ | BPF_X, 0, -1, L_REMAP_FLAGS);
	load_x(p, ARG_LO(1));
	load(p, ARG_LO(2));
	jump(p, BPF_JGT | BPF_X, 0, L_NOTIFY, -1);
	label(p, L_REMAP_FLAGS);
	load(p, ARG_LO(3));
	jump(p, BPF_JSET, ~(uint32_t)MREMAP_MAYMOVE, L_NOTIFY, L_ALLOW);
	/* ---- end of mremap ---- */
	label(p, L_IOCTL); /* the request is an unsigned int: the low half */
	load(p, ARG_LO(1));
	jump(p, BPF_JEQ, USERFAULTFD_IOC_NEW, L_EPERM, L_ALLOW);
	label(p, L_ALLOW);
	ret(p, SECCOMP_RET_ALLOW);
	label(p, L_NOTIFY);
	ret(p, SECCOMP_RET_USER_NOTIF);
	label(p, L_EACCES);
	ret(p, SECCOMP_RET_ERRNO | EACCES);
	label(p, L_EPERM);
	ret(p, SECCOMP_RET_ERRNO | EPERM);
	label(p, L_ENOSYS);
	ret(p, SECCOMP_RET_ERRNO | ENOSYS);
	label(p, L_KILL);
	ret(p, SECCOMP_RET_KILL_PROCESS);
	return resolve(p);
}

int uie_guest_filter_program(struct sock_filter *ins, unsigned cap, bool refuse_seqpacket)
{
	struct prog p = { 0 };
	int r;

	if ((r = build(&p, refuse_seqpacket)) != UIE_OK)
		return r;
	if (p.n > cap)
		return UIE_E_LIMIT;
	memcpy(ins, p.ins, p.n * sizeof(p.ins[0]));
	return (int)p.n;
}

int uie_guest_filter_load(const struct sock_fprog *fp)
{
	long fd, r = uie_raw(__NR_prctl, PR_SET_NO_NEW_PRIVS, 1);

	if (r != 0)
		return (int)r;
	fd = uie_raw(__NR_seccomp, SECCOMP_SET_MODE_FILTER,
		     SECCOMP_FILTER_FLAG_NEW_LISTENER | SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV, fp);
	if (fd == -EINVAL) /* kernels before 5.19 */
		fd = uie_raw(__NR_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_NEW_LISTENER, fp);
	return (int)fd;
}

int uie_guest_filter_install(int *listener, bool refuse_seqpacket)
{
	struct prog p = { 0 };
	struct sock_fprog fp;
	int r;

	*listener = -1;
	if ((r = build(&p, refuse_seqpacket)) != UIE_OK)
		return r;
	fp.len = (unsigned short)p.n;
	fp.filter = p.ins;
	r = uie_guest_filter_load(&fp);
	if (r < 0) {
		errno = -r;
		return UIE_E_SYS;
	}
	*listener = r;
	return UIE_OK;
}
