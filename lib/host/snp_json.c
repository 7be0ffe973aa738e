/* SPDX-License-Identifier: Apache-2.0 */
/* An SEV-SNP verdict as JSON (snp_json.h). */
#include <stdio.h>

#include "hex.h"
#include "json.h"
#include "snp_json.h"

/* Sets key to p[0..n) in lowercase hex; false on ENOMEM. */
static bool hex(json_t *o, const char *key, const uint8_t *p, size_t n)
{
	char s[2 * UIE_SNP_CHIP_ID_LEN + 1];

	uie_hex_encode(s, p, n);
	return json_object_set_new(o, key, json_string(s)) == 0;
}

/* A TCB_VERSION: its 8 bytes as the report holds them, and its components. */
static json_t *tcb(uint64_t v, bool turin)
{
	struct uie_snp_tcb t;
	uint8_t b[8];
	json_t *o;

	uie_put_le64(b, v);
	uie_snp_tcb_decode(v, turin, &t);
	o = json_pack("{s:i,s:i,s:i,s:i}", "bootloader", t.bootloader, "tee", t.tee, "snp", t.snp,
		      "microcode", t.ucode);
	if (o && t.has_fmc && json_object_set_new(o, "fmc", json_integer(t.fmc)) != 0) {
		json_decref(o);
		return NULL;
	}
	if (o && !hex(o, "raw", b, sizeof(b))) {
		json_decref(o);
		return NULL;
	}
	return o;
}

static json_t *version(uint8_t major, uint8_t minor, uint8_t build)
{
	char s[16];

	snprintf(s, sizeof(s), "%u.%u.%u", major, minor, build);
	return json_string(s);
}

static json_t *report(const struct uie_snp_report *r)
{
	bool turin = uie_snp_report_turin(r);
	json_t *o = json_pack(
		"{s:i,s:I,s:o,s:I,s:I,s:o,s:i,s:o,s:o,s:o,s:o,s:o,s:o}", "version", (int)r->version,
		"guest_svn", (json_int_t)r->guest_svn, "policy", uie_json_u64(r->policy), "vmpl",
		(json_int_t)r->vmpl, "signature_algo", (json_int_t)r->sig_algo, "platform_info",
		uie_json_u64(r->platform_info), "signing_key", (int)uie_snp_report_signing_key(r),
		"current_tcb", tcb(r->current_tcb, turin), "reported_tcb", tcb(r->reported_tcb, turin),
		"committed_tcb", tcb(r->committed_tcb, turin), "launch_tcb", tcb(r->launch_tcb, turin),
		"current_version", version(r->current_major, r->current_minor, r->current_build),
		"committed_version", version(r->committed_major, r->committed_minor, r->committed_build));
	bool ok = o && hex(o, "family_id", r->family_id, sizeof(r->family_id)) &&
		  hex(o, "image_id", r->image_id, sizeof(r->image_id)) &&
		  hex(o, "report_data", r->report_data, sizeof(r->report_data)) &&
		  hex(o, "measurement", r->measurement, sizeof(r->measurement)) &&
		  hex(o, "host_data", r->host_data, sizeof(r->host_data)) &&
		  hex(o, "id_key_digest", r->id_key_digest, sizeof(r->id_key_digest)) &&
		  hex(o, "author_key_digest", r->author_key_digest, sizeof(r->author_key_digest)) &&
		  hex(o, "report_id", r->report_id, sizeof(r->report_id)) &&
		  hex(o, "report_id_ma", r->report_id_ma, sizeof(r->report_id_ma)) &&
		  hex(o, "chip_id", r->chip_id, sizeof(r->chip_id));

	if (ok && r->version >= 3)
		ok = json_object_set_new(o, "cpuid",
					 json_pack("{s:i,s:i,s:i}", "family", r->cpuid_fam_id, "model",
						   r->cpuid_mod_id, "stepping", r->cpuid_step)) == 0;
	if (ok && r->version >= 5)
		ok = json_object_set_new(o, "launch_mit_vector", uie_json_u64(r->launch_mit_vector)) == 0 &&
		     json_object_set_new(o, "current_mit_vector", uie_json_u64(r->current_mit_vector)) == 0;
	if (!ok) {
		json_decref(o);
		return NULL;
	}
	return o;
}

json_t *uie_snp_verdict_json(const struct uie_snp_verdict *v)
{
	json_t *o = json_pack("{s:s,s:s,s:b}", "verdict", v->err == UIE_OK ? "ok" : "refused", "reason",
			      v->why.msg, "simulated", v->simulated);

	if (o && v->err != UIE_OK && json_object_set_new(o, "error", json_string(uie_err_str(v->err))) != 0)
		goto fail;
	if (o && v->decoded && json_object_set_new(o, "report", report(&v->report)) != 0)
		goto fail;
	return o;
fail:
	json_decref(o);
	return NULL;
}
