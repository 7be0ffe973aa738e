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

/*
 * One walk over the report's fields in their order serves both ways:
 * reading fills the report from b and checks what must be zero, writing
 * puts the report into w.
 */
struct codec {
	struct uie_rbuf *b; /* reading; NULL when writing */
	struct uie_wbuf *w; /* writing */
	size_t at;          /* bytes walked */
	struct uie_snp_why *why;
	int r; /* reading: the first failure, named in why */
};

/* u8, u32 and u64: a little-endian number of that many bits, read into *v or written from it. */
#define NUMBER(bits)                                            \
	static void u##bits(struct codec *c, uint##bits##_t *v) \
	{                                                       \
		if (c->b)                                       \
			uie_rbuf_u##bits(c->b, v);              \
		else                                            \
			uie_wbuf_u##bits(c->w, *v);             \
		c->at += (bits) / 8;                            \
	}
NUMBER(8)
NUMBER(32)
NUMBER(64)

static void bytes(struct codec *c, uint8_t *p, size_t n)
{
	if (c->b)
		uie_rbuf_bytes(c->b, p, n);
	else
		uie_wbuf_bytes(c->w, p, n);
	c->at += n;
}

/* n reserved bytes: written as zero; read, they must be zero. */
static void reserved(struct codec *c, size_t n)
{
	if (!c->b)
		uie_wbuf_zero(c->w, n);
	else if (uie_rbuf_zero(c->b, n) != UIE_OK && c->r == UIE_OK)
		c->r = uie_snp_fail(c->why, UIE_E_FORMAT,
				    "report: reserved bytes 0x%03zx-0x%03zx are not zero", c->at,
				    c->at + n - 1);
	c->at += n;
}

/* R or S: 72 little-endian bytes of which a P-384 scalar uses the low 48. */
static void sig_component(struct codec *c, uint8_t v[UIE_SNP_SIG_COMPONENT], const char *name)
{
	bytes(c, v, UIE_SNP_SIG_COMPONENT);
	for (size_t i = UIE_SNP_P384_LEN; c->b && c->r == UIE_OK && i < UIE_SNP_SIG_COMPONENT; i++)
		if (v[i])
			c->r = uie_snp_fail(c->why, UIE_E_FORMAT,
					    "report: SIGNATURE %s has bytes above the 48 of a P-384 scalar",
					    name);
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

static void fields(struct codec *c, struct uie_snp_report *o)
{
	u32(c, &o->version);
	u32(c, &o->guest_svn);
	u64(c, &o->policy);
	bytes(c, o->family_id, sizeof(o->family_id));
	bytes(c, o->image_id, sizeof(o->image_id));
	u32(c, &o->vmpl);
	u32(c, &o->sig_algo);
	u64(c, &o->current_tcb);
	u64(c, &o->platform_info);
	u32(c, &o->key_info);
	if (c->b)
		c->r = check_head(o, c->why);
	reserved(c, 4);
	bytes(c, o->report_data, sizeof(o->report_data));
	bytes(c, o->measurement, sizeof(o->measurement));
	bytes(c, o->host_data, sizeof(o->host_data));
	bytes(c, o->id_key_digest, sizeof(o->id_key_digest));
	bytes(c, o->author_key_digest, sizeof(o->author_key_digest));
	bytes(c, o->report_id, sizeof(o->report_id));
	bytes(c, o->report_id_ma, sizeof(o->report_id_ma));
	u64(c, &o->reported_tcb);
	if (o->version >= 3) {
		u8(c, &o->cpuid_fam_id);
		u8(c, &o->cpuid_mod_id);
		u8(c, &o->cpuid_step);
	}
	reserved(c, o->version >= 3 ? 21 : 24);
	bytes(c, o->chip_id, sizeof(o->chip_id));
	u64(c, &o->committed_tcb);
	u8(c, &o->current_build);
	u8(c, &o->current_minor);
	u8(c, &o->current_major);
	reserved(c, 1);
	u8(c, &o->committed_build);
	u8(c, &o->committed_minor);
	u8(c, &o->committed_major);
	reserved(c, 1);
	u64(c, &o->launch_tcb);
	if (o->version >= 5) {
		u64(c, &o->launch_mit_vector);
		u64(c, &o->current_mit_vector);
	}
	reserved(c, UIE_SNP_SIGNED_LEN - c->at);
	sig_component(c, o->sig_r, "R");
	sig_component(c, o->sig_s, "S");
	reserved(c, UIE_SNP_REPORT_LEN - c->at);
}

int uie_snp_report_parse(const uint8_t *p, size_t n, struct uie_snp_report *out, struct uie_snp_why *why)
{
	struct uie_rbuf b;
	struct codec c = { .b = &b, .why = why };
	int r = uie_out_begin(out, sizeof(*out), p != NULL);

	if (r != UIE_OK)
		return r;
	if (n != UIE_SNP_REPORT_LEN)
		return uie_snp_fail(why, UIE_E_TRUNCATED, "report: %zu bytes, not %d", n, UIE_SNP_REPORT_LEN);
	uie_rbuf_init(&b, p, n);
	fields(&c, out);
	if ((r = c.r) == UIE_OK && (r = uie_rbuf_end(&b)) != UIE_OK)
		uie_snp_fail(why, r, "report: malformed");
	return uie_out_end(out, sizeof(*out), r);
}

void uie_snp_report_put(struct uie_wbuf *w, const struct uie_snp_report *r)
{
	struct uie_snp_report o = *r;
	struct codec c = { .w = w };

	fields(&c, &o);
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
