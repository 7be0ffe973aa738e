/* SPDX-License-Identifier: Apache-2.0 */
/*
 * `uie evidence checkpoint --state FILE`: tells the monitor that the
 * verifier whose state is FILE (written by `uie verify --state` after it
 * accepted an export) holds the records it verified, so the monitor may
 * drop them from memory (docs/FORMATS.md 3.8).  The monitor accepts only
 * the vPCR16 its own chain has after that many records.
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cmd.h"
#include "conn.h"
#include "fileio.h"
#include "opts.h"
#include "subcmds.h"
#include "uie/bridge.h"
#include "uie/err.h"
#include "verify.h"

static void usage(FILE *f)
{
	fprintf(f, "usage: uie evidence checkpoint [--socket PATH] --state FILE\n");
}

int uie_cmd_evidence_checkpoint(int argc, char **argv)
{
	const char *sock = UIE_BRIDGE_DEFAULT_PATH, *state = NULL;
	const struct uie_opt t[] = {
		UIE_OPT_STRING("socket", 0, &sock),
		UIE_OPT_STRING("state", 0, &state),
		UIE_OPT_END,
	};
	const struct uie_opts spec = { .prog = "uie evidence checkpoint", .opt = t, .usage = usage };
	struct uie_verify_state st;
	uint64_t base = 0;
	int fd, r;

	if ((r = uie_opts_parse(&spec, argc, argv)) != UIE_OPTS_GO)
		return r;
	if (!state)
		return uie_opts_usage(&spec);
	if ((r = uie_verify_state_load(state, &st)) != UIE_OK || !st.valid) {
		fprintf(stderr, "uie evidence checkpoint: %s: %s\n", state,
			r != UIE_OK ? uie_file_err_str(r) : "no verified export yet");
		return UIE_EXIT_FAIL;
	}
	if (uie_tool_connect("uie evidence checkpoint", sock, &fd) != UIE_OK)
		return UIE_EXIT_FAIL;
	r = uie_bridge_checkpoint(fd, st.next_seq, st.pcr, &base);
	close(fd);
	if (r == UIE_E_BINDING) {
		fprintf(stderr,
			"uie evidence checkpoint: %s: %s (the state is not of the log of "
			"the monitor at %s)\n",
			state, uie_err_str(r), sock);
		return UIE_EXIT_FAIL;
	}
	if (r != UIE_OK) {
		uie_tool_peer_err("uie evidence checkpoint", sock, r);
		return UIE_EXIT_FAIL;
	}
	printf("checkpoint at record %llu: earlier records left the monitor's memory\n",
	       (unsigned long long)base);
	return UIE_EXIT_OK;
}
