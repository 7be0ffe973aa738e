/* SPDX-License-Identifier: Apache-2.0 */
/* CEL-JSON rendering of the secure log (see cel.h). */
#include "cel.h"

#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "hex.h"
#include "json.h"
#include "uie/err.h"
#include "uie/slog.h"

static char *hex_alloc(const uint8_t *p, size_t n)
{
	char *s = malloc(2 * n + 1);

	if (s)
		uie_hex_encode(s, p, n);
	return s;
}

static const char *alg_name(uint16_t alg)
{
	return alg == UIE_HASH_SHA256 ? "sha256" : alg == UIE_HASH_SHA384 ? "sha384" : "none";
}

/* Adds key -> hex string of p to o; false on allocation failure. */
static bool set_hex(json_t *o, const char *key, const uint8_t *p, size_t n)
{
	char *h = hex_alloc(p, n);
	bool ok = h && json_object_set_new(o, key, json_string(h)) == 0;

	free(h);
	return ok;
}

static json_t *content(const struct uie_log_record *r, const uint8_t *raw)
{
	json_t *c = json_pack("{s:o, s:i, s:o, s:i, s:o, s:{s:o, s:o, s:o, s:I, s:I}, s:o, s:o, s:o, "
			      "s:s, s:i, s:i, s:i, s:i}",
			      "seq", uie_json_u64(r->seq), "event_type", r->event_type, "epoch",
			      uie_json_u64(r->epoch), "role", r->role, "pid", uie_json_u64(r->pid), "file",
			      "dev", uie_json_u64(r->id.dev), "ino", uie_json_u64(r->id.ino), "size",
			      uie_json_u64(r->id.size), "mtime_ns", (json_int_t)r->id.mtime_ns, "ctime_ns",
			      (json_int_t)r->id.ctime_ns, "vaddr", uie_json_u64(r->vaddr), "length",
			      uie_json_u64(r->length), "file_offset", uie_json_u64(r->file_offset),
			      "digest_alg", alg_name(r->digest.alg), "scope", r->scope, "mode", r->mode,
			      "decision", r->decision, "reason", r->reason);

	if (!c || !set_hex(c, "digest", r->digest.bytes, r->digest.len) ||
	    !set_hex(c, "body", raw, UIE_LOG_BODY_LEN)) {
		json_decref(c);
		return NULL;
	}
	return c;
}

static json_t *record(const struct uie_log_record *r, const uint8_t *raw)
{
	json_t *dg = json_object(), *c = content(r, raw), *o;

	if (!dg || !c || !set_hex(dg, "digest", r->lrh, UIE_PCR_LEN) ||
	    json_object_set_new(dg, "hashAlg", json_string("sha256")) != 0) {
		json_decref(dg);
		json_decref(c);
		return NULL;
	}
	o = json_pack("{s:o, s:i, s:[o], s:s, s:o}", "recnum", uie_json_u64(r->seq), "pcr", (int)r->pcr_index,
		      "digests", dg, "content_type", "uie_log_record", "content", c);
	return o;
}

int uie_cel_json_alloc(const uint8_t *recs, uint64_t first_seq, uint64_t n, char **out)
{
	struct uie_log_record r;
	json_t *arr;
	int e;

	if (!out)
		return UIE_E_INVAL;
	*out = NULL;
	if (!recs && n)
		return UIE_E_INVAL;
	if (!(arr = json_array()))
		return UIE_E_NOMEM;
	for (uint64_t i = 0; i < n; i++) {
		const uint8_t *p = recs + i * UIE_LOG_RECORD_LEN;
		json_t *o;

		if ((e = uie_log_decode(p, UIE_LOG_RECORD_LEN, &r)) != UIE_OK || r.seq != first_seq + i) {
			json_decref(arr);
			return e != UIE_OK ? e : UIE_E_ORDER;
		}
		if (!(o = record(&r, p)) || json_array_append_new(arr, o) != 0) {
			json_decref(arr);
			return UIE_E_NOMEM;
		}
	}
	*out = json_dumps(arr, JSON_INDENT(1) | JSON_PRESERVE_ORDER);
	json_decref(arr);
	return *out ? UIE_OK : UIE_E_NOMEM;
}
