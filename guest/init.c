/* SPDX-License-Identifier: Apache-2.0 */
/*
 * uie-init: PID 1 of a guest in VM mode.  As the kernel's init (after a
 * pre-init that loaded the virtio modules and chose the root) it mounts
 * /proc, /sys and /dev if they are not there and names the virtio-serial
 * ports in /dev/virtio-ports as udev would.  It opens the port to the
 * monitor and keeps it open for as long as it runs: a virtio-serial port
 * has one opener at a time, so nobody else in the guest can open it (EBUSY),
 * not even after the relay died.  It starts the relay to the
 * monitor outside the VM (guest/vmrelay.h), waits until it serves, then
 * starts the real init under the interceptor (`uie run`), so the guest's
 * whole user space runs supervised from its first exec (measured in
 * bootstrap until a policy is installed).  Nothing else is started
 * unsupervised: no relay, no init.  As PID 1 it reaps every orphan; once
 * the supervised tree is gone (the init and every process left behind) it
 * stops the relay and exits, or powers off with --poweroff (needed as the
 * kernel's PID 1, which must not exit; in a PID namespace it ends the
 * namespace instead).
 *
 * With --allow-mounts the tree has no Landlock domain; uie-init then loads
 * the whole-boot guard (guest/lsm/guard.h, a BPF LSM program) before the
 * tree's first exec, and starts nothing if it cannot (fail closed) unless
 * told --no-lsm.
 *
 * If the interceptor dies, the processes it supervised live on but every
 * exec, executable mmap and mprotect they try fails (the seccomp listener
 * is gone): fail closed.  uie-init does not restart it.
 */
#include <dirent.h>
#include <fcntl.h>
#include <errno.h>
#include <getopt.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/reboot.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "guard.h"
#include "hex.h"
#include "uie/bridge.h"
#include "uie/err.h"
#include "vmrelay.h"

#define READY_MS 30000

static volatile sig_atomic_t relay_stop;

static void on_term(int sig)
{
	(void)sig;
	relay_stop = 1;
}

static void say(const char *what, const char *detail)
{
	fprintf(stderr, "uie-init: %s (%s)\n", what, detail);
}

/* Starts the relay in a child (without ours, our end of its pair); returns its pid once it serves, or -1. */
static pid_t start_relay(struct uie_vmrelay_opts *o, int ours)
{
	struct pollfd p;
	char buf[8] = { 0 };
	int pfd[2];
	pid_t pid;

	if (pipe2(pfd, O_CLOEXEC) != 0)
		return -1;
	pid = fork();
	if (pid == 0) {
		struct sigaction sa = { .sa_handler = on_term };

		close(pfd[0]);
		close(ours);
		sigemptyset(&sa.sa_mask);
		sigaction(SIGTERM, &sa, NULL);
		signal(SIGPIPE, SIG_IGN);
		o->ready_fd = pfd[1];
		_exit(uie_vmrelay_run(o, &relay_stop) == UIE_OK ? 0 : 1);
	}
	close(pfd[1]);
	p = (struct pollfd){ .fd = pfd[0], .events = POLLIN };
	if (pid < 0 || poll(&p, 1, READY_MS) != 1 || read(pfd[0], buf, 6) != 6 ||
	    memcmp(buf, "READY\n", 6) != 0) {
		close(pfd[0]);
		if (pid > 0) {
			kill(pid, SIGKILL);
			waitpid(pid, NULL, 0);
		}
		return -1;
	}
	close(pfd[0]);
	return pid;
}

/* What udev would do for the guest: /proc, /sys, /dev and the port names. */
static void guest_setup(void)
{
	struct dirent *e;
	DIR *d;

	if (access("/proc/self", F_OK) != 0)
		mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL);
	if (access("/sys/class", F_OK) != 0)
		mount("sysfs", "/sys", "sysfs", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL);
	if (access("/dev/null", F_OK) != 0)
		mount("devtmpfs", "/dev", "devtmpfs", MS_NOSUID, NULL);
	if (!(d = opendir("/sys/class/virtio-ports")))
		return;
	mkdir("/dev/virtio-ports", 0755);
	while ((e = readdir(d)) != NULL) {
		char path[300], name[128], link[300], target[300];
		ssize_t n;
		int fd;

		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/sys/class/virtio-ports/%s/name", e->d_name);
		if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
			continue;
		n = read(fd, name, sizeof(name) - 1);
		close(fd);
		while (n > 0 && (name[n - 1] == '\n' || name[n - 1] == '\0'))
			n--;
		if (n <= 0 || memchr(name, '/', (size_t)n) || (n <= 2 && name[0] == '.'))
			continue; /* unnamed, or not a plain file name */
		name[n] = '\0';
		snprintf(link, sizeof(link), "/dev/virtio-ports/%s", name);
		snprintf(target, sizeof(target), "../%s", e->d_name);
		if (symlink(target, link) != 0 && errno != EEXIST)
			say("naming a virtio port", strerror(errno));
	}
	closedir(d);
}

/* True when a user-space process other than us and the relay exists (kernel threads have no cmdline). */
static bool others_alive(pid_t relay)
{
	DIR *d = opendir("/proc");
	struct dirent *e;
	bool found = false;

	if (!d)
		return false;
	while (!found && (e = readdir(d)) != NULL) {
		char path[300], c;
		uint64_t pid;
		FILE *f;

		if (uie_parse_u64(e->d_name, &pid) != UIE_OK || pid == 0 || pid > INT32_MAX ||
		    (pid_t)pid == getpid() || (pid_t)pid == relay)
			continue;
		snprintf(path, sizeof(path), "/proc/%llu/cmdline", (unsigned long long)pid);
		if (!(f = fopen(path, "re")))
			continue;
		found = fread(&c, 1, 1, f) == 1;
		fclose(f);
	}
	closedir(d);
	return found;
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: uie-init [--port DEV] [--control PATH] [--uie PATH]\n"
		"                [--poweroff] [--allow-mounts [--allow-userns | --no-lsm]] [-v]\n"
		"                -- INIT [ARGS...]\n"
		"       uie-init --help | --version\n"
		"  --port DEV     virtio-serial port to the monitor (default %s)\n"
		"  --control PATH control-only socket for `uie` tools in the tree (default %s)\n"
		"  --uie PATH     the uie command (default: uie from PATH)\n"
		"  --poweroff     power off when the supervised tree is gone (the kernel's PID 1)\n"
		"  --allow-mounts the tree may mount (systemd as INIT): uie run --allow-mounts,\n"
		"                 guarded by a BPF LSM program instead of Landlock\n"
		"  --allow-userns the tree may create user namespaces (with --allow-mounts)\n"
		"  --no-lsm       start the tree without that guard (with --allow-mounts)\n",
		UIE_VMRELAY_DEFAULT_PORT, UIE_VMRELAY_DEFAULT_CONTROL);
}

int main(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "port", required_argument, NULL, 'p' },
		{ "uie", required_argument, NULL, 'u' },
		{ "poweroff", no_argument, NULL, 'P' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ "control", required_argument, NULL, 'c' },
		{ "allow-mounts", no_argument, NULL, 'M' },
		{ "allow-userns", no_argument, NULL, 'U' },
		{ "no-lsm", no_argument, NULL, 'L' },
		{ "version", no_argument, NULL, 'V' },
		{ 0 },
	};
	struct uie_vmrelay_opts o = { .control = UIE_VMRELAY_DEFAULT_CONTROL,
				      .ready_fd = -1,
				      .port = UIE_VMRELAY_DEFAULT_PORT,
				      .port_fd = -1,
				      .client_fd = -1 };
	const char *uie = "uie";
	bool poweroff = false, sup_done = false, allow_mounts = false, allow_userns = false, lsm = true;
	struct uie_guard *guard = NULL;
	const char *step;
	int c, status = 0, rc = 1, pair[2];
	char fdarg[16];
	pid_t relay, sup;

	while ((c = getopt_long(argc, argv, "+v", lo, NULL)) != -1) {
		switch (c) {
		case 'p': o.port = optarg; break;
		case 'c': o.control = optarg; break;
		case 'u': uie = optarg; break;
		case 'P': poweroff = true; break;
		case 'M': allow_mounts = true; break;
		case 'U': allow_userns = true; break;
		case 'L': lsm = false; break;
		case 'v': o.verbose = 1; break;
		case 'h': usage(stdout); return 0;
		case 'V': printf("uie-init %s\n", UIE_VERSION); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (optind >= argc) {
		usage(stderr);
		return 2;
	}
	if (getpid() != 1)
		prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); /* orphans come to us, as to PID 1 */
	guest_setup();
	signal(SIGPIPE, SIG_IGN);
	/* Without a Landlock domain, the guard stands in for it, or nothing starts. */
	if (allow_mounts && lsm) {
		if (uie_guard_start(allow_userns, &guard, &step) != UIE_OK) {
			fprintf(stderr,
				"uie-init: the whole-boot guard (BPF LSM) could not be %s: %s; "
				"not starting init (--no-lsm starts it unguarded)\n",
				step, strerror(errno));
			goto out;
		}
		/* The tree's root must not take our descriptors (pidfd_getfd needs ptrace access). */
		prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
	}
	/* Ours until we end (the relay uses the same open file): no other opener while we live. */
	if ((c = uie_bridge_connect(o.port, &o.port_fd)) != UIE_OK) {
		say("cannot open the port to the monitor; not starting init", uie_err_str(c));
		goto out;
	}
	/*
	 * The interceptor's connection is a socket pair, not a path: nothing in
	 * the guest listens for reports, so the tree may use SOCK_SEQPACKET
	 * (guest/filter.c; docs/THREAT-MODEL.md).
	 */
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, pair) != 0) {
		say("socketpair for the interceptor; not starting init", strerror(errno));
		goto out;
	}
	o.client_fd = pair[0];
	relay = start_relay(&o, pair[1]);
	close(pair[0]);
	if (relay < 0) {
		close(pair[1]);
		/* No monitor, no user space: nothing may run unmeasured. */
		say("the relay to the monitor did not start; not starting init", o.port);
		goto out;
	}
	sup = fork();
	if (sup == 0) {
		char **av = calloc((size_t)(argc - optind) + 7, sizeof(char *));
		int k = 0;

		if (!av || fcntl(pair[1], F_SETFD, 0) != 0)
			_exit(127);
		if (guard && uie_guard_join(guard) != UIE_OK) {
			say("marking the tree for the whole-boot guard", strerror(errno));
			_exit(127);
		}
		signal(SIGPIPE, SIG_DFL); /* ignored by us, not by the tree */
		snprintf(fdarg, sizeof(fdarg), "%d", pair[1]);
		av[k++] = (char *)"uie";
		av[k++] = (char *)"run";
		av[k++] = (char *)"--socket-fd";
		av[k++] = fdarg;
		if (allow_mounts)
			av[k++] = (char *)"--allow-mounts"; /* systemd as INIT mounts */
		av[k++] = (char *)"--";
		for (int i = optind; i < argc; i++)
			av[k++] = argv[i];
		execvp(uie, av);
		_exit(127);
	}
	close(pair[1]);
	if (sup < 0) {
		say("fork", strerror(errno));
		goto stop;
	}
	for (;;) {
		int st;
		/*
		 * Once the init is gone, look again every 100 ms rather than wait for a
		 * child: a process others_alive() counts need not be ours to wait for
		 * (one the kernel started, such as a modprobe), and with only the
		 * relay left as a child, a blocking wait would never return.
		 */
		pid_t pid = waitpid(-1, &st, sup_done ? WNOHANG : 0);

		if (pid < 0 && errno == EINTR)
			continue;
		if (pid < 0)
			break;
		if (pid == 0) {
			if (!others_alive(relay))
				break;
			poll(NULL, 0, 100);
			continue;
		}
		if (pid == relay) {
			say("the relay ended: every request is now refused", "fail closed");
			relay = -1;
		}
		if (pid == sup) {
			sup_done = true;
			status = st;
		}
		if (sup_done && !others_alive(relay))
			break;
	}
	rc = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
stop:
	if (relay > 0) {
		kill(relay, SIGTERM);
		waitpid(relay, NULL, 0);
	}
out:
	if (poweroff) {
		sync();
		reboot(RB_POWER_OFF);
	}
	return rc;
}
