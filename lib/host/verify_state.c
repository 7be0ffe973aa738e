/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The verifier's memory of one monitor between exports, as a small JSON
 * file: clock information (for the never-going-back checks) and the
 * verified log prefix (for incremental exports).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "uie/err.h"
#include "verify.h"

#define STATE_VERSION 1

static void hex(char *out, const uint8_t *p, size_t n)
{
	static const char d[] = "0123456789abcdef";

	for (size_t i = 0; i < n; i++) {
		out[2 * i] = d[p[i] >> 4];
		out[2 * i + 1] = d[p[i] & 15];
	}
	out[2 * n] = '\0';
}

static int unhex(const char *s, uint8_t *out, size_t n)
{
	if (!s || strlen(s) != 2 * n)
		return UIE_E_FORMAT;
	for (size_t i = 0; i < n; i++) {
		unsigned v = 0;

		for (int k = 0; k < 2; k++) {
			char c = s[2 * i + (size_t)k];

			v <<= 4;
			if (c >= '0' && c <= '9')
				v |= (unsigned)(c - '0');
			else if (c >= 'a' && c <= 'f')
				v |= (unsigned)(c - 'a' + 10);
			else
				return UIE_E_FORMAT;
		}
		out[i] = (uint8_t)v;
	}
	return UIE_OK;
}

/* A non-negative integer member no larger than max. */
static int get_uint(json_t *o, const char *key, uint64_t max, uint64_t *v)
{
	json_t *j = json_object_get(o, key);

	if (!json_is_integer(j) || json_integer_value(j) < 0 || (uint64_t)json_integer_value(j) > max)
		return UIE_E_FORMAT;
	*v = (uint64_t)json_integer_value(j);
	return UIE_OK;
}

int uie_verify_state_load(const char *path, struct uie_verify_state *st)
{
	json_error_t jerr;
	json_t *o;
	uint64_t ver = 0, reset = 0, restart = 0, mode = 0;
	int r;

	if (!st)
		return UIE_E_INVAL;
	memset(st, 0, sizeof(*st));
	if (!path)
		return UIE_E_INVAL;
	if (access(path, F_OK) != 0)
		return errno == ENOENT ? UIE_OK : UIE_E_IO;
	if (!(o = json_load_file(path, JSON_REJECT_DUPLICATES, &jerr)))
		return UIE_E_FORMAT;
	if (!json_is_object(o) || (r = get_uint(o, "version", 255, &ver)) != UIE_OK ||
	    ver != STATE_VERSION || (r = get_uint(o, "clock", INT64_MAX, &st->clock)) != UIE_OK ||
	    (r = get_uint(o, "reset_count", UINT32_MAX, &reset)) != UIE_OK ||
	    (r = get_uint(o, "restart_count", UINT32_MAX, &restart)) != UIE_OK ||
	    (r = get_uint(o, "next_seq", INT64_MAX, &st->next_seq)) != UIE_OK ||
	    (r = get_uint(o, "epoch", INT64_MAX, &st->epoch)) != UIE_OK ||
	    (r = get_uint(o, "mode", UIE_MODE__MAX - 1, &mode)) != UIE_OK ||
	    (r = unhex(json_string_value(json_object_get(o, "pcr")), st->pcr, sizeof(st->pcr))) != UIE_OK ||
	    (r = unhex(json_string_value(json_object_get(o, "policy_id")), st->policy_id,
		       sizeof(st->policy_id))) != UIE_OK) {
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
	char pcr[65], pid[65], tmp[4096];
	json_t *o;
	int r = UIE_E_IO, fd;

	if (!path || !st || !st->valid || st->clock > INT64_MAX || st->next_seq > INT64_MAX ||
	    st->epoch > INT64_MAX)
		return UIE_E_INVAL;
	if (snprintf(tmp, sizeof(tmp), "%s.tmp", path) >= (int)sizeof(tmp))
		return UIE_E_LIMIT;
	hex(pcr, st->pcr, sizeof(st->pcr));
	hex(pid, st->policy_id, sizeof(st->policy_id));
	o = json_pack("{s:i, s:I, s:I, s:I, s:I, s:s, s:I, s:i, s:s}", "version", STATE_VERSION,
		      "clock", (json_int_t)st->clock, "reset_count", (json_int_t)st->reset_count,
		      "restart_count", (json_int_t)st->restart_count, "next_seq",
		      (json_int_t)st->next_seq, "pcr", pcr, "epoch", (json_int_t)st->epoch, "mode",
		      (int)st->mode, "policy_id", pid);
	if (!o)
		return UIE_E_NOMEM;
	if ((fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600)) >= 0) {
		if (json_dumpfd(o, fd, JSON_INDENT(2) | JSON_SORT_KEYS) == 0 && write(fd, "\n", 1) == 1 &&
		    fsync(fd) == 0)
			r = UIE_OK;
		if (close(fd) != 0)
			r = UIE_E_IO;
		if (r == UIE_OK && rename(tmp, path) != 0)
			r = UIE_E_IO;
		if (r != UIE_OK)
			unlink(tmp);
	}
	json_decref(o);
	return r;
}
