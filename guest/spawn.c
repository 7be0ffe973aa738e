/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Starting the supervised program.  The child confines itself (no new
 * privileges, Landlock, the seccomp filter), hands its listener to the
 * parent over a socketpair (SCM_RIGHTS) and then executes the program, so
 * that the very first execve is already checked.  If anything in that
 * sequence fails the program is never executed.
 *
 * The child shares our memory (CLONE_VM, as fan.c's releaser) on a stack
 * of its own: a fork copied our page tables and made every page that
 * either process then wrote a copy-on-write fault, some 2-3 ms of the
 * start-up on the hosts measured (docs/PERFORMANCE.md), spent while the
 * child confined itself and the parent set up the exec watch and the
 * monitor connection.  So the child makes raw system calls only
 * (rawsys.h) and allocates nothing; it reads its own copy of its arguments,
 * the program's argv and our environment (neither of which we change) and
 * writes only its own memory.  The filter program is built here, before
 * the clone.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/capability.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/personality.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fdpass.h"
#include "confine.h"
#include "rawsys.h"
#include "uie/bridge.h"
#include "uie/err.h"

/* The one byte that goes with the listener over the socketpair. */
static const uint8_t listener_tag = 'L';

/* The child's stack: the Landlock directory buffer and a message are its largest frames. */
#define CHILD_STACK ((size_t)128 * 1024)

/* What the child needs, in its own memory (the start of the mapping; its stack is the end). */
struct child_args {
	int sock, landlock_abi;
	pid_t parent;
	bool allow_mounts, pipe_ignored;
	struct sock_fprog prog;
	char *const *argv, *const *envp;
	const char *path; /* PATH, for a name without a slash (as execvp) */
	char **sh_argv;   /* argc + 2 slots: a file the kernel cannot execute runs under /bin/sh */
	struct sock_filter ins[UIE_FILTER_MAX];
	char file[PATH_MAX];
};

/* Receives the child's listener: one message of one tag byte and one descriptor. */
static int recv_listener(int sock, int *listener)
{
	uint8_t buf[UIE_BRIDGE_MAX_MSG];
	size_t len;
	int r = uie_bridge_recv(sock, buf, &len, listener, -1);

	if (r != UIE_OK)
		return r == UIE_E_SYS ? r : UIE_E_PEER;
	if (len == 1 && buf[0] == listener_tag && *listener >= 0)
		return UIE_OK;
	if (*listener >= 0)
		close(*listener);
	*listener = -1;
	return UIE_E_PEER;
}

/* ---- the child: raw system calls only ---- */

/* Appends str to msg (n bytes so far, room for cap), as much as fits. */
static size_t put(char *msg, size_t n, size_t cap, const char *str)
{
	while (*str && n < cap)
		msg[n++] = *str++;
	return n;
}

/* Writes "uie: what[ name]: the error's text" to standard error. */
static void say(const char *what, const char *name, int err)
{
	const char *text = strerrordesc_np(err);
	char msg[512];
	size_t cap = sizeof(msg) - 1, n = put(msg, 0, cap, "uie: ");

	n = put(msg, n, cap, what);
	if (name) {
		n = put(msg, n, cap, " ");
		n = put(msg, n, cap, name);
	}
	n = put(msg, n, cap, ": ");
	n = put(msg, n, cap, text ? text : "unknown error");
	msg[n++] = '\n';
	uie_raw(__NR_write, 2, msg, n);
}

static _Noreturn void die(int code)
{
	for (;;)
		uie_raw(__NR_exit_group, code);
}

/*
 * --allow-mounts (a whole systemd boot, which mounts): no Landlock domain,
 * since every domain forbids mount(2).  What it guarded against the
 * interceptor (ptrace-mode access: pidfd_getfd of the monitor connection,
 * /proc/PID/mem) is refused instead by the interceptor being non-dumpable
 * and the tree lacking CAP_SYS_PTRACE.  Writes into the code of another
 * process of the tree through /proc/PID/mem are then not refused
 * (docs/THREAT-MODEL.md, "Whole boots").
 */
static long drop_ptrace_cap(void)
{
	struct __user_cap_header_struct h = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct d[2] = { 0 };
	const uint32_t bit = 1u << (CAP_SYS_PTRACE % 32);
	long r;

	if ((r = uie_raw(__NR_prctl, PR_CAPBSET_DROP, CAP_SYS_PTRACE)) != 0 ||
	    (r = uie_raw(__NR_capget, &h, d)) != 0)
		return r;
	d[CAP_SYS_PTRACE / 32].effective &= ~bit;
	d[CAP_SYS_PTRACE / 32].permitted &= ~bit;
	d[CAP_SYS_PTRACE / 32].inheritable &= ~bit;
	if ((r = uie_raw(__NR_capset, &h, d)) != 0)
		return r;
	r = uie_raw(__NR_prctl, PR_CAP_AMBIENT, PR_CAP_AMBIENT_LOWER, CAP_SYS_PTRACE, 0, 0);
	return r == -EINVAL ? 0 : r;
}

/* The tag byte and the listener, as uie_bridge_send would send them. */
static long send_listener(int sock, int listener)
{
	union uie_fd_ctl ctl;
	struct iovec iov = { .iov_base = (void *)&listener_tag, .iov_len = 1 };
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1 };

	uie_bridge_attach_fd(&m, &ctl, listener);
	return uie_raw(__NR_sendmsg, sock, &m, MSG_NOSIGNAL);
}

/* One candidate file; as execvp, a file the kernel cannot execute is run by /bin/sh. */
static long exec_file(struct child_args *a, const char *file)
{
	long r = uie_raw(__NR_execve, file, a->argv, a->envp);
	size_t i;

	if (r != -ENOEXEC)
		return r;
	a->sh_argv[0] = (char *)"/bin/sh";
	a->sh_argv[1] = (char *)file;
	for (i = 1; a->argv[i]; i++)
		a->sh_argv[i + 1] = a->argv[i];
	a->sh_argv[i + 1] = NULL;
	return uie_raw(__NR_execve, "/bin/sh", a->sh_argv, a->envp);
}

/* execvp's search: argv[0] itself when it names a path, else each directory of PATH. */
static long exec_search(struct child_args *a)
{
	const char *name = a->argv[0], *p = a->path;
	size_t nl = strlen(name);
	bool denied = false;

	if (strchr(name, '/'))
		return exec_file(a, name);
	if (!nl)
		return -ENOENT;
	for (;;) {
		const char *end = strchrnul(p, ':');
		size_t dl = (size_t)(end - p);
		long r;

		if (dl + 1 + nl < sizeof(a->file)) {
			memcpy(a->file, p, dl);
			if (dl) /* an empty entry is the current directory */
				a->file[dl++] = '/';
			memcpy(a->file + dl, name, nl + 1);
			r = exec_file(a, a->file);
			if (r == -EACCES)
				denied = true;
			else if (r != -ENOENT && r != -ENOTDIR && r != -ESTALE && r != -ENODEV &&
				 r != -ETIMEDOUT)
				return r;
		}
		if (!*end)
			return denied ? -EACCES : -ENOENT;
		p = end + 1;
	}
}

/* Never returns. */
static int child(void *arg)
{
	struct child_args *a = arg;
	struct { /* the kernel's struct sigaction: all zero is SIG_DFL */
		unsigned long handler, flags, restorer, mask;
	} dfl = { 0 };
	long r, pers, listener;

	/* Die with the supervisor; fail-closed does not depend on it (see THREAT-MODEL). */
	if (uie_raw(__NR_prctl, PR_SET_PDEATHSIG, SIGKILL) != 0 || uie_raw0(__NR_getppid) != a->parent)
		die(127);
	/* READ_IMPLIES_EXEC would be inherited across the exec below. */
	pers = uie_raw(__NR_personality, 0xffffffff);
	if (pers >= 0 &&
	    uie_raw(__NR_personality, (unsigned long)pers & ~(unsigned long)READ_IMPLIES_EXEC) < 0)
		die(127);
	if (uie_raw(__NR_prctl, PR_SET_NO_NEW_PRIVS, 1) != 0)
		die(127);
	/* We ignore SIGPIPE (a dead monitor is an error); the program gets it as we were given it. */
	if (!a->pipe_ignored && uie_raw(__NR_rt_sigaction, SIGPIPE, &dfl, NULL, sizeof(dfl.mask)) != 0)
		die(127);
	if (a->allow_mounts && (r = drop_ptrace_cap()) != 0) {
		say("cannot drop", "CAP_SYS_PTRACE", (int)-r);
		die(127);
	}
	if (!a->allow_mounts && (r = uie_guest_landlock_apply(a->landlock_abi)) != 0) {
		say("cannot restrict /proc writes with Landlock", NULL, (int)-r);
		die(127);
	}
	if ((listener = uie_guest_filter_load(&a->prog)) < 0) {
		say("cannot install the seccomp filter", NULL, (int)-listener);
		die(127);
	}
	if (send_listener(a->sock, (int)listener) != 1)
		die(127);
	uie_raw(__NR_close, listener);
	uie_raw(__NR_close, a->sock);
	r = exec_search(a);
	say("cannot execute", a->argv[0], (int)-r);
	die(r == -ENOENT ? 127 : 126);
}

/* ---- the parent ---- */

/*
 * The kernel queues a new child on its parent's CPU, and on a virtual
 * machine an idle vCPU pulls work only at its next balancing tick: measured
 * on a 2-CPU guest with a forked child, the parent (the exec watch, the
 * monitor connection) waited behind the child's whole confinement while the
 * other CPU stayed idle.  The parent steps off its CPU until the listener
 * arrives.  With the child sharing our memory it confines itself in about
 * 0.5 ms and still runs first, so this now saves about 0.1 ms
 * (docs/PERFORMANCE.md).  Performance only: on any failure nothing changes.
 */
static bool step_aside(cpu_set_t *saved)
{
	cpu_set_t other;
	int cpu = sched_getcpu();

	if (cpu < 0 || sched_getaffinity(0, sizeof(*saved), saved) != 0)
		return false;
	other = *saved;
	CPU_CLR(cpu, &other);
	return CPU_COUNT(&other) > 0 && sched_setaffinity(0, sizeof(other), &other) == 0;
}

/* The child's memory: its arguments, then the /bin/sh argv's slots, then its stack. */
static struct child_args *child_mem(char *const argv[], size_t *len)
{
	size_t argc = 0, page = (size_t)sysconf(_SC_PAGESIZE);
	void *m;

	while (argv[argc])
		argc++;
	*len = (sizeof(struct child_args) + (argc + 2) * sizeof(char *) + CHILD_STACK + page - 1) &
	       ~(page - 1);
	m = mmap(NULL, *len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
	return m == MAP_FAILED ? NULL : m;
}

int uie_guest_spawn(char *const argv[], int landlock_abi, const struct uie_guest_opts *o, bool pipe_ignored,
		    void (*meanwhile)(void *ctx), void *ctx, struct uie_spawned *sp)
{
	extern char **environ;
	struct child_args *a;
	size_t len;
	int sv[2], n, r;
	cpu_set_t saved;
	bool aside;
	pid_t c;

	*sp = (struct uie_spawned){ .pid = -1, .pidfd = -1, .listener = -1 };
	if (o->allow_mounts && prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) != 0)
		return UIE_E_SYS; /* without Landlock's scope, this keeps the tree off our memory and fds */
	if (!(a = child_mem(argv, &len)))
		return UIE_E_NOMEM;
	n = uie_guest_filter_program(a->ins, UIE_FILTER_MAX, o->socket_fd < 0);
	if (n < 0) {
		munmap(a, len);
		return n;
	}
	a->prog = (struct sock_fprog){ .len = (unsigned short)n, .filter = a->ins };
	a->landlock_abi = landlock_abi;
	a->parent = getpid();
	a->allow_mounts = o->allow_mounts;
	a->pipe_ignored = pipe_ignored;
	a->argv = argv;
	a->envp = environ;
	a->path = getenv("PATH");
	if (!a->path)
		a->path = "/bin:/usr/bin"; /* execvp's default */
	a->sh_argv = (char **)(void *)(a + 1);
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) != 0) {
		munmap(a, len);
		return UIE_E_SYS;
	}
	a->sock = sv[1];
	/*
	 * From here the mapping stays until we exit, as the releaser's stack:
	 * a child that ran on it never returned from its frames, and in a
	 * sanitizer build their poisoned redzones would meet whatever a later
	 * mapping put at the same addresses.
	 */
	c = clone(child, (char *)a + len, CLONE_VM | SIGCHLD, a);
	close(sv[1]);
	if (c < 0) {
		close(sv[0]);
		munmap(a, len);
		return UIE_E_SYS;
	}
	aside = step_aside(&saved);
	if (meanwhile)
		meanwhile(ctx);
	r = recv_listener(sv[0], &sp->listener);
	close(sv[0]);
	if (aside)
		sched_setaffinity(0, sizeof(saved), &saved);
	if (r == UIE_OK) {
		sp->pidfd = (int)syscall(SYS_pidfd_open, c, 0);
		if (sp->pidfd < 0)
			r = UIE_E_SYS;
	}
	if (r != UIE_OK) {
		if (sp->listener >= 0)
			close(sp->listener);
		sp->listener = -1;
		kill(c, SIGKILL);
		waitpid(c, NULL, 0);
		return r;
	}
	sp->pid = c;
	return UIE_OK;
}
