/* SPDX-License-Identifier: Apache-2.0 */
/* A VCEK's (or VLEK's) AMD extensions and their fit to a report (snp_cert.h). */
#include <stdlib.h>
#include <string.h>

#include <openssl/asn1.h>
#include <openssl/err.h>
#include <openssl/objects.h>
#include <openssl/pem.h>

#include "fileio.h"
#include "snp_cert.h"

enum ext_kind {
	EXT_BOOTLOADER,
	EXT_TEE,
	EXT_SNP,
	EXT_UCODE,
	EXT_FMC,
	EXT_HWID,
	EXT_PRODUCT,
	EXT__MAX,
};

static const struct {
	const char *oid;
	const char *name;
} ext_rows[EXT__MAX] = {
	[EXT_BOOTLOADER] = { "1.3.6.1.4.1.3704.1.3.1", "blSPL" },
	[EXT_TEE] = { "1.3.6.1.4.1.3704.1.3.2", "teeSPL" },
	[EXT_SNP] = { "1.3.6.1.4.1.3704.1.3.3", "snpSPL" },
	[EXT_UCODE] = { "1.3.6.1.4.1.3704.1.3.8", "ucodeSPL" },
	[EXT_FMC] = { "1.3.6.1.4.1.3704.1.3.9", "fmcSPL" },
	[EXT_HWID] = { "1.3.6.1.4.1.3704.1.4", "hwID" },
	[EXT_PRODUCT] = { "1.3.6.1.4.1.3704.1.2", "productName" },
};

int uie_snp_cert_parse_alloc(const uint8_t *p, size_t n, X509 **out)
{
	const unsigned char *q = p;
	BIO *bio;

	if (!out)
		return UIE_E_INVAL;
	*out = NULL;
	if (!p || n > UIE_SNP_CERT_FILE_MAX)
		return UIE_E_FORMAT;
	if ((bio = BIO_new_mem_buf(p, (int)n)) != NULL) {
		*out = PEM_read_bio_X509(bio, NULL, NULL, NULL);
		BIO_free(bio);
	}
	ERR_clear_error(); /* PEM's complaint about DER input */
	if (!*out && (*out = d2i_X509(NULL, &q, (long)n)) != NULL && q != p + n) {
		X509_free(*out);
		*out = NULL;
	}
	return *out ? UIE_OK : UIE_E_FORMAT;
}

int uie_snp_cert_read_alloc(const char *path, X509 **out)
{
	uint8_t *buf;
	size_t len;
	int r;

	if (!out)
		return UIE_E_INVAL;
	*out = NULL;
	if ((r = uie_file_read_alloc(path, UIE_SNP_CERT_FILE_MAX, &buf, &len)) != UIE_OK)
		return r;
	r = uie_snp_cert_parse_alloc(buf, len, out);
	free(buf);
	return r;
}

/* A TCB component: a DER INTEGER of 0 to 255 filling the extension's value. */
static int spl(const ASN1_OCTET_STRING *d, const char *name, uint8_t *out, struct uie_snp_why *why)
{
	const unsigned char *q = ASN1_STRING_get0_data(d);
	long len = ASN1_STRING_length(d);
	const unsigned char *end = q + len;
	ASN1_INTEGER *i = d2i_ASN1_INTEGER(NULL, &q, len);
	int64_t v = -1;
	bool ok = i && q == end && ASN1_INTEGER_get_int64(&v, i) == 1 && v >= 0 && v <= 255;

	ASN1_INTEGER_free(i);
	if (!ok)
		return uie_snp_fail(why, UIE_E_FORMAT, "VCEK: extension %s is not an INTEGER of 0 to 255",
				    name);
	*out = (uint8_t)v;
	return UIE_OK;
}

static int product(const ASN1_OCTET_STRING *d, char out[32], struct uie_snp_why *why)
{
	const unsigned char *q = ASN1_STRING_get0_data(d);
	long len = ASN1_STRING_length(d);
	const unsigned char *end = q + len;
	ASN1_IA5STRING *s = d2i_ASN1_IA5STRING(NULL, &q, len);
	int n = s ? ASN1_STRING_length(s) : -1;
	bool ok = s && q == end && n > 0 && n < 32 && !memchr(ASN1_STRING_get0_data(s), 0, (size_t)n);

	if (ok)
		memcpy(out, ASN1_STRING_get0_data(s), (size_t)n);
	ASN1_IA5STRING_free(s);
	return ok ? UIE_OK
		  : uie_snp_fail(why, UIE_E_FORMAT,
				 "VCEK: extension productName is not an IA5String of 1 to 31 "
				 "characters");
}

static int one_ext(enum ext_kind k, const ASN1_OCTET_STRING *d, struct uie_snp_cert_ext *o,
		   struct uie_snp_why *why)
{
	switch (k) {
	case EXT_BOOTLOADER:
		o->has_bootloader = true;
		return spl(d, ext_rows[k].name, &o->tcb.bootloader, why);
	case EXT_TEE: o->has_tee = true; return spl(d, ext_rows[k].name, &o->tcb.tee, why);
	case EXT_SNP: o->has_snp = true; return spl(d, ext_rows[k].name, &o->tcb.snp, why);
	case EXT_UCODE: o->has_ucode = true; return spl(d, ext_rows[k].name, &o->tcb.ucode, why);
	case EXT_FMC: o->tcb.has_fmc = true; return spl(d, ext_rows[k].name, &o->tcb.fmc, why);
	case EXT_HWID:
		/* The raw 64 bytes, as AMD's key distribution service writes them. */
		if (ASN1_STRING_length(d) != UIE_SNP_CHIP_ID_LEN)
			return uie_snp_fail(why, UIE_E_FORMAT, "VCEK: extension hwID is %d bytes, not 64",
					    ASN1_STRING_length(d));
		memcpy(o->hwid, ASN1_STRING_get0_data(d), UIE_SNP_CHIP_ID_LEN);
		o->has_hwid = true;
		return UIE_OK;
	case EXT_PRODUCT: return product(d, o->product, why);
	case EXT__MAX: break;
	}
	return UIE_E_INVAL;
}

/* Which of our extensions ext is, or EXT__MAX. */
static enum ext_kind kind_of(X509_EXTENSION *ext)
{
	char oid[64];
	int n = OBJ_obj2txt(oid, sizeof(oid), X509_EXTENSION_get_object(ext), 1);

	for (int k = 0; n > 0 && (size_t)n < sizeof(oid) && k < EXT__MAX; k++)
		if (!strcmp(oid, ext_rows[k].oid))
			return (enum ext_kind)k;
	return EXT__MAX;
}

int uie_snp_cert_ext_parse(X509 *c, struct uie_snp_cert_ext *out, struct uie_snp_why *why)
{
	char cn[32] = "";
	unsigned seen = 0;
	int r = uie_out_begin(out, sizeof(*out), c != NULL);

	if (r != UIE_OK)
		return r;
	X509_NAME_get_text_by_NID(X509_get_subject_name(c), NID_commonName, cn, sizeof(cn));
	if (strcmp(cn, "SEV-VCEK") != 0 && strcmp(cn, "SEV-VLEK") != 0)
		r = uie_snp_fail(why, UIE_E_FORMAT, "VCEK: subject CN '%s' is neither SEV-VCEK nor SEV-VLEK",
				 cn);
	out->vlek = !strcmp(cn, "SEV-VLEK");
	for (int i = 0; r == UIE_OK && i < X509_get_ext_count(c); i++) {
		X509_EXTENSION *ext = X509_get_ext(c, i);
		enum ext_kind k = kind_of(ext);

		if (k == EXT__MAX)
			continue;
		if (seen & (1u << k))
			r = uie_snp_fail(why, UIE_E_FORMAT, "VCEK: extension %s appears twice",
					 ext_rows[k].name);
		else
			r = one_ext(k, X509_EXTENSION_get_data(ext), out, why);
		seen |= 1u << k;
	}
	return uie_out_end(out, sizeof(*out), r);
}

/* One TCB component of the certificate against the report's. */
static int tcb_eq(bool has, uint8_t cert, uint8_t rep, const char *name, const char *field,
		  struct uie_snp_why *why)
{
	if (!has)
		return uie_snp_fail(why, UIE_E_BINDING, "VCEK: extension %s is missing", name);
	if (cert != rep)
		return uie_snp_fail(why, UIE_E_BINDING, "VCEK: %s %u differs from REPORTED_TCB.%s %u", name,
				    cert, field, rep);
	return UIE_OK;
}

int uie_snp_cert_check_report(const struct uie_snp_cert_ext *e, const struct uie_snp_report *r,
			      struct uie_snp_why *why)
{
	enum uie_snp_signing_key key = uie_snp_report_signing_key(r);
	bool turin = uie_snp_report_turin(r);
	struct uie_snp_tcb t;
	int rc;

	if (key != (e->vlek ? UIE_SNP_KEY_VLEK : UIE_SNP_KEY_VCEK))
		return uie_snp_fail(why, UIE_E_BINDING, "report: SIGNING_KEY %u, but the certificate is a %s",
				    key, e->vlek ? "VLEK" : "VCEK");
	if (!e->vlek && !e->has_hwid)
		return uie_snp_fail(why, UIE_E_BINDING, "VCEK: extension hwID is missing");
	if (!e->vlek && memcmp(e->hwid, r->chip_id, sizeof(e->hwid)) != 0)
		return uie_snp_fail(why, UIE_E_BINDING, "VCEK: hwID differs from the report's CHIP_ID");
	uie_snp_tcb_decode(r->reported_tcb, turin, &t);
	if ((rc = tcb_eq(e->has_bootloader, e->tcb.bootloader, t.bootloader, "blSPL", "BOOT_LOADER", why)) ||
	    (rc = tcb_eq(e->has_tee, e->tcb.tee, t.tee, "teeSPL", "TEE", why)) ||
	    (rc = tcb_eq(e->has_snp, e->tcb.snp, t.snp, "snpSPL", "SNP", why)) ||
	    (rc = tcb_eq(e->has_ucode, e->tcb.ucode, t.ucode, "ucodeSPL", "MICROCODE", why)))
		return rc;
	return turin ? tcb_eq(e->tcb.has_fmc, e->tcb.fmc, t.fmc, "fmcSPL", "FMC", why) : UIE_OK;
}
