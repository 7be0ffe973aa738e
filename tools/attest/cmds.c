/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Subcommands of the attest area.  `uie attest` executes uie-attest from
 * the directory of the running `uie` (both are installed in the same one,
 * and both sit in tools/ of a build tree), with the same arguments.
 */
#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cmd.h"

#define AGENT "uie-attest"

static int run_agent(int argc, char **argv)
{
	char self[PATH_MAX], agent[PATH_MAX + sizeof(AGENT) + 1];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);

	(void)argc;
	if (n < 0) {
		fprintf(stderr, "uie attest: /proc/self/exe: %s\n", strerror(errno));
		return UIE_EXIT_FAIL;
	}
	self[n] = '\0';
	snprintf(agent, sizeof(agent), "%s/%s", dirname(self), AGENT);
	argv[0] = agent;
	execv(agent, argv);
	fprintf(stderr, "uie attest: cannot run %s: %s\n", agent, strerror(errno));
	return UIE_EXIT_FAIL;
}

const struct uie_cmd uie_cmds_attest[] = {
	{ "attest", run_agent, "attest this machine to a fleet verifier (uie-verifierd)", NULL },
	{ NULL, NULL, NULL, NULL },
};
