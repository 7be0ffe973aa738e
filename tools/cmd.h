/* SPDX-License-Identifier: Apache-2.0 */
/* The `uie` command: a table of subcommands, one file each. */
#ifndef UIE_TOOLS_CMD_H
#define UIE_TOOLS_CMD_H

struct uie_cmd {
	const char *name;                 /* "run", "verify", "policy compile", ... */
	int (*fn)(int argc, char **argv); /* argv[0] is the subcommand name */
	const char *summary;
	/* Synopsis after "uie NAME" printed for --help; NULL: the command prints its own help. */
	const char *usage;
};

/* Each area's table, terminated by an entry with name NULL. */
extern const struct uie_cmd uie_cmds_runtime[];
extern const struct uie_cmd uie_cmds_evidence[];
extern const struct uie_cmd uie_cmds_policy[];
extern const struct uie_cmd uie_cmds_attest[];
extern const struct uie_cmd uie_cmds_snp[];

/*
 * Runs c (argv[0] is its name) after the options every subcommand shares
 * (--version; --help for a command with a usage line).
 */
int uie_cmd_invoke(const struct uie_cmd *c, int argc, char **argv);

/* Exit codes shared by all subcommands (uie verify adds its own, see verify). */
enum uie_exit {
	UIE_EXIT_OK = 0,
	UIE_EXIT_FAIL = 1,  /* the operation failed */
	UIE_EXIT_USAGE = 2, /* bad command line */
};

#endif
