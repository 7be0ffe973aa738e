/* SPDX-License-Identifier: Apache-2.0 */
/* From parsed rules to a table, and from a table back to policy text. */
#include "lang.h"

#include <stdlib.h>
#include <string.h>

#include "uie/err.h"
#include "uie/names.h"

int uie_lang_compile_alloc(const struct uie_lang_policy *p, uint8_t **out, size_t *outlen)
{
	struct uie_policy_rule *rules = NULL;
	size_t cap;
	uint8_t *buf;
	int r;

	if (out)
		*out = NULL;
	if (outlen)
		*outlen = 0;
	if (!p || !out || !outlen)
		return UIE_E_INVAL;
	cap = uie_policy_encoded_len(p->hash_alg, p->nrules);
	if (!cap)
		return UIE_E_LIMIT;
	if (!(buf = malloc(cap)))
		return UIE_E_NOMEM;
	if (p->nrules && !(rules = calloc(p->nrules, sizeof(*rules)))) {
		free(buf);
		return UIE_E_NOMEM;
	}
	for (uint32_t i = 0; i < p->nrules; i++)
		rules[i] = p->rules[i].r;
	r = uie_policy_encode_sources(p->mode, p->default_action, p->hash_alg, &p->src, rules, p->nrules, buf,
				      cap, outlen);
	free(rules);
	if (r != UIE_OK) {
		free(buf);
		*outlen = 0;
		return r;
	}
	*out = buf;
	return UIE_OK;
}

int uie_lang_print(FILE *f, const struct uie_policy *pol, const char *name)
{
	return uie_lang_print_noted(f, pol, name, NULL, NULL);
}

int uie_lang_print_noted(FILE *f, const struct uie_policy *pol, const char *name,
			 const char *(*note)(void *ctx, const uint8_t *digest), void *ctx)
{
	size_t dlen;

	if (!f || !pol || !name)
		return UIE_E_INVAL;
	dlen = uie_hash_len(pol->hash_alg);
	if (!dlen || !uie_lang_hash_name(pol->hash_alg))
		return UIE_E_ALG;
	fprintf(f, "# policy_name and policy_version are not stored in a compiled table\n");
	fprintf(f, "policy_name=%s policy_version=0.0.0\n", name);
	fprintf(f, "mode=%s\n", uie_mode_name(pol->mode));
	fprintf(f, "DEFAULT action=%s\n", pol->default_action == UIE_ALLOW ? "ALLOW" : "DENY");
	if (pol->flags & UIE_POLICY_REQUIRE_IMMUTABLE)
		fprintf(f, "require=immutable\n");
	for (unsigned k = 1; k < UIE_FS__MAX; k++)
		if (pol->trusted_fs & (1u << k))
			fprintf(f, "trust_fs=%s\n", uie_fs_name(k));
	for (uint32_t i = 0; i < pol->nrules; i++) {
		/* A loaded table's rule: event, role, action, reserved, digest. */
		const uint8_t *q = pol->rules + (size_t)i * pol->rule_len;
		const char *ev = uie_lang_event_name(q[0]), *role = uie_lang_role_name(q[1]);

		if (!ev || !role)
			return UIE_E_FORMAT;
		fprintf(f, "op=%s role=%s digest=%s:", ev, role, uie_lang_hash_name(pol->hash_alg));
		for (size_t k = 0; k < dlen; k++)
			fprintf(f, "%02x", q[pol->rule_len - dlen + k]);
		fprintf(f, " action=%s", q[2] == UIE_ALLOW ? "ALLOW" : "DENY");
		const char *n = note ? note(ctx, q + pol->rule_len - dlen) : NULL;

		if (n && !strchr(n, '\n'))
			fprintf(f, "   # %s", n);
		fputc('\n', f);
	}
	return ferror(f) ? UIE_E_IO : UIE_OK;
}
