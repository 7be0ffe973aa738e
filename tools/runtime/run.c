/* SPDX-License-Identifier: Apache-2.0 */
/* `uie run [options] -- PROGRAM ARGS...`: run PROGRAM under the interceptor. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "cmd.h"
#include "guest.h"
#include "opts.h"
#include "subcmds.h"
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

/* --socket-fd N: the handed-over connection, an open socket kept from the tree (close-on-exec). */
static int socket_fd_option(void *socket_fd, const char *arg)
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
		return UIE_EXIT_USAGE;
	}
	*(int *)socket_fd = (int)fd;
	return UIE_OPTS_GO;
}

int uie_cmd_run(int argc, char **argv)
{
	struct uie_guest_opts o = {
		.socket_path = UIE_BRIDGE_DEFAULT_PATH, .socket_fd = -1, .fanotify = true, .fast_path = true
	};
	const struct uie_opt t[] = {
		UIE_OPT_STRING("socket", 's', &o.socket_path),
		UIE_OPT_CALL("socket-fd", 'f', socket_fd_option, &o.socket_fd),
		UIE_OPT_FLAG("allow-mounts", 0, UIE_OPTK_SET, &o.allow_mounts),
		UIE_OPT_FLAG("no-fanotify", 'F', UIE_OPTK_CLEAR, &o.fanotify),
		UIE_OPT_FLAG("no-fast-path", 'P', UIE_OPTK_CLEAR, &o.fast_path),
		UIE_OPT_COUNT("verbose", 'v', &o.verbose),
		UIE_OPT_FLAG("timing", 0, UIE_OPTK_SET, &o.timing),
		UIE_OPT_END,
	};
	/* In order: stop at PROGRAM so that its options stay its own. */
	const struct uie_opts spec = { .prog = "uie run",
				       .opt = t,
				       .usage = usage,
				       .in_order = true,
				       .min_operands = 1,
				       .max_operands = UIE_OPTS_ANY };
	int status, r;

	if ((r = uie_opts_parse(&spec, argc, argv)) != UIE_OPTS_GO)
		return r;
	r = uie_guest_run(&o, argv + optind, &status);
	if (r != UIE_OK) {
		fprintf(stderr, "uie run: cannot supervise %s: %s\n", argv[optind], uie_err_str(r));
		return 125;
	}
	return status;
}
