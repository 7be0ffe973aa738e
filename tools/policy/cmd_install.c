/* SPDX-License-Identifier: Apache-2.0 */
/*
 * `uie policy install PACKAGE [--socket PATH]`: the guest side only
 * forwards; the monitor decides (docs/BRIDGE.md).
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "uie/bridge.h"
#include "uie/err.h"
#include "uie/package.h"

#include "cmd.h"
#include "conn.h"
#include "fileio.h"
#include "host_platform.h"
#include "opts.h"
#include "subcmds.h"

static void usage(FILE *f)
{
	fprintf(f, "usage: uie policy install PACKAGE [--socket PATH]\n");
}

/*
 * Reads the package; a file that is not one at all (empty, a table, text)
 * is named as such here rather than blamed on the monitor.  Anything that
 * starts like a package goes to the monitor, which checks it and logs a
 * refusal (docs/FORMATS.md 4.2).
 */
static int read_package(const char *path, uint8_t **pkg, size_t *len)
{
	size_t magic = sizeof(UIE_PACKAGE_MAGIC) - 1;
	int r;

	if ((r = uie_file_read_alloc(path, UIE_PACKAGE_MAX_LEN, pkg, len)) != UIE_OK) {
		fprintf(stderr, "uie policy install: %s: %s\n", path, uie_file_err_str(r));
		return r;
	}
	if (*len < magic || memcmp(*pkg, UIE_PACKAGE_MAGIC, magic) != 0) {
		fprintf(stderr, "uie policy install: %s: not a policy package (%s)\n", path,
			*len ? "no " UIE_PACKAGE_MAGIC " header" : "empty file");
		free(*pkg);
		*pkg = NULL;
		return UIE_E_FORMAT;
	}
	return UIE_OK;
}

/* Why the monitor found the package's epoch wrong: equal, a rollback, or above the ceiling. */
static void say_epoch(const char *sock, const char *path, const uint8_t *pkg, size_t len)
{
	static const char pre[] = "uie policy install: rejected by the monitor";
	struct uie_host_platform hp;
	struct uie_status st;
	struct uie_package p;
	bool have_st = false;
	int fd, r = uie_host_platform_init(&hp);

	if (r == UIE_OK) {
		r = uie_package_parse(&hp.pl, pkg, len, &p);
		uie_host_platform_fini(&hp);
	}
	if (r == UIE_OK && p.epoch <= UIE_EPOCH_MAX && uie_bridge_connect(sock, &fd) == UIE_OK) {
		have_st = uie_bridge_status(fd, &st) == UIE_OK;
		close(fd);
	}
	if (r != UIE_OK)
		fprintf(stderr, "%s: %s: %s\n", pre, path, uie_err_str(UIE_E_EPOCH));
	else if (p.epoch > UIE_EPOCH_MAX)
		fprintf(stderr, "%s: %s: epoch %llu is above the highest a package may have (%llu)\n", pre,
			path, (unsigned long long)p.epoch, (unsigned long long)UIE_EPOCH_MAX);
	else if (!have_st)
		fprintf(stderr, "%s: %s: epoch %llu is not above the epoch in force\n", pre, path,
			(unsigned long long)p.epoch);
	else if (p.epoch == st.epoch)
		fprintf(stderr,
			"%s: %s: epoch %llu is the epoch in force already: an update needs a greater one\n",
			pre, path, (unsigned long long)p.epoch);
	else
		fprintf(stderr, "%s: %s: epoch %llu is below the epoch in force %llu (a rollback)\n", pre,
			path, (unsigned long long)p.epoch, (unsigned long long)st.epoch);
}

int uie_cmd_policy_install(int argc, char **argv)
{
	const char *sock = UIE_BRIDGE_DEFAULT_PATH;
	const struct uie_opt t[] = { UIE_OPT_STRING("socket", 's', &sock), UIE_OPT_END };
	const struct uie_opts spec = {
		.prog = "uie policy install", .opt = t, .usage = usage, .min_operands = 1, .max_operands = 1
	};
	uint8_t *pkg;
	size_t len;
	int fd, r, merr = UIE_E_PEER, i;

	if ((r = uie_opts_parse(&spec, argc, argv)) != UIE_OPTS_GO)
		return r;
	i = optind;
	if (read_package(argv[i], &pkg, &len) != UIE_OK)
		return UIE_EXIT_FAIL;
	if (uie_tool_connect("uie policy install", sock, &fd) != UIE_OK) {
		free(pkg);
		return UIE_EXIT_FAIL;
	}
	r = uie_bridge_install(fd, pkg, len, &merr);
	close(fd);
	if (r != UIE_OK)
		uie_tool_peer_err("uie policy install", sock, r);
	else if (merr == UIE_E_EPOCH)
		say_epoch(sock, argv[i], pkg, len);
	else if (merr != UIE_OK)
		fprintf(stderr, "uie policy install: rejected by the monitor: %s\n", uie_err_str(merr));
	free(pkg);
	if (r != UIE_OK || merr != UIE_OK)
		return UIE_EXIT_FAIL;
	printf("installed %s\n", argv[i]);
	return UIE_EXIT_OK;
}
