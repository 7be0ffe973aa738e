/* SPDX-License-Identifier: Apache-2.0 */
#include "sandbox.h"

#include <errno.h>
#include <grp.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/fsverity.h>
#include <linux/seccomp.h>
#include <pwd.h>
#include <stddef.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "uie/err.h"
#include "uie/seccomp.h"

/* Runs useradd for a system user without home or login shell; true when it exited 0. */
static bool add_system_user(const char *name)
{
	int status;
	pid_t pid = fork();

	if (pid < 0)
		return false;
	if (pid == 0) {
		execl("/usr/sbin/useradd", "useradd", "--system", "--no-create-home", "--home-dir",
		      "/nonexistent", "--shell", "/usr/sbin/nologin", "--user-group", name, (char *)NULL);
		_exit(127);
	}
	return waitpid(pid, &status, 0) == pid && WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

int uie_sandbox_user(const char *name, bool create, uid_t *uid, gid_t *gid)
{
	struct passwd *pw = getpwnam(name);

	/* Two monitors starting at once may race to create it: the loser finds it made. */
	for (int tries = 0; !pw && create && tries < 5; tries++) {
		if (!add_system_user(name))
			usleep(100000);
		pw = getpwnam(name);
	}
	if (!pw)
		return create ? UIE_E_SYS : UIE_E_NOTFOUND;
	*uid = pw->pw_uid;
	*gid = pw->pw_gid;
	return UIE_OK;
}

int uie_sandbox_drop(uid_t uid, gid_t gid)
{
	if (setgroups(0, NULL) != 0 || setresgid(gid, gid, gid) != 0 || setresuid(uid, uid, uid) != 0)
		return UIE_E_SYS;
	if (uid != 0 && (setuid(0) == 0 || seteuid(0) == 0))
		return UIE_E_SYS;
	return UIE_OK;
}

#define ARG2_LO_OFF offsetof(struct seccomp_data, args[2]) /* little-endian low word */

/* What the request loop (and libc, OpenSSL and tpm2-tss under it) calls. */
static const int allowed[] = {
	SYS_read,
	SYS_write,
	SYS_writev,
	SYS_readv,
	SYS_pread64,
	SYS_lseek,
	SYS_close,
	SYS_fstat,
	SYS_newfstatat,
	SYS_statx,
	SYS_fstatfs, /* the kind of file system of a measured file (measure.c) */
	SYS_fcntl,
	SYS_memfd_create,
	SYS_readlink,
	SYS_readlinkat, /* an object's name for the system log, from /proc/self/fd */
	SYS_munmap,
	SYS_mremap,
	SYS_brk,
	SYS_madvise,
	SYS_poll,
	SYS_ppoll,
	SYS_select,
	SYS_pselect6,
	SYS_accept,
	SYS_accept4,
	SYS_recvmsg,
	SYS_sendmsg,
	SYS_recvfrom,
	SYS_sendto,
	SYS_shutdown,
	SYS_getsockopt, /* SO_PEERCRED of a new connection (server.c) */
	SYS_rt_sigreturn,
	SYS_rt_sigprocmask,
	SYS_clock_gettime,
	SYS_gettimeofday,
	SYS_getpid,
	SYS_gettid,
	SYS_getrandom,
	SYS_futex,
	SYS_exit,
	SYS_exit_group,
	/* After SIGSTOP/SIGCONT the kernel resumes an interrupted poll with it. */
	SYS_restart_syscall,
	/* The write-ahead log: durable appends, undoing a torn one, archiving at start. */
	SYS_fdatasync,
	SYS_fsync,
	SYS_ftruncate,
};

#define ALLOW_NR(nr)                                               \
	BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (unsigned)(nr), 0, 1), \
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW)

/* mmap and mprotect pass only without PROT_EXEC: the monitor never needs new code. */
#define ALLOW_NOEXEC(nr)                                               \
	BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (unsigned)(nr), 0, 4),     \
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, ARG2_LO_OFF),       \
		BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, PROT_EXEC, 0, 1), \
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),   \
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW)

#define ARG0_LO_OFF offsetof(struct seccomp_data, args[0])
#define ARG1_LO_OFF offsetof(struct seccomp_data, args[1])

/* ioctl: only the one request (the fs-verity digest, verity.c); any other fails ENOTTY. */
#define IOCTL_ONLY(request)                                                     \
	BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_ioctl, 0, 4),                   \
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, ARG1_LO_OFF),                \
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (unsigned)(request), 0, 1), \
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),                   \
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | ENOTTY)

/*
 * The swtpm TCTI's connections: TCP (swtpm:HOST:PORT) or a unix socket
 * (swtpm:/PATH, the recommended deployment); no netlink, packet, ...
 */
#define ALLOW_TPM_SOCKET                                             \
	BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_socket, 0, 6),       \
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, ARG0_LO_OFF),     \
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AF_INET, 3, 0),  \
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AF_INET6, 2, 0), \
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AF_UNIX, 1, 0),  \
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS), \
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW)

#define ERRNO_NR(nr, e)                                            \
	BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (unsigned)(nr), 0, 1), \
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | (e))

#define NALLOWED (sizeof(allowed) / sizeof(allowed[0]))

int uie_sandbox_lock(bool net)
{
	static const struct sock_filter head[] = {
		UIE_BPF_X86_64_NR(SECCOMP_RET_KILL_PROCESS),
		ALLOW_NOEXEC(SYS_mmap),
		ALLOW_NOEXEC(SYS_mprotect),
		/* Optional file access by libraries fails cleanly instead of killing. */
		ERRNO_NR(SYS_openat, EACCES),
		ERRNO_NR(SYS_open, EACCES),
		IOCTL_ONLY(FS_IOC_MEASURE_VERITY),
	};
	static const struct sock_filter net_part[] = { ALLOW_TPM_SOCKET, ALLOW_NR(SYS_connect) };
	struct sock_filter prog[sizeof(head) / sizeof(head[0]) + sizeof(net_part) / sizeof(net_part[0]) +
				2 * NALLOWED + 1];
	struct sock_fprog fp = { .filter = prog };
	unsigned n = 0;

	for (size_t i = 0; i < sizeof(head) / sizeof(head[0]); i++)
		prog[n++] = head[i];
	for (size_t i = 0; i < NALLOWED; i++) {
		struct sock_filter pair[] = { ALLOW_NR(allowed[i]) };

		prog[n++] = pair[0];
		prog[n++] = pair[1];
	}
	for (size_t i = 0; net && i < sizeof(net_part) / sizeof(net_part[0]); i++)
		prog[n++] = net_part[i];
	prog[n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS);
	fp.len = (unsigned short)n;
	if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) != 0 || prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
		return UIE_E_SYS;
	/* TSYNC: the measurement workers (workers.c), started before, get the filter too. */
	if (syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_TSYNC, &fp) != 0)
		return UIE_E_SYS;
	return UIE_OK;
}
