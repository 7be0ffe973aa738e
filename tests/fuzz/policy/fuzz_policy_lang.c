/* SPDX-License-Identifier: Apache-2.0 */
/*
 * libFuzzer target: the policy-language and manifest parsers.  Accepted
 * input must compile to a table that loads, prints, and compiles back to
 * the same bytes; rejected input must say where (line >= 1, column >= 1).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "uie/err.h"
#include "uie/policy.h"

#include "lang.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void round_trip(const struct uie_lang_policy *p)
{
	struct uie_lang_policy q;
	struct uie_lang_err err;
	struct uie_policy pol;
	uint8_t *t1, *t2;
	size_t l1, l2, tl = 0;
	char *text = NULL;
	FILE *f;

	if (uie_lang_compile_alloc(p, &t1, &l1) != UIE_OK)
		abort();
	if (uie_policy_load(t1, l1, &pol) != UIE_OK || !(f = open_memstream(&text, &tl)))
		abort();
	if (uie_lang_print(f, &pol, "fuzz") != UIE_OK)
		abort();
	fclose(f);
	if (uie_lang_parse(text, tl, &q, &err) != UIE_OK || uie_lang_compile_alloc(&q, &t2, &l2) != UIE_OK)
		abort();
	if (l1 != l2 || memcmp(t1, t2, l1) != 0)
		abort();
	uie_lang_policy_fini(&q);
	free(text);
	free(t1);
	free(t2);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct uie_lang_policy p;
	struct uie_lang_err err;
	int r;

	if (size > 1 << 16)
		return 0;
	if (uie_lang_is_manifest((const char *)data, size))
		r = uie_lang_parse_manifest((const char *)data, size, UIE_MODE_ENFORCE, UIE_DENY, &p, &err);
	else
		r = uie_lang_parse((const char *)data, size, &p, &err);
	if (r != UIE_OK) {
		if (p.rules || (r == UIE_E_FORMAT && (err.line < 1 || err.col < 1 || !err.msg[0])))
			abort();
		return 0;
	}
	round_trip(&p);
	uie_lang_policy_fini(&p);
	return 0;
}
