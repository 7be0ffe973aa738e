/* SPDX-License-Identifier: Apache-2.0 */
/*
 * uie-vmrelay: serves the guest's local bridge socket and forwards to the
 * monitor outside the VM over a virtio-serial port (guest/vmrelay.h).
 * uie-init runs the same relay; this program is for guests whose init is
 * not replaced, and for tests.
 */
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>

#include "hex.h"
#include "uie/bridge.h"
#include "uie/err.h"
#include "vmrelay.h"

static volatile sig_atomic_t stop_flag;

static void on_signal(int sig)
{
	(void)sig;
	stop_flag = 1;
}

static int usage(FILE *f)
{
	fprintf(f,
		"usage: uie-vmrelay [--port DEV] [--socket PATH] [--control PATH] [--ready-fd N] [-v]\n"
		"  --port DEV      virtio-serial port to the monitor (default %s)\n"
		"  --socket PATH   the guest's bridge socket it serves (default %s)\n"
		"  --control PATH  framed stream socket for supervised trees\n"
		"  --ready-fd N    write \"READY\\n\" to fd N (3 or more) once serving\n"
		"  -v, --verbose   notes on stderr\n",
		UIE_VMRELAY_DEFAULT_PORT, UIE_BRIDGE_DEFAULT_PATH);
	return f == stdout ? 0 : 2;
}

int main(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "port", required_argument, NULL, 'p' },     { "socket", required_argument, NULL, 's' },
		{ "ready-fd", required_argument, NULL, 'r' }, { "verbose", no_argument, NULL, 'v' },
		{ "control", required_argument, NULL, 'c' },  { "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },        { 0 },
	};
	struct uie_vmrelay_opts o = { .port = UIE_VMRELAY_DEFAULT_PORT,
				      .socket = UIE_BRIDGE_DEFAULT_PATH,
				      .ready_fd = -1,
				      .port_fd = -1,
				      .client_fd = -1 };
	struct sigaction sa = { .sa_handler = on_signal };
	uint64_t fd;
	int c;

	while ((c = getopt_long(argc, argv, "vh", lo, NULL)) != -1) {
		switch (c) {
		case 'p': o.port = optarg; break;
		case 's': o.socket = optarg; break;
		case 'c': o.control = optarg; break;
		case 'r':
			if (uie_parse_u64(optarg, &fd) != UIE_OK || fd < 3 || fd > 1024) {
				fprintf(stderr, "uie-vmrelay: bad --ready-fd '%s' (3 to 1024)\n", optarg);
				return 2;
			}
			o.ready_fd = (int)fd;
			break;
		case 'v': o.verbose = 1; break;
		case 'h': return usage(stdout);
		case 'V': printf("uie-vmrelay %s\n", UIE_VERSION); return 0;
		default: return usage(stderr);
		}
	}
	if (optind != argc)
		return usage(stderr);
	sigemptyset(&sa.sa_mask);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	return uie_vmrelay_run(&o, &stop_flag) == UIE_OK ? 0 : 1;
}
