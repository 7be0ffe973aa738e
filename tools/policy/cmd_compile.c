/* SPDX-License-Identifier: Apache-2.0 */
/*
 * `uie policy compile [--mode enforce|measure] [--default deny|allow]
 *  [--trust-fs KIND]... [--require-immutable] INPUT -o TABLE`
 * INPUT is policy text (docs/POLICY.md) or a reference manifest (text or
 * JSON, as `uie ref scan` writes either); the options set mode and default
 * for a manifest and override the text's; --trust-fs and
 * --require-immutable add to what the text says (trust_fs=, require=).
 */
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
#include "opts.h"
#include "subcmds.h"

#define MAX_INPUT (256u << 20)

static void usage(FILE *f)
{
	fprintf(f, "usage: uie policy compile [--mode enforce|measure] [--default deny|allow]\n"
		   "                          [--trust-fs KIND]... [--require-immutable] INPUT -o TABLE\n");
}

/* --trust-fs KIND: the kind's bit in the policy's trusted file systems. */
static int trust_fs_option(void *ctx, const char *arg)
{
	struct uie_policy_sources *src = ctx;
	int k = uie_lang_fs_kind(arg, strlen(arg));

	if (k < 0) {
		fprintf(stderr, "uie policy compile: --trust-fs: unknown file system kind '%s'\n", arg);
		return UIE_EXIT_USAGE;
	}
	src->trusted_fs |= 1u << k;
	return UIE_OPTS_GO;
}

int uie_cmd_policy_compile(int argc, char **argv)
{
	const char *mode_arg = NULL, *def_arg = NULL, *out = NULL;
	struct uie_policy_sources src = { 0 };
	bool immutable = false, manifest;
	const struct uie_opt t[] = {
		UIE_OPT_STRING("mode", 'm', &mode_arg),
		UIE_OPT_STRING("default", 'd', &def_arg),
		UIE_OPT_STRING("output", 'o', &out),
		UIE_OPT_CALL("trust-fs", 0, trust_fs_option, &src),
		UIE_OPT_FLAG("require-immutable", 0, UIE_OPTK_SET, &immutable),
		UIE_OPT_END,
	};
	const struct uie_opts spec = {
		.prog = "uie policy compile", .opt = t, .usage = usage, .min_operands = 1, .max_operands = 1
	};
	int mode, def, r;
	struct uie_lang_policy pol;
	struct uie_lang_err err;
	uint8_t *text, *table;
	size_t len, tlen;

	if ((r = uie_opts_parse(&spec, argc, argv)) != UIE_OPTS_GO)
		return r;
	mode = !mode_arg                      ? -1
	       : !strcmp(mode_arg, "enforce") ? UIE_MODE_ENFORCE
	       : !strcmp(mode_arg, "measure") ? UIE_MODE_MEASURE
					      : -2;
	def = !def_arg                    ? -1
	      : !strcmp(def_arg, "deny")  ? UIE_DENY
	      : !strcmp(def_arg, "allow") ? UIE_ALLOW
					  : -2;
	if (mode == -2 || def == -2 || !out)
		return uie_opts_usage(&spec);
	if (immutable)
		src.flags |= UIE_POLICY_REQUIRE_IMMUTABLE;
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
	manifest = uie_lang_is_manifest((const char *)text, len);
	if (manifest)
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
	if (manifest && pol.nrules == 0 && pol.default_action == UIE_DENY)
		fprintf(stderr,
			"uie policy compile: warning: %s lists no objects: the table denies every "
			"execution\n",
			argv[optind]);
	pol.src.flags |= src.flags;
	pol.src.trusted_fs |= src.trusted_fs;
	r = uie_lang_compile_alloc(&pol, &table, &tlen);
	if (r == UIE_OK) {
		r = uie_file_write_output(out, table, tlen, 0644);
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
