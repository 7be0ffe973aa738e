/* SPDX-License-Identifier: Apache-2.0 */
/*
 * libFuzzer target: the policy table loader and lookup.  An accepted table
 * must re-encode to the same bytes (its sources included), and every rule
 * in it must be found.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "uie/err.h"
#include "uie/policy.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct uie_policy pol;
	struct uie_policy_sources src;
	struct uie_policy_rule *rules;
	uint8_t *out;
	size_t outlen;
	int r = uie_policy_load(data, size, &pol);

	if (r != UIE_OK) {
		if (r >= 0 || pol.rules || pol.nrules)
			abort();
		return 0;
	}
	rules = calloc(pol.nrules ? pol.nrules : 1, sizeof(*rules));
	out = malloc(size);
	if (!rules || !out)
		abort();
	for (uint32_t i = 0; i < pol.nrules; i++) {
		const uint8_t *q = pol.rules + (size_t)i * pol.rule_len;
		uint8_t dec;
		uint16_t reason;

		rules[i].event = q[0];
		rules[i].role = q[1];
		rules[i].action = q[2];
		memcpy(rules[i].digest, q + 4, pol.rule_len - 4);
		uie_policy_lookup(&pol, q[0], q[1], q + 4, &dec, &reason);
		/* Deny wins: an allow rule only yields ALLOW when no deny rule shares its key. */
		if (q[2] == UIE_DENY && (dec != UIE_DENY || reason != UIE_R_RULE_DENY))
			abort();
		if (q[2] == UIE_ALLOW && reason == UIE_R_DEFAULT)
			abort();
	}
	/* The sources too (require=, trust_fs=): a table that carries them must keep them. */
	src = (struct uie_policy_sources){ .flags = pol.flags, .trusted_fs = pol.trusted_fs };
	if (uie_policy_encode_sources(pol.mode, pol.default_action, pol.hash_alg, &src, rules, pol.nrules,
				      out, size, &outlen) != UIE_OK ||
	    outlen != size || memcmp(out, data, size) != 0)
		abort();
	free(rules);
	free(out);
	return 0;
}
