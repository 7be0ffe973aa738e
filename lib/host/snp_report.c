/* SPDX-License-Identifier: Apache-2.0 */
/* The SEV-SNP ATTESTATION_REPORT, decoded and encoded through the buffer API (snp_report.h). */
#include <stdarg.h>
#include <stdio.h>

#include "snp_report.h"

#define KEY_INFO_BITS 0x1fu /* AUTHOR_KEY_EN, MASK_CHIP_KEY, SIGNING_KEY */
#define SIGNING_KEY_SHIFT 2
#define CPUID_FAMILY_TURIN 0x1a

int uie_snp_fail(struct uie_snp_why *why, int err, const char *fmt, ...)
{
	va_list ap;

	if (why) {
		va_start(ap, fmt);
		vsnprintf(why->msg, sizeof(why->msg), fmt, ap);
		va_end(ap);
	}
	return err;
}

/* n reserved bytes that must be zero; names them in why on the first failure. */
static void reserved(struct uie_rbuf *b, size_t n, struct uie_snp_why *why, int *r)
{
	size_t at = b->off;

	if (*r == UIE_OK && uie_rbuf_zero(b, n) != UIE_OK)
		*r = uie_snp_fail(why, UIE_E_FORMAT, "report: reserved bytes 0x%03zx-0x%03zx are not zero",
				  at, at + n - 1);
}

/* R or S: 72 little-endian bytes of which a P-384 scalar uses the low 48. */
static void sig_component(struct uie_rbuf *b, uint8_t out[UIE_SNP_SIG_COMPONENT], const char *name,
			  struct uie_snp_why *why, int *r)
{
	uie_rbuf_bytes(b, out, UIE_SNP_SIG_COMPONENT);
	for (size_t i = UIE_SNP_P384_LEN; *r == UIE_OK && i < UIE_SNP_SIG_COMPONENT; i++)
		if (out[i])
			*r = uie_snp_fail(why, UIE_E_FORMAT,
					  "report: SIGNATURE %s has bytes above the 48 of a P-384 scalar",
					  name);
}

static void fields_head(struct uie_rbuf *b, struct uie_snp_report *o)
{
	uie_rbuf_u32(b, &o->guest_svn);
	uie_rbuf_u64(b, &o->policy);
	uie_rbuf_bytes(b, o->family_id, sizeof(o->family_id));
	uie_rbuf_bytes(b, o->image_id, sizeof(o->image_id));
	uie_rbuf_u32(b, &o->vmpl);
	uie_rbuf_u32(b, &o->sig_algo);
	uie_rbuf_u64(b, &o->current_tcb);
	uie_rbuf_u64(b, &o->platform_info);
	uie_rbuf_u32(b, &o->key_info);
}

static void fields_digests(struct uie_rbuf *b, struct uie_snp_report *o)
{
	uie_rbuf_bytes(b, o->report_data, sizeof(o->report_data));
	uie_rbuf_bytes(b, o->measurement, sizeof(o->measurement));
	uie_rbuf_bytes(b, o->host_data, sizeof(o->host_data));
	uie_rbuf_bytes(b, o->id_key_digest, sizeof(o->id_key_digest));
	uie_rbuf_bytes(b, o->author_key_digest, sizeof(o->author_key_digest));
	uie_rbuf_bytes(b, o->report_id, sizeof(o->report_id));
	uie_rbuf_bytes(b, o->report_id_ma, sizeof(o->report_id_ma));
	uie_rbuf_u64(b, &o->reported_tcb);
}

static int check_head(const struct uie_snp_report *o, struct uie_snp_why *why)
{
	uint32_t key = (o->key_info >> SIGNING_KEY_SHIFT) & 7u;

	if (o->version != 2 && o->version != 3 && o->version != 5)
		return uie_snp_fail(why, UIE_E_VERSION, "report: VERSION %u (2, 3 and 5 are known)",
				    o->version);
	if (o->sig_algo != UIE_SNP_SIG_ALGO_ECDSA_P384_SHA384)
		return uie_snp_fail(why, UIE_E_ALG,
				    "report: SIGNATURE_ALGO %u (1, ECDSA P-384 SHA-384, is known)",
				    o->sig_algo);
	if (o->key_info & ~KEY_INFO_BITS)
		return uie_snp_fail(why, UIE_E_FORMAT, "report: reserved bits of 0x048 are set (0x%08x)",
				    o->key_info);
	if (key != UIE_SNP_KEY_VCEK && key != UIE_SNP_KEY_VLEK && key != UIE_SNP_KEY_NONE)
		return uie_snp_fail(why, UIE_E_FORMAT, "report: SIGNING_KEY %u is reserved", key);
	return UIE_OK;
}

int uie_snp_report_parse(const uint8_t *p, size_t n, struct uie_snp_report *out, struct uie_snp_why *why)
{
	struct uie_rbuf b;
	int r = uie_out_begin(out, sizeof(*out), p != NULL);

	if (r != UIE_OK)
		return r;
	if (n != UIE_SNP_REPORT_LEN)
		return uie_snp_fail(why, UIE_E_TRUNCATED, "report: %zu bytes, not %d", n, UIE_SNP_REPORT_LEN);
	uie_rbuf_init(&b, p, n);
	uie_rbuf_u32(&b, &out->version);
	fields_head(&b, out);
	r = check_head(out, why);
	reserved(&b, 4, why, &r);
	fields_digests(&b, out);
	if (out->version >= 3) {
		uie_rbuf_u8(&b, &out->cpuid_fam_id);
		uie_rbuf_u8(&b, &out->cpuid_mod_id);
		uie_rbuf_u8(&b, &out->cpuid_step);
	}
	reserved(&b, out->version >= 3 ? 21 : 24, why, &r);
	uie_rbuf_bytes(&b, out->chip_id, sizeof(out->chip_id));
	uie_rbuf_u64(&b, &out->committed_tcb);
	uie_rbuf_u8(&b, &out->current_build);
	uie_rbuf_u8(&b, &out->current_minor);
	uie_rbuf_u8(&b, &out->current_major);
	reserved(&b, 1, why, &r);
	uie_rbuf_u8(&b, &out->committed_build);
	uie_rbuf_u8(&b, &out->committed_minor);
	uie_rbuf_u8(&b, &out->committed_major);
	reserved(&b, 1, why, &r);
	uie_rbuf_u64(&b, &out->launch_tcb);
	if (out->version >= 5) {
		uie_rbuf_u64(&b, &out->launch_mit_vector);
		uie_rbuf_u64(&b, &out->current_mit_vector);
	}
	reserved(&b, UIE_SNP_SIGNED_LEN - b.off, why, &r);
	sig_component(&b, out->sig_r, "R", why, &r);
	sig_component(&b, out->sig_s, "S", why, &r);
	reserved(&b, UIE_SNP_REPORT_LEN - b.off, why, &r);
	if (r == UIE_OK && (r = uie_rbuf_end(&b)) != UIE_OK)
		uie_snp_fail(why, r, "report: malformed");
	return uie_out_end(out, sizeof(*out), r);
}

void uie_snp_report_put(struct uie_wbuf *w, const struct uie_snp_report *r)
{
	uie_wbuf_u32(w, r->version);
	uie_wbuf_u32(w, r->guest_svn);
	uie_wbuf_u64(w, r->policy);
	uie_wbuf_bytes(w, r->family_id, sizeof(r->family_id));
	uie_wbuf_bytes(w, r->image_id, sizeof(r->image_id));
	uie_wbuf_u32(w, r->vmpl);
	uie_wbuf_u32(w, r->sig_algo);
	uie_wbuf_u64(w, r->current_tcb);
	uie_wbuf_u64(w, r->platform_info);
	uie_wbuf_u32(w, r->key_info);
	uie_wbuf_zero(w, 4);
	uie_wbuf_bytes(w, r->report_data, sizeof(r->report_data));
	uie_wbuf_bytes(w, r->measurement, sizeof(r->measurement));
	uie_wbuf_bytes(w, r->host_data, sizeof(r->host_data));
	uie_wbuf_bytes(w, r->id_key_digest, sizeof(r->id_key_digest));
	uie_wbuf_bytes(w, r->author_key_digest, sizeof(r->author_key_digest));
	uie_wbuf_bytes(w, r->report_id, sizeof(r->report_id));
	uie_wbuf_bytes(w, r->report_id_ma, sizeof(r->report_id_ma));
	uie_wbuf_u64(w, r->reported_tcb);
	if (r->version >= 3) {
		uie_wbuf_u8(w, r->cpuid_fam_id);
		uie_wbuf_u8(w, r->cpuid_mod_id);
		uie_wbuf_u8(w, r->cpuid_step);
	}
	uie_wbuf_zero(w, r->version >= 3 ? 21 : 24);
	uie_wbuf_bytes(w, r->chip_id, sizeof(r->chip_id));
	uie_wbuf_u64(w, r->committed_tcb);
	uie_wbuf_u8(w, r->current_build);
	uie_wbuf_u8(w, r->current_minor);
	uie_wbuf_u8(w, r->current_major);
	uie_wbuf_zero(w, 1);
	uie_wbuf_u8(w, r->committed_build);
	uie_wbuf_u8(w, r->committed_minor);
	uie_wbuf_u8(w, r->committed_major);
	uie_wbuf_zero(w, 1);
	uie_wbuf_u64(w, r->launch_tcb);
	if (r->version >= 5) {
		uie_wbuf_u64(w, r->launch_mit_vector);
		uie_wbuf_u64(w, r->current_mit_vector);
	}
	uie_wbuf_zero(w, r->version >= 5 ? 152 : 168);
	uie_wbuf_bytes(w, r->sig_r, sizeof(r->sig_r));
	uie_wbuf_bytes(w, r->sig_s, sizeof(r->sig_s));
	uie_wbuf_zero(w, UIE_SNP_REPORT_LEN - UIE_SNP_SIGNED_LEN - 2 * UIE_SNP_SIG_COMPONENT);
}

enum uie_snp_signing_key uie_snp_report_signing_key(const struct uie_snp_report *r)
{
	return (enum uie_snp_signing_key)((r->key_info >> SIGNING_KEY_SHIFT) & 7u);
}

bool uie_snp_report_turin(const struct uie_snp_report *r)
{
	return r->version >= 3 && r->cpuid_fam_id == CPUID_FAMILY_TURIN;
}

void uie_snp_tcb_decode(uint64_t tcb, bool turin, struct uie_snp_tcb *out)
{
	uint8_t b[8];

	uie_put_le64(b, tcb);
	*out = turin ? (struct uie_snp_tcb){ .fmc = b[0],
					     .bootloader = b[1],
					     .tee = b[2],
					     .snp = b[3],
					     .ucode = b[7],
					     .has_fmc = true }
		     : (struct uie_snp_tcb){ .bootloader = b[0], .tee = b[1], .snp = b[6], .ucode = b[7] };
}

uint64_t uie_snp_tcb_encode(const struct uie_snp_tcb *t, bool turin)
{
	uint8_t b[8] = { 0 };

	if (turin) {
		b[0] = t->fmc;
		b[1] = t->bootloader;
		b[2] = t->tee;
		b[3] = t->snp;
	} else {
		b[0] = t->bootloader;
		b[1] = t->tee;
		b[6] = t->snp;
	}
	b[7] = t->ucode;
	return uie_le64(b);
}
