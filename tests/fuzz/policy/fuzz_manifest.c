/* SPDX-License-Identifier: Apache-2.0 */
/*
 * libFuzzer target: the manifest reader (text and JSON).  Accepted input
 * must convert to the text form, which reads back to the same entries and
 * compiles as a manifest; rejected input must say why and leave nothing.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "uie/err.h"

#include "lang.h"
#include "manifest.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void same(const struct uie_manifest *a, const struct uie_manifest *b)
{
	if (a->n != b->n)
		abort();
	for (size_t i = 0; i < a->n; i++)
		if (strcmp(a->e[i].role, b->e[i].role) || strcmp(a->e[i].path, b->e[i].path) ||
		    memcmp(&a->e[i].digest, &b->e[i].digest, sizeof(a->e[i].digest)))
			abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct uie_manifest m = { 0 }, again = { 0 };
	struct uie_lang_policy p;
	struct uie_lang_err err;
	char why[256], *text;
	size_t len;
	int r = uie_manifest_read((const char *)data, size, &m, why, sizeof(why));

	if (r != UIE_OK) {
		if (m.n || m.e || (r == UIE_E_FORMAT && !why[0]))
			abort();
		return 0;
	}
	if (uie_manifest_text_alloc(&m, &text, &len) != UIE_OK)
		abort();
	if (uie_manifest_read(text, len, &again, why, sizeof(why)) != UIE_OK)
		abort();
	same(&m, &again);
	/* Mixed algorithms are the compiler's to refuse; anything else must compile. */
	r = uie_lang_parse_manifest(text, len, UIE_MODE_ENFORCE, UIE_DENY, &p, &err);
	if (r == UIE_OK)
		uie_lang_policy_fini(&p);
	else if (r != UIE_E_FORMAT || !strstr(err.msg, "algorithm"))
		abort();
	free(text);
	uie_manifest_fini(&m);
	uie_manifest_fini(&again);
	return 0;
}
