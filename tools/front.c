/* SPDX-License-Identifier: Apache-2.0 */
/*
 * `uie`: serves `uie run` itself and executes uie-tool, with the same
 * arguments, for every other command.  `uie run` starts every supervised
 * program, so this program links no cryptographic, TSS or JSON library:
 * loading and relocating libcrypto alone was about a third of the start-up
 * `uie run` added to a program (docs/PERFORMANCE.md, issue 27).
 *
 * uie-tool is installed in LIBEXECDIR/uie.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cmd.h"

/* After a failed execv of path: the message and the exit status (the shell's 127 and 126). */
static int exec_failed(const char *path)
{
	int e = errno;

	fprintf(stderr, "uie: cannot execute %s: %s\n", path, strerror(e));
	return e == ENOENT ? 127 : 126;
}

/* Executes path's directory (its first dir bytes) joined with rel; returns only on failure. */
static void exec_in(char *path, size_t dir, const char *rel, char **argv)
{
	size_t len = strlen(rel);

	if (dir + len >= PATH_MAX) {
		errno = ENAMETOOLONG;
		return;
	}
	memcpy(path + dir, rel, len + 1);
	execv(path, argv);
}

/*
 * Executes uie-tool with argv; returns (an exit status) only on failure.
 * Relative to this program: beside it (a build tree), then where the
 * installation puts it (any prefix, and a --destdir tree); the configured
 * absolute path only when /proc/self/exe cannot be read.
 */
static int exec_tool(char **argv)
{
	char path[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", path, sizeof(path) - 1);
	char *slash = NULL;
	size_t dir;

	if (n > 0) {
		path[n] = '\0';
		slash = strrchr(path, '/');
	}
	if (!slash) {
		execv(UIE_TOOL_PATH, argv);
		return exec_failed(UIE_TOOL_PATH);
	}
	dir = (size_t)(slash - path) + 1;
	exec_in(path, dir, "uie-tool", argv);
	if (errno == ENOENT)
		exec_in(path, dir, UIE_TOOL_REL, argv);
	return exec_failed(path);
}

int main(int argc, char **argv)
{
	if (argc >= 2 && !strcmp(argv[1], "--version")) {
		printf("uie %s\n", UIE_TOOL_VERSION);
		return UIE_EXIT_OK;
	}
	for (const struct uie_cmd *c = uie_cmds_runtime; argc >= 2 && c->name; c++)
		if (!strcmp(c->name, argv[1]))
			return uie_cmd_invoke(c, argc - 1, argv + 1);
	return exec_tool(argv);
}
