/* SPDX-License-Identifier: Apache-2.0 */
/* Running one subcommand, with the options every subcommand shares. */
#include <stdio.h>
#include <string.h>

#include "cmd.h"

/*
 * --help and --version the same way for every subcommand: anywhere before
 * "--" (for `run`, only before PROGRAM: only as its first argument, since
 * what follows may be the program's own options).  --help is left to the
 * commands that print their own; --version is answered here.
 */
int uie_cmd_invoke(const struct uie_cmd *c, int argc, char **argv)
{
	int last = strcmp(c->name, "run") == 0 ? (argc > 1 ? 1 : 0) : argc - 1;

	for (int i = 1; i <= last && strcmp(argv[i], "--") != 0; i++) {
		if (!strcmp(argv[i], "--version")) {
			printf("uie %s\n", UIE_TOOL_VERSION);
			return UIE_EXIT_OK;
		}
		if (c->usage && (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h"))) {
			printf("usage: uie %s %s\n\n%s\n", c->name, c->usage, c->summary);
			return UIE_EXIT_OK;
		}
	}
	return c->fn(argc, argv);
}
