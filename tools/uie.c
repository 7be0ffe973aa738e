/* SPDX-License-Identifier: Apache-2.0 */
/*
 * `uie`: the guest-side and TTP command.  Only dispatch lives here; every
 * subcommand is its own file.  Two-word subcommands ("policy compile") are
 * matched before one-word ones.
 */
#include <stdio.h>
#include <string.h>

#include "cmd.h"

static const struct uie_cmd *const areas[] = { uie_cmds_runtime, uie_cmds_evidence, uie_cmds_policy,
					       uie_cmds_attest };

static void usage(FILE *f)
{
	fprintf(f, "usage: uie COMMAND [ARGS...]\n\ncommands:\n");
	for (size_t a = 0; a < sizeof(areas) / sizeof(areas[0]); a++)
		for (const struct uie_cmd *c = areas[a]; c->name; c++)
			fprintf(f, "  %-20s %s\n", c->name, c->summary);
}

/* Number of words of argv that name cmd, or 0 when it does not match. */
static int match(const struct uie_cmd *c, int argc, char **argv)
{
	const char *sp = strchr(c->name, ' ');

	if (!sp)
		return strcmp(c->name, argv[0]) == 0 ? 1 : 0;
	if (argc < 2 || strncmp(c->name, argv[0], (size_t)(sp - c->name)) != 0 ||
	    argv[0][sp - c->name] != '\0' || strcmp(sp + 1, argv[1]) != 0)
		return 0;
	return 2;
}

/*
 * --help and --version the same way for every subcommand: anywhere before
 * "--" (for `run`, only before PROGRAM: only as its first argument, since
 * what follows may be the program's own options).  --help is left to the
 * commands that print their own; --version is answered here.
 */
static int common_option(const struct uie_cmd *c, int argc, char **argv)
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
	return -1;
}

int main(int argc, char **argv)
{
	if (argc < 2 || !strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
		usage(argc < 2 ? stderr : stdout);
		return argc < 2 ? UIE_EXIT_USAGE : UIE_EXIT_OK;
	}
	if (!strcmp(argv[1], "--version")) {
		printf("uie %s\n", UIE_TOOL_VERSION);
		return UIE_EXIT_OK;
	}
	for (int words = 2; words >= 1; words--)
		for (size_t a = 0; a < sizeof(areas) / sizeof(areas[0]); a++)
			for (const struct uie_cmd *c = areas[a]; c->name; c++)
				if (match(c, argc - 1, argv + 1) == words) {
					int r = common_option(c, argc - words, argv + words);

					return r >= 0 ? r : c->fn(argc - words, argv + words);
				}
	fprintf(stderr, "uie: unknown command '%s'\n", argv[1]);
	usage(stderr);
	return UIE_EXIT_USAGE;
}
