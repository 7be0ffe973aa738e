/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The verifier's memory of one monitor between exports, as a small JSON
 * file: clock information (for the never-going-back checks) and the
 * verified log prefix (for incremental exports).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "fileio.h"
#include "hex.h"
#include "uie/err.h"
#include "verify.h"

#define STATE_VERSION 1

/* A non-negative integer member no larger than max. */
static int get_uint(json_t *o, const char *key, uint64_t max, uint64_t *v)
{
	json_t *j = json_object_get(o, key);

	if (!json_is_integer(j) || json_integer_value(j) < 0 || (uint64_t)json_integer_value(j) > max)
		return UIE_E_FORMAT;
	*v = (uint64_t)json_integer_value(j);
	return UIE_OK;
}

/* A string member of exactly 2*n lowercase hex digits, as state_save writes them. */
static int hex_member(json_t *o, const char *key, uint8_t *out, size_t n)
{
	const char *s = json_string_value(json_object_get(o, key));

	for (const char *c = s; c && *c; c++)
		if (*c >= 'A' && *c <= 'F')
			return UIE_E_FORMAT;
	return uie_hex_decode(s, s ? strlen(s) : 0, out, n);
}

int uie_verify_state_load(const char *path, struct uie_verify_state *st)
{
	json_error_t jerr;
	json_t *o;
	uint64_t ver = 0, reset = 0, restart = 0, mode = 0;

	if (!st)
		return UIE_E_INVAL;
	memset(st, 0, sizeof(*st));
	if (!path)
		return UIE_E_INVAL;
	if (access(path, F_OK) != 0)
		return errno == ENOENT ? UIE_OK : UIE_E_IO;
	if (!(o = json_load_file(path, JSON_REJECT_DUPLICATES, &jerr)))
		return UIE_E_FORMAT;
	if (!json_is_object(o) || get_uint(o, "version", 255, &ver) != UIE_OK || ver != STATE_VERSION ||
	    get_uint(o, "clock", INT64_MAX, &st->clock) != UIE_OK ||
	    get_uint(o, "reset_count", UINT32_MAX, &reset) != UIE_OK ||
	    get_uint(o, "restart_count", UINT32_MAX, &restart) != UIE_OK ||
	    get_uint(o, "next_seq", INT64_MAX, &st->next_seq) != UIE_OK ||
	    get_uint(o, "epoch", INT64_MAX, &st->epoch) != UIE_OK ||
	    get_uint(o, "mode", UIE_MODE__MAX - 1, &mode) != UIE_OK ||
	    hex_member(o, "pcr", st->pcr, sizeof(st->pcr)) != UIE_OK ||
	    hex_member(o, "policy_id", st->policy_id, sizeof(st->policy_id)) != UIE_OK) {
		json_decref(o);
		memset(st, 0, sizeof(*st));
		return UIE_E_FORMAT;
	}
	json_decref(o);
	st->reset_count = (uint32_t)reset;
	st->restart_count = (uint32_t)restart;
	st->mode = (uint8_t)mode;
	st->valid = true;
	return UIE_OK;
}

int uie_verify_state_save(const char *path, const struct uie_verify_state *st)
{
	char pcr[65], pid[65], *text, *nl;
	size_t len;
	json_t *o;
	int r;

	if (!path || !st || !st->valid || st->clock > INT64_MAX || st->next_seq > INT64_MAX ||
	    st->epoch > INT64_MAX)
		return UIE_E_INVAL;
	uie_hex_encode(pcr, st->pcr, sizeof(st->pcr));
	uie_hex_encode(pid, st->policy_id, sizeof(st->policy_id));
	o = json_pack("{s:i, s:I, s:I, s:I, s:I, s:s, s:I, s:i, s:s}", "version", STATE_VERSION, "clock",
		      (json_int_t)st->clock, "reset_count", (json_int_t)st->reset_count, "restart_count",
		      (json_int_t)st->restart_count, "next_seq", (json_int_t)st->next_seq, "pcr", pcr,
		      "epoch", (json_int_t)st->epoch, "mode", (int)st->mode, "policy_id", pid);
	if (!o)
		return UIE_E_NOMEM;
	text = json_dumps(o, JSON_INDENT(2) | JSON_SORT_KEYS);
	json_decref(o);
	if (!text)
		return UIE_E_NOMEM;
	len = strlen(text);
	if (!(nl = realloc(text, len + 2))) {
		free(text);
		return UIE_E_NOMEM;
	}
	nl[len++] = '\n';
	r = uie_file_write_atomic(path, nl, len, 0600);
	free(nl);
	return r;
}
