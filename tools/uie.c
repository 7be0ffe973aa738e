/* SPDX-License-Identifier: Apache-2.0 */
/*
 * uie-tool: every command of `uie` (the program `uie` serves `uie run`
 * itself and executes this one for the rest, front.c).  Only dispatch lives
 * here; every subcommand is its own file.  Two-word subcommands ("policy
 * compile") are matched before one-word ones.
 */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "cmd.h"

static const struct uie_cmd *const areas[] = { uie_cmds_runtime, uie_cmds_evidence, uie_cmds_policy,
					       uie_cmds_attest, uie_cmds_snp };

/* Whether c's first word is word (NULL: every command). */
static bool in_group(const struct uie_cmd *c, const char *word)
{
	size_t n = word ? strlen(word) : 0;

	return !word || (!strncmp(c->name, word, n) && (c->name[n] == ' ' || c->name[n] == '\0'));
}

/* The commands (those whose first word is group, when not NULL) on f (NULL: none); how many. */
static int list(FILE *f, const char *group)
{
	int n = 0;

	for (size_t a = 0; a < sizeof(areas) / sizeof(areas[0]); a++)
		for (const struct uie_cmd *c = areas[a]; c->name; c++) {
			if (!in_group(c, group))
				continue;
			if (f && !n)
				fprintf(f, "usage: uie %s%sCOMMAND [ARGS...]\n\ncommands:\n",
					group ? group : "", group ? " " : "");
			if (f)
				fprintf(f, "  %-20s %s\n", c->name, c->summary);
			n++;
		}
	if (n && f)
		fprintf(f, "\n`uie COMMAND --help` for a command's options; man uie.\n");
	return n;
}

static void usage(FILE *f)
{
	list(f, NULL);
}

/*
 * `uie help [WORD]`, and `uie WORD [--help]` for the first word of
 * two-word commands ("policy", "evidence"): the commands of that group.
 * -1 when argv names no group.
 */
static int group_help(int argc, char **argv)
{
	bool help = !strcmp(argv[1], "help");
	const char *group = help ? (argc > 2 ? argv[2] : NULL) : argv[1];
	bool asked = help || (argc == 3 && (!strcmp(argv[2], "--help") || !strcmp(argv[2], "-h")));

	if (!help && argc > 3)
		return -1;
	if (!help && argc == 3 && !strcmp(argv[2], "--version")) {
		if (!list(NULL, group))
			return -1;
		printf("uie %s\n", UIE_TOOL_VERSION);
		return UIE_EXIT_OK;
	}
	if (!help && argc == 3 && !asked)
		return -1;
	if (!list(asked ? stdout : stderr, group)) {
		if (!help)
			return -1;
		fprintf(stderr, "uie help: no command '%s'\n", group);
		return UIE_EXIT_USAGE;
	}
	return asked ? UIE_EXIT_OK : UIE_EXIT_USAGE;
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

int main(int argc, char **argv)
{
	int r;

	if (argc < 2 || !strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
		usage(argc < 2 ? stderr : stdout);
		return argc < 2 ? UIE_EXIT_USAGE : UIE_EXIT_OK;
	}
	if (!strcmp(argv[1], "--version")) {
		printf("uie %s\n", UIE_TOOL_VERSION);
		return UIE_EXIT_OK;
	}
	if (!strcmp(argv[1], "help") && argc <= 3)
		return group_help(argc, argv);
	for (int words = 2; words >= 1; words--)
		for (size_t a = 0; a < sizeof(areas) / sizeof(areas[0]); a++)
			for (const struct uie_cmd *c = areas[a]; c->name; c++)
				if (match(c, argc - 1, argv + 1) == words)
					return uie_cmd_invoke(c, argc - words, argv + words);
	if (argc <= 3 && (r = group_help(argc, argv)) >= 0)
		return r;
	fprintf(stderr, "uie: unknown command '%s'\n", argv[1]);
	usage(stderr);
	return UIE_EXIT_USAGE;
}
