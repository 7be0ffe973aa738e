/* SPDX-License-Identifier: Apache-2.0 */
/*
 * `uie policy show [--key PUB] [--json] [--manifest MANIFEST]... TABLE|PACKAGE`: a
 * compiled table (or a package's) as policy text; with manifests, each rule
 * names the paths that have its digest in a comment (tables store digests
 * only).  With --key a package is shown only when its signature verifies by
 * that key; without, stderr says that it was not checked.  --json: the
 * same as one JSON object (docs/POLICY.md section 3).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "uie/err.h"
#include "uie/package.h"
#include "uie/names.h"
#include "uie/policy.h"

#include <jansson.h>

#include "cmd.h"
#include "hex.h"
#include "host_platform.h"
#include "json.h"
#include "lang.h"
#include "fileio.h"
#include "manifest.h"
#include "opts.h"
#include "subcmds.h"
#include "tablefile.h"

#define NAMES_SHOWN 3

static void show_package(const struct uie_package *p, const char *key)
{
	printf("# package: epoch %llu, bound to %llu records, vPCR16 ", (unsigned long long)p->epoch,
	       (unsigned long long)p->bind_seq);
	for (int i = 0; i < UIE_PCR_LEN; i++)
		printf("%02x", p->bind_pcr[i]);
	printf("\n# key id ");
	for (int i = 0; i < UIE_SHA256_LEN; i++)
		printf("%02x", p->key_id[i]);
	printf(", hint %zu bytes, package hash ", p->hint_len);
	for (int i = 0; i < UIE_SHA256_LEN; i++)
		printf("%02x", p->package_hash[i]);
	if (key)
		printf("\n# signature: good (verified with %s)", key);
	printf("\n");
}

struct namer {
	const struct uie_manifest *m;
	uint16_t alg;
	char buf[1024];
};

/* The paths of a digest: the first few, and how many more. */
static const char *names_of(void *ctx, const uint8_t *digest)
{
	struct namer *n = ctx;
	struct uie_digest d = { .alg = n->alg, .len = (uint8_t)uie_hash_len(n->alg) };
	size_t count, w = 0;
	long first;

	memcpy(d.bytes, digest, d.len);
	if ((first = uie_manifest_find(n->m, &d, &count)) < 0)
		return "(not in the manifests)";
	n->buf[0] = '\0';
	for (size_t i = 0; i < count && i < NAMES_SHOWN; i++) {
		const char *p = n->m->e[(size_t)first + i].path_enc;

		w += (size_t)snprintf(n->buf + w, sizeof(n->buf) - w, "%s%s", i ? " " : "", p);
		if (w >= sizeof(n->buf))
			break;
	}
	if (count > NAMES_SHOWN && w < sizeof(n->buf))
		snprintf(n->buf + w, sizeof(n->buf) - w, " (+%zu more)", count - NAMES_SHOWN);
	return n->buf;
}

/* The package's fields as a JSON object; signature: what was checked. */
static json_t *package_json(const struct uie_package *p, const char *key)
{
	char pcr[2 * UIE_PCR_LEN + 1], id[2 * UIE_SHA256_LEN + 1], hash[2 * UIE_SHA256_LEN + 1];

	uie_hex_encode(pcr, p->bind_pcr, UIE_PCR_LEN);
	uie_hex_encode(id, p->key_id, UIE_SHA256_LEN);
	uie_hex_encode(hash, p->package_hash, UIE_SHA256_LEN);
	return json_pack("{s:o, s:o, s:s, s:s, s:o, s:s, s:s}", "epoch", uie_json_u64(p->epoch), "bind_seq",
			 uie_json_u64(p->bind_seq), "bind_pcr", pcr, "key_id", id, "hint_len",
			 uie_json_u64(p->hint_len), "package_hash", hash, "signature",
			 key ? "good" : "not checked");
}

/* The table (and package) as one JSON object: mode, default, rules with their paths. */
static int print_json(const struct uie_policy *pol, const struct uie_package *pkg, const char *key,
		      struct namer *nm)
{
	size_t dlen = uie_hash_len(pol->hash_alg);
	const char *alg = uie_lang_hash_name(pol->hash_alg);
	char dig[8 + 2 * UIE_DIGEST_MAX + 1];
	json_t *rules = json_array(), *rule, *fs = json_array();
	int r = rules && fs && alg ? UIE_OK : UIE_E_NOMEM;

	for (unsigned k = 1; r == UIE_OK && k < UIE_FS__MAX; k++)
		if ((pol->trusted_fs & (1u << k)) &&
		    json_array_append_new(fs, json_string(uie_fs_name(k))) != 0)
			r = UIE_E_NOMEM;

	for (uint32_t i = 0; r == UIE_OK && i < pol->nrules; i++) {
		/* A loaded table's rule: event, role, action, reserved, digest. */
		const uint8_t *q = pol->rules + (size_t)i * pol->rule_len;
		const char *ev = uie_event_name(q[0]), *role = uie_role_name(q[1]);

		if (!ev || !role) {
			r = UIE_E_FORMAT;
			break;
		}
		snprintf(dig, sizeof(dig), "%s:", alg);
		uie_hex_encode(dig + strlen(dig), q + pol->rule_len - dlen, dlen);
		rule = json_pack("{s:s, s:s, s:s, s:s}", "op", ev, "role", role, "digest", dig, "action",
				 q[2] == UIE_ALLOW ? "ALLOW" : "DENY");
		if (rule && nm->m->n)
			json_object_set_new(rule, "paths",
					    json_string(names_of(nm, q + pol->rule_len - dlen)));
		if (!rule || json_array_append_new(rules, rule) != 0)
			r = UIE_E_NOMEM;
	}
	if (r == UIE_OK)
		r = uie_json_print(json_pack(
			"{s:o, s:s, s:s, s:s, s:b, s:O, s:O}", "package",
			pkg ? package_json(pkg, key) : json_null(), "mode", uie_mode_name(pol->mode),
			"default", pol->default_action == UIE_ALLOW ? "ALLOW" : "DENY", "hash_alg", alg,
			"require_immutable", (pol->flags & UIE_POLICY_REQUIRE_IMMUTABLE) != 0, "trust_fs", fs,
			"rules", rules));
	json_decref(rules);
	json_decref(fs);
	return r;
}

static void usage(FILE *f)
{
	fprintf(f, "usage: uie policy show [--key PUB] [--json] [--manifest MANIFEST]... TABLE|PACKAGE\n");
}

int uie_cmd_policy_show(int argc, char **argv)
{
	struct uie_review_args a = { .cmd = "uie policy show" };
	const struct uie_opt t[] = {
		UIE_OPT_CALL("manifest", 'm', uie_review_manifest_option, &a),
		UIE_OPT_STRING("key", 0, &a.key),
		UIE_OPT_FLAG("json", 0, UIE_OPTK_SET, &a.json),
		UIE_OPT_END,
	};
	const struct uie_opts spec = {
		.prog = a.cmd, .opt = t, .usage = usage, .min_operands = 1, .max_operands = 1
	};
	struct uie_package pkg;
	struct uie_policy pol;
	struct namer nm;
	bool is_pkg;
	uint8_t *buf;
	char name[32];
	int r;

	r = uie_opts_parse(&spec, argc, argv);
	if ((r = uie_review_start_alloc(&a, r, argv[optind], &buf, &pol, &pkg, &is_pkg)) != UIE_OPTS_GO)
		return r;
	nm = (struct namer){ .m = &a.m, .alg = pol.hash_alg };
	if (a.json) {
		r = print_json(&pol, is_pkg ? &pkg : NULL, a.key, &nm);
	} else {
		if (is_pkg)
			show_package(&pkg, a.key);
		/* Tables store no name: a stable placeholder so the text compiles back. */
		snprintf(name, sizeof(name), "table-%u-rules", pol.nrules);
		r = uie_lang_print_noted(stdout, &pol, name, a.named ? names_of : NULL, &nm);
	}
	free(buf);
	uie_manifest_fini(&a.m);
	if (r != UIE_OK) {
		fprintf(stderr, "uie policy show: %s: %s\n", argv[optind], uie_err_str(r));
		return UIE_EXIT_FAIL;
	}
	return UIE_EXIT_OK;
}
