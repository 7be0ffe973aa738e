/* SPDX-License-Identifier: Apache-2.0 */
/*
 * `uie policy compile [--mode enforce|measure] [--default deny|allow]
 *  [--trust-fs KIND]... [--require-immutable] INPUT -o TABLE`
 * INPUT is policy text (docs/POLICY.md) or a reference manifest (text or
 * JSON, as `uie ref scan` writes either); the options set mode and default
 * for a manifest and override the text's; --trust-fs and
 * --require-immutable add to what the text says (trust_fs=, require=).
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "uie/err.h"
#include "uie/names.h"
#include "uie/policy.h"

#include "cmd.h"
#include "lang.h"
#include "fileio.h"
#include "manifest.h"
#include "policy_cmds.h"

#define MAX_INPUT (256u << 20)

static void usage(FILE *f)
{
	fprintf(f, "usage: uie policy compile [--mode enforce|measure] [--default deny|allow]\n"
		   "                          [--trust-fs KIND]... [--require-immutable] INPUT -o TABLE\n");
}

int uie_cmd_policy_compile(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "mode", required_argument, NULL, 'm' },
		{ "default", required_argument, NULL, 'd' },
		{ "output", required_argument, NULL, 'o' },
		{ "trust-fs", required_argument, NULL, 't' },
		{ "require-immutable", no_argument, NULL, 'i' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct uie_policy_sources src = { 0 };
	int mode = -1, def = -1, c, r, k;
	const char *out = NULL;
	struct uie_lang_policy pol;
	struct uie_lang_err err;
	uint8_t *text, *table;
	size_t len, tlen;

	optind = 1;
	while ((c = getopt_long(argc, argv, "m:d:o:h", opts, NULL)) != -1) {
		switch (c) {
		case 'm':
			mode = !strcmp(optarg, "enforce")   ? UIE_MODE_ENFORCE
			       : !strcmp(optarg, "measure") ? UIE_MODE_MEASURE
							    : -2;
			break;
		case 'd':
			def = !strcmp(optarg, "deny") ? UIE_DENY : !strcmp(optarg, "allow") ? UIE_ALLOW : -2;
			break;
		case 'o': out = optarg; break;
		case 't':
			if ((k = uie_lang_fs_kind(optarg, strlen(optarg))) < 0) {
				fprintf(stderr,
					"uie policy compile: --trust-fs: unknown file system kind '%s'\n",
					optarg);
				return UIE_EXIT_USAGE;
			}
			src.trusted_fs |= 1u << k;
			break;
		case 'i': src.flags |= UIE_POLICY_REQUIRE_IMMUTABLE; break;
		case 'h': usage(stdout); return UIE_EXIT_OK;
		default: usage(stderr); return UIE_EXIT_USAGE;
		}
	}
	if (mode == -2 || def == -2 || !out || optind != argc - 1) {
		usage(stderr);
		return UIE_EXIT_USAGE;
	}
	if ((r = uie_file_read_alloc(argv[optind], MAX_INPUT, &text, &len)) != UIE_OK) {
		fprintf(stderr, "uie policy compile: %s: %s\n", argv[optind], uie_file_err_str(r));
		return UIE_EXIT_FAIL;
	}
	if (uie_manifest_is_json((const char *)text, len)) {
		/* The JSON form of a manifest: compiled through its text form. */
		struct uie_manifest m = { 0 };
		char why[256], *mt;
		size_t ml;

		r = uie_manifest_read((const char *)text, len, &m, why, sizeof(why));
		free(text);
		if (r == UIE_E_FORMAT) {
			fprintf(stderr, "%s: error: %s\n", argv[optind], why);
			return UIE_EXIT_FAIL;
		}
		if (r == UIE_OK)
			r = uie_manifest_text_alloc(&m, &mt, &ml);
		uie_manifest_fini(&m);
		if (r != UIE_OK) {
			fprintf(stderr, "uie policy compile: %s: %s\n", argv[optind], uie_err_str(r));
			return UIE_EXIT_FAIL;
		}
		text = (uint8_t *)mt;
		len = ml;
	}
	if (uie_lang_is_manifest((const char *)text, len))
		r = uie_lang_parse_manifest((const char *)text, len,
					    mode >= 0 ? (uint8_t)mode : UIE_MODE_ENFORCE,
					    def >= 0 ? (uint8_t)def : UIE_DENY, &pol, &err);
	else
		r = uie_lang_parse((const char *)text, len, &pol, &err);
	free(text);
	if (r == UIE_E_FORMAT) {
		fprintf(stderr, "%s:%u:%u: error: %s\n", argv[optind], err.line, err.col, err.msg);
		return UIE_EXIT_FAIL;
	}
	if (r != UIE_OK) {
		fprintf(stderr, "uie policy compile: %s: %s\n", argv[optind], uie_err_str(r));
		return UIE_EXIT_FAIL;
	}
	if (mode >= 0)
		pol.mode = (uint8_t)mode;
	if (def >= 0)
		pol.default_action = (uint8_t)def;
	pol.src.flags |= src.flags;
	pol.src.trusted_fs |= src.trusted_fs;
	r = uie_lang_compile_alloc(&pol, &table, &tlen);
	if (r == UIE_OK) {
		r = uie_file_write_atomic(out, table, tlen, 0644);
		free(table);
	}
	if (r != UIE_OK)
		fprintf(stderr, "uie policy compile: %s: %s\n", out, uie_file_err_str(r));
	else
		fprintf(stderr, "compiled %s (%s %u.%u.%u): %u rules, %s, default %s\n", argv[optind],
			pol.name, pol.version[0], pol.version[1], pol.version[2], pol.nrules,
			uie_mode_name(pol.mode), pol.default_action == UIE_ALLOW ? "ALLOW" : "DENY");
	uie_lang_policy_fini(&pol);
	return r == UIE_OK ? UIE_EXIT_OK : UIE_EXIT_FAIL;
}
