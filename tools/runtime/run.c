/* SPDX-License-Identifier: Apache-2.0 */
/* `uie run [options] -- PROGRAM ARGS...`: run PROGRAM under the interceptor. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "cmd.h"
#include "guest.h"
#include "runtime.h"
#include "uie/bridge.h"
#include "uie/err.h"

static void usage(FILE *f)
{
	fprintf(f,
		"usage: uie run [--socket PATH | --socket-fd N] [--allow-mounts] [--no-fanotify] "
		"[--no-fast-path] [-v] [--timing] -- PROGRAM [ARGS...]\n"
		"  --socket PATH   monitor socket (default %s)\n"
		"  --socket-fd N   the monitor connection, already open as descriptor N (uie-init:\n"
		"                  no socket path to the monitor exists, so the tree may use "
		"SOCK_SEQPACKET)\n"
		"  --allow-mounts  the tree may mount (a systemd boot): no Landlock domain, no "
		"CAP_SYS_PTRACE\n"
		"                  in the tree; writes to code through /proc/PID/mem are not refused\n"
		"  --no-fanotify   check execve by path only, even as root\n"
		"  --no-fast-path  ask the monitor even when its Bloom hint proves a refusal\n"
		"  -v              notes on the setup; twice: every grant (refusals always)\n"
		"  --timing        at the end, where the run spent its time (microseconds)\n"
		"Exit status: PROGRAM's (128+N when killed by signal N); 127 when PROGRAM\n"
		"is not found; 126 when its execution was refused; 125 when the\n"
		"supervision could not be set up.\n",
		UIE_BRIDGE_DEFAULT_PATH);
}

/* The handed-over connection: an open socket, kept from the tree (close-on-exec); or -1. */
static int socket_fd(const char *arg)
{
	char *end;
	long fd;
	int type;
	socklen_t len = sizeof(type);

	errno = 0;
	fd = strtol(arg, &end, 10);
	if (*arg == '\0' || *end != '\0' || fd < 0 || fd > INT_MAX ||
	    getsockopt((int)fd, SOL_SOCKET, SO_TYPE, &type, &len) != 0 || type != SOCK_SEQPACKET ||
	    fcntl((int)fd, F_SETFD, FD_CLOEXEC) != 0) {
		fprintf(stderr, "uie run: --socket-fd %s: not an open SOCK_SEQPACKET socket: %s\n", arg,
			errno ? strerror(errno) : "wrong type");
		return -1;
	}
	return (int)fd;
}

int uie_cmd_run(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "socket", required_argument, NULL, 's' },
		{ "socket-fd", required_argument, NULL, 'f' },
		{ "allow-mounts", no_argument, NULL, 'M' },
		{ "no-fanotify", no_argument, NULL, 'F' },
		{ "no-fast-path", no_argument, NULL, 'P' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "timing", no_argument, NULL, 'T' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct uie_guest_opts o = {
		.socket_path = UIE_BRIDGE_DEFAULT_PATH, .socket_fd = -1, .fanotify = true, .fast_path = true
	};
	int c, status, r;

	optind = 1;
	/* '+': stop at PROGRAM so that its options stay its own. */
	while ((c = getopt_long(argc, argv, "+s:f:FPvh", longopts, NULL)) != -1) {
		switch (c) {
		case 's': o.socket_path = optarg; break;
		case 'f':
			if ((o.socket_fd = socket_fd(optarg)) < 0)
				return UIE_EXIT_USAGE;
			break;
		case 'M': o.allow_mounts = true; break;
		case 'F': o.fanotify = false; break;
		case 'P': o.fast_path = false; break;
		case 'v': o.verbose++; break;
		case 'T': o.timing = true; break;
		case 'h': usage(stdout); return UIE_EXIT_OK;
		default: usage(stderr); return UIE_EXIT_USAGE;
		}
	}
	if (optind >= argc) {
		usage(stderr);
		return UIE_EXIT_USAGE;
	}
	r = uie_guest_run(&o, argv + optind, &status);
	if (r != UIE_OK) {
		fprintf(stderr, "uie run: cannot supervise %s: %s\n", argv[optind], uie_err_str(r));
		return 125;
	}
	return status;
}
