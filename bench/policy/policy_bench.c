/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Policy benchmark (issue 5): what the fast path and installation cost.
 *   - Bloom hint query (definite miss and hit) in a 100,000-digest hint,
 *     next to a policy-table lookup of the same table: the fast path's
 *     own cost, to set against one monitor round trip;
 *   - package install (parse, ECDSA verify, binding, table load) of a
 *     100,000-rule package into a real core, and `uie policy sign`-style
 *     signing with the Bloom hint.
 * Prints one line per measurement; no goals are asserted here.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <openssl/evp.h>
#include <openssl/pem.h>

#include "uie/core.h"
#include "uie/err.h"
#include "uie/package.h"

#include "bloom.h"
#include "host_platform.h"
#include "pkgbuild.h"

#define NRULES 100000u
#define NQUERY 2000000u

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void digest_of(uint32_t tag, uint32_t i, uint8_t d[32])
{
	uint8_t in[8] = { (uint8_t)tag,       (uint8_t)(tag >> 8), 0, 0, (uint8_t)i, (uint8_t)(i >> 8),
			  (uint8_t)(i >> 16), (uint8_t)(i >> 24) };

	EVP_Digest(in, sizeof(in), d, NULL, EVP_sha256(), NULL);
}

static int cmp_rule(const void *a, const void *b)
{
	return uie_policy_rule_cmp(a, b, 32);
}

static int sink_append(void *ctx, const uint8_t rec[UIE_LOG_RECORD_LEN], const uint8_t lrh[UIE_PCR_LEN])
{
	(void)ctx;
	(void)rec;
	(void)lrh;
	return UIE_OK;
}

int main(void)
{
	struct uie_policy_rule *rules = calloc(NRULES, sizeof(*rules));
	size_t cap = uie_policy_encoded_len(UIE_HASH_SHA256, NRULES), tlen, plen;
	uint8_t *table = malloc(cap), *pkg, (*probe)[32] = malloc(2048 * 32);
	struct uie_host_platform hp;
	struct uie_log_sink sink = { .append = sink_append };
	struct uie_core core;
	struct uie_package p;
	struct uie_policy pol;
	struct uie_bloom b;
	struct pkg_params pp = { .epoch = 1, .bind_seq = 1, .hint = true };
	EVP_PKEY *key = EVP_PKEY_Q_keygen(NULL, NULL, "EC", "P-256");
	volatile unsigned sink_hits = 0;
	uint8_t dec;
	uint16_t reason;
	double t0, t1;
	int r;

	if (!rules || !table || !probe || !key || uie_host_platform_init(&hp) != UIE_OK)
		return 1;
	for (uint32_t i = 0; i < NRULES; i++) {
		rules[i].event = UIE_EV_EXECVE;
		rules[i].role = UIE_ROLE_MAIN;
		rules[i].action = UIE_ALLOW;
		digest_of(1, i, rules[i].digest);
	}
	qsort(rules, NRULES, sizeof(*rules), cmp_rule);
	if (uie_policy_encode(UIE_MODE_ENFORCE, UIE_DENY, UIE_HASH_SHA256, rules, NRULES, table, cap,
			      &tlen) != UIE_OK ||
	    uie_policy_load(table, tlen, &pol) != UIE_OK)
		return 1;
	if (uie_core_init(&core, &hp.pl, &sink, UIE_HASH_SHA256) != UIE_OK)
		return 1;
	memcpy(pp.bind_pcr, core.vpcr, 32);
	t0 = now_s();
	r = pkg_build_alloc(key, table, tlen, &pp, &pkg, &plen);
	t1 = now_s();
	if (r != UIE_OK)
		return 1;
	printf("sign %u-rule package with hint: %.1f ms (%zu bytes)\n", NRULES, (t1 - t0) * 1e3, plen);
	if (uie_package_parse(&hp.pl, pkg, plen, &p) != UIE_OK ||
	    uie_bloom_parse(p.hint, p.hint_len, &b) != UIE_OK)
		return 1;
	for (uint32_t i = 0; i < 2048; i++)
		digest_of(2, i, probe[i]); /* not in the policy */
	t0 = now_s();
	for (uint32_t i = 0; i < NQUERY; i++)
		sink_hits += uie_bloom_maybe_contains(&b, probe[i & 2047], 32);
	t1 = now_s();
	printf("hint query, miss: %.1f ns (%.2f%% false positives)\n", (t1 - t0) * 1e9 / NQUERY,
	       100.0 * sink_hits / NQUERY);
	t0 = now_s();
	for (uint32_t i = 0; i < NQUERY; i++)
		sink_hits += uie_bloom_maybe_contains(&b, rules[(i * 7919u) % NRULES].digest, 32);
	t1 = now_s();
	printf("hint query, hit: %.1f ns\n", (t1 - t0) * 1e9 / NQUERY);
	t0 = now_s();
	for (uint32_t i = 0; i < NQUERY; i++) {
		uie_policy_lookup(&pol, UIE_EV_EXECVE, UIE_ROLE_MAIN, probe[i & 2047], &dec, &reason);
		sink_hits += dec;
	}
	t1 = now_s();
	printf("table lookup, miss (for comparison): %.1f ns\n", (t1 - t0) * 1e9 / NQUERY);
	/* The binding names the one record the core has logged. */
	{
		FILE *f = fopen("/tmp/uie-policy-bench.pub", "w");

		if (!f || PEM_write_PUBKEY(f, key) != 1 || fclose(f) != 0 ||
		    uie_host_platform_add_key_file(&hp, "/tmp/uie-policy-bench.pub", NULL) != UIE_OK)
			return 1;
		remove("/tmp/uie-policy-bench.pub");
	}
	t0 = now_s();
	r = uie_package_install(&core, pkg, plen, NULL, NULL);
	t1 = now_s();
	printf("install %u-rule package: %.1f ms (%s)\n", NRULES, (t1 - t0) * 1e3, uie_err_str(r));
	free(pkg);
	free(rules);
	free(table);
	free(probe);
	EVP_PKEY_free(key);
	uie_host_platform_fini(&hp);
	return r == UIE_OK ? 0 : 1;
}
