/* SPDX-License-Identifier: Apache-2.0 */
/*
 * `uie policy check --manifest MANIFEST... TABLE|PACKAGE`: compares a
 * policy with the files on disk that its manifests name.  Each file is
 * measured again (as `uie ref scan` does) and reported when it is gone or
 * unreadable, when it changed since the manifest, or when the policy does
 * not allow what is on disk now in its role ("not covered"); and every
 * digest the policy allows that no named file has any more is reported
 * ("stale"), with the names the manifests give it.  Exit 0 when nothing
 * is reported, 1 otherwise (as diff), 2 on a bad command line.
 */
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "uie/err.h"
#include "uie/package.h"
#include "uie/policy.h"

#include "cmd.h"
#include "hex.h"
#include "host_platform.h"
#include "lang.h"
#include "manifest.h"
#include "policy_cmds.h"
#include "scan.h"
#include "tablefile.h"

/* The request a file of a manifest role is first asked about in. */
static void primary_grant(const char *role, uint8_t *event, uint8_t *r)
{
	static const struct { const char *name; uint8_t event, role; } map[] = {
		{ "MAIN", UIE_EV_EXECVE, UIE_ROLE_MAIN },    { "INTERP", UIE_EV_EXECVE, UIE_ROLE_INTERP },
		{ "DSO", UIE_EV_MMAP_EXEC, UIE_ROLE_DSO },   { "FILE", UIE_EV_MMAP_EXEC, UIE_ROLE_FILE },
		{ "SCRIPT", UIE_EV_EXECVE, UIE_ROLE_SCRIPT }, { "JIT", UIE_EV_MPROTECT_EXEC, UIE_ROLE_ANON },
	};

	*event = UIE_EV_EXECVE;
	*r = UIE_ROLE_MAIN;
	for (size_t i = 0; i < sizeof(map) / sizeof(map[0]); i++)
		if (!strcmp(map[i].name, role)) {
			*event = map[i].event;
			*r = map[i].role;
		}
}

static void put_digest(const struct uie_digest *d)
{
	char hex[2 * UIE_DIGEST_MAX + 1];

	uie_hex_encode(hex, d->bytes, d->len);
	printf("%s:%s", uie_lang_hash_name(d->alg), hex);
}

/* Measures one named file now; 0 when *now is its digest. */
static int measure_now(const struct uie_platform *pl, uint16_t alg, const char *path,
		       struct uie_digest *now, const char **why)
{
	enum uie_scan_kind kind;
	const char *role;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	int r;

	*why = NULL;
	if (fd < 0) {
		*why = "cannot be opened";
		return -1;
	}
	r = uie_scan_measure(pl, alg, fd, path, &kind, &role, now);
	close(fd);
	if (r != UIE_OK)
		*why = uie_err_str(r);
	else if (kind != UIE_SCAN_OBJECT)
		*why = "is no longer an object the monitor measures";
	return *why ? -1 : 0;
}

static int dcmp(const void *a, const void *b)
{
	return memcmp(a, b, sizeof(struct uie_digest));
}

/* Files named by the manifests against the policy; returns the number of findings. */
static unsigned check_files(const struct uie_platform *pl, const struct uie_policy *pol,
			    const struct uie_manifest *m, struct uie_digest *now)
{
	unsigned findings = 0;

	for (size_t i = 0; i < m->n; i++) {
		const struct uie_manifest_entry *e = &m->e[i];
		const char *why;
		uint8_t ev, role, dec;
		uint16_t reason;

		if (measure_now(pl, pol->hash_alg, e->path, &now[i], &why) != 0) {
			printf("missing %s %s: %s\n", e->role, e->path_enc, why);
			memset(&now[i], 0, sizeof(now[i]));
			findings++;
			continue;
		}
		if (e->digest.alg == pol->hash_alg && memcmp(&now[i], &e->digest, sizeof(now[i])) != 0) {
			printf("changed %s %s: manifest ", e->role, e->path_enc);
			put_digest(&e->digest);
			printf(", on disk ");
			put_digest(&now[i]);
			printf("\n");
			findings++;
		}
		primary_grant(e->role, &ev, &role);
		uie_policy_lookup(pol, ev, role, now[i].bytes, &dec, &reason);
		if (dec != UIE_ALLOW || reason != UIE_R_RULE_ALLOW) {
			printf("not-covered %s %s: ", e->role, e->path_enc);
			put_digest(&now[i]);
			printf(" (op=%s role=%s)\n", uie_lang_event_name(ev), uie_lang_role_name(role));
			findings++;
		}
	}
	return findings;
}

/* ALLOW digests of the policy that no named file has now. */
static unsigned check_rules(const struct uie_policy *pol, const struct uie_manifest *m,
			    struct uie_digest *now)
{
	size_t dlen = uie_hash_len(pol->hash_alg);
	unsigned findings = 0;

	qsort(now, m->n, sizeof(*now), dcmp);
	for (uint32_t i = 0; i < pol->nrules; i++) {
		const uint8_t *q = pol->rules + (size_t)i * pol->rule_len;
		struct uie_digest d = { .alg = pol->hash_alg, .len = (uint8_t)dlen };
		size_t count;
		long first;

		/* Rules sharing a digest are adjacent: report each digest once. */
		const uint8_t *prev = i ? q - pol->rule_len : NULL;

		if (q[2] != UIE_ALLOW || (prev && !memcmp(prev + 4, q + 4, dlen) && prev[2] == UIE_ALLOW))
			continue;
		memcpy(d.bytes, q + 4, dlen);
		if (bsearch(&d, now, m->n, sizeof(*now), dcmp))
			continue;
		printf("stale ");
		put_digest(&d);
		first = uie_manifest_find(m, &d, &count);
		if (first < 0)
			printf(": allowed, no manifest names it\n");
		else
			printf(": allowed, no longer the digest of %s%s\n", m->e[first].path_enc,
			       count > 1 ? " (and others)" : "");
		findings++;
	}
	return findings;
}

int uie_cmd_policy_check(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "manifest", required_argument, NULL, 'm' },
		{ NULL, 0, NULL, 0 },
	};
	struct uie_manifest m = { 0 };
	struct uie_host_platform hp;
	struct uie_digest *now = NULL;
	struct uie_package pkg;
	struct uie_policy pol;
	unsigned findings;
	bool is_pkg, have = false;
	uint8_t *buf = NULL;
	int c, r;

	optind = 1;
	while ((c = getopt_long(argc, argv, "m:", opts, NULL)) != -1) {
		if (c != 'm' || uie_policy_read_manifest("uie policy check", optarg, &m) != UIE_OK) {
			uie_manifest_fini(&m);
			return c == 'm' ? UIE_EXIT_FAIL : UIE_EXIT_USAGE;
		}
		have = true;
	}
	if (!have || optind != argc - 1) {
		fprintf(stderr, "usage: uie policy check --manifest MANIFEST [--manifest MANIFEST]... "
				"TABLE|PACKAGE\n");
		uie_manifest_fini(&m);
		return UIE_EXIT_USAGE;
	}
	uie_manifest_sort(&m);
	r = uie_tablefile_load_alloc(argv[optind], &buf, &pol, &pkg, &is_pkg);
	if (r == UIE_OK && !(now = calloc(m.n ? m.n : 1, sizeof(*now))))
		r = UIE_E_NOMEM;
	if (r == UIE_OK && (r = uie_host_platform_init(&hp)) == UIE_OK) {
		findings = check_files(&hp.pl, &pol, &m, now);
		findings += check_rules(&pol, &m, now);
		uie_host_platform_fini(&hp);
		fprintf(stderr, "uie policy check: %zu files, %u rules: %u finding(s)\n", m.n,
			pol.nrules, findings);
	}
	free(now);
	free(buf);
	uie_manifest_fini(&m);
	if (r != UIE_OK) {
		fprintf(stderr, "uie policy check: %s: %s\n", argv[optind], uie_err_str(r));
		return UIE_EXIT_FAIL;
	}
	return findings ? UIE_EXIT_FAIL : UIE_EXIT_OK;
}
