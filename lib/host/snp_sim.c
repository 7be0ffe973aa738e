/* SPDX-License-Identifier: Apache-2.0 */
/* A simulated SEV-SNP chain and report signer (snp_sim.h). */
#include <stdio.h>
#include <string.h>

#include <openssl/bn.h>
#include <openssl/ec.h>
#include <openssl/objects.h>
#include <openssl/rsa.h>
#include <openssl/x509v3.h>

#include "snp_sim.h"

#define ROOT_DAYS (25L * 365)
#define VCEK_DAYS (7L * 365)
#define DAY_SECONDS 86400L

struct cert_req {
	const char *cn;
	EVP_PKEY *key;        /* the subject's key */
	X509 *issuer;         /* NULL: self-signed */
	EVP_PKEY *issuer_key; /* signs */
	bool ca;
	long serial, days;
};

/* AMD's distinguished name with common name cn. */
static bool amd_name(X509_NAME *n, const char *cn)
{
	static const char *const rows[][2] = {
		{ "OU", "Engineering" },           { "C", "US" }, { "L", "Santa Clara" }, { "ST", "CA" },
		{ "O", "Advanced Micro Devices" },
	};
	bool ok = true;

	for (size_t i = 0; ok && i < sizeof(rows) / sizeof(rows[0]); i++)
		ok = X509_NAME_add_entry_by_txt(n, rows[i][0], MBSTRING_ASC,
						(const unsigned char *)rows[i][1], -1, -1, 0) == 1;
	return ok &&
	       X509_NAME_add_entry_by_txt(n, "CN", MBSTRING_ASC, (const unsigned char *)cn, -1, -1, 0) == 1;
}

static bool add_conf(X509 *x, int nid, const char *value)
{
	X509_EXTENSION *e = X509V3_EXT_conf_nid(NULL, NULL, nid, value);
	bool ok = e && X509_add_ext(x, e, -1) == 1;

	X509_EXTENSION_free(e);
	return ok;
}

/* An extension under oid whose value is der[0..n). */
static bool add_raw(X509 *x, const char *oid, const uint8_t *der, int n)
{
	ASN1_OBJECT *o = OBJ_txt2obj(oid, 1);
	ASN1_OCTET_STRING *s = ASN1_OCTET_STRING_new();
	X509_EXTENSION *e = NULL;
	bool ok = o && s && ASN1_OCTET_STRING_set(s, der, n) == 1 &&
		  (e = X509_EXTENSION_create_by_OBJ(NULL, o, 0, s)) != NULL && X509_add_ext(x, e, -1) == 1;

	X509_EXTENSION_free(e);
	ASN1_OCTET_STRING_free(s);
	ASN1_OBJECT_free(o);
	return ok;
}

/* A TCB component as AMD writes it: a DER INTEGER. */
static bool add_spl(X509 *x, const char *oid, uint8_t v)
{
	const uint8_t small[] = { 0x02, 0x01, v }, big[] = { 0x02, 0x02, 0x00, v };

	return v < 0x80 ? add_raw(x, oid, small, sizeof(small)) : add_raw(x, oid, big, sizeof(big));
}

/* Signs x with RSASSA-PSS, SHA-384, MGF1 SHA-384, 48 bytes of salt: AMD's parameters. */
static bool sign_pss(X509 *x, EVP_PKEY *key)
{
	EVP_MD_CTX *md = EVP_MD_CTX_new();
	EVP_PKEY_CTX *pctx = NULL;
	bool ok = md && EVP_DigestSignInit(md, &pctx, EVP_sha384(), NULL, key) == 1 &&
		  EVP_PKEY_CTX_set_rsa_padding(pctx, RSA_PKCS1_PSS_PADDING) == 1 &&
		  EVP_PKEY_CTX_set_rsa_pss_saltlen(pctx, 48) == 1 &&
		  EVP_PKEY_CTX_set_rsa_mgf1_md(pctx, EVP_sha384()) == 1 && X509_sign_ctx(x, md) > 0;

	EVP_MD_CTX_free(md);
	return ok;
}

/* The certificate q asks for, unsigned (extensions may follow), or NULL. */
static X509 *cert_new(const struct cert_req *q)
{
	X509 *x = X509_new();
	bool ok = x && X509_set_version(x, X509_VERSION_3) == 1 &&
		  ASN1_INTEGER_set(X509_get_serialNumber(x), q->serial) == 1 &&
		  X509_gmtime_adj(X509_getm_notBefore(x), -DAY_SECONDS) &&
		  X509_gmtime_adj(X509_getm_notAfter(x), q->days * DAY_SECONDS) &&
		  amd_name(X509_get_subject_name(x), q->cn) &&
		  X509_set_issuer_name(x, X509_get_subject_name(q->issuer ? q->issuer : x)) == 1 &&
		  X509_set_pubkey(x, q->key) == 1;

	if (ok && q->ca)
		ok = add_conf(x, NID_basic_constraints, "critical,CA:TRUE") &&
		     add_conf(x, NID_key_usage, "critical,keyCertSign,cRLSign");
	if (!ok) {
		X509_free(x);
		return NULL;
	}
	return x;
}

int uie_snp_sim_roots(enum uie_snp_product p, struct uie_snp_sim *out)
{
	const char *name = uie_snp_product_name(p);
	char ark_cn[32], ask_cn[32];
	int r = uie_out_begin(out, sizeof(*out), name != NULL);

	if (r != UIE_OK)
		return r;
	out->product = p;
	snprintf(ark_cn, sizeof(ark_cn), "ARK-%s", name);
	snprintf(ask_cn, sizeof(ask_cn), "SEV-%s", name);
	out->ark_key = EVP_RSA_gen(4096);
	out->ask_key = EVP_RSA_gen(4096);
	if (out->ark_key && out->ask_key) {
		struct cert_req ark = { ark_cn, out->ark_key, NULL, out->ark_key, true, 1, ROOT_DAYS };
		struct cert_req ask = { ask_cn, out->ask_key, NULL, out->ark_key, true, 0x10001, ROOT_DAYS };

		if ((out->ark = cert_new(&ark)) != NULL && sign_pss(out->ark, out->ark_key)) {
			ask.issuer = out->ark;
			if ((out->ask = cert_new(&ask)) != NULL && sign_pss(out->ask, out->ark_key))
				return UIE_OK;
		}
	}
	uie_snp_sim_free(out);
	return UIE_E_CRYPTO;
}

static bool vcek_exts(X509 *x, enum uie_snp_product p, const uint8_t *chip_id, uint64_t tcb, bool turin)
{
	struct uie_snp_tcb t;
	uint8_t product[32];
	int n = snprintf((char *)product + 2, sizeof(product) - 2, "%s-B0", uie_snp_product_name(p));
	bool ok;

	product[0] = 0x16; /* IA5String */
	product[1] = (uint8_t)n;
	uie_snp_tcb_decode(tcb, turin, &t);
	ok = add_raw(x, "1.3.6.1.4.1.3704.1.2", product, n + 2) &&
	     add_spl(x, "1.3.6.1.4.1.3704.1.3.1", t.bootloader) &&
	     add_spl(x, "1.3.6.1.4.1.3704.1.3.2", t.tee) && add_spl(x, "1.3.6.1.4.1.3704.1.3.3", t.snp) &&
	     add_spl(x, "1.3.6.1.4.1.3704.1.3.8", t.ucode) &&
	     (!chip_id || add_raw(x, "1.3.6.1.4.1.3704.1.4", chip_id, UIE_SNP_CHIP_ID_LEN));
	return ok && (!turin || add_spl(x, "1.3.6.1.4.1.3704.1.3.9", t.fmc));
}

/* A new chip key certificate named cn under s's ASK (with an hwID when chip_id is not NULL). */
static int issue(struct uie_snp_sim *s, const char *cn, const uint8_t *chip_id, uint64_t tcb, bool turin)
{
	EVP_PKEY *key;
	X509 *x = NULL;

	if (!s || !s->ask)
		return UIE_E_INVAL;
	if ((key = EVP_EC_gen("P-384")) != NULL) {
		struct cert_req q = { cn, key, s->ask, s->ask_key, false, 0, VCEK_DAYS };

		if ((x = cert_new(&q)) != NULL &&
		    (!vcek_exts(x, s->product, chip_id, tcb, turin) || !sign_pss(x, s->ask_key))) {
			X509_free(x);
			x = NULL;
		}
	}
	if (!x) {
		EVP_PKEY_free(key);
		return UIE_E_CRYPTO;
	}
	X509_free(s->vcek);
	EVP_PKEY_free(s->vcek_key);
	s->vcek = x;
	s->vcek_key = key;
	return UIE_OK;
}

int uie_snp_sim_vcek(struct uie_snp_sim *s, const uint8_t chip_id[UIE_SNP_CHIP_ID_LEN], uint64_t tcb,
		     bool turin)
{
	return chip_id ? issue(s, "SEV-VCEK", chip_id, tcb, turin) : UIE_E_INVAL;
}

int uie_snp_sim_vlek(struct uie_snp_sim *s, uint64_t tcb, bool turin)
{
	return issue(s, "SEV-VLEK", NULL, tcb, turin);
}

int uie_snp_sim_sign(uint8_t report[UIE_SNP_REPORT_LEN], EVP_PKEY *key)
{
	EVP_MD_CTX *md = EVP_MD_CTX_new();
	unsigned char der[128];
	const unsigned char *q = der;
	size_t n = sizeof(der);
	ECDSA_SIG *sig = NULL;
	const BIGNUM *r, *s;
	int rc = UIE_E_CRYPTO;

	if (md && EVP_DigestSignInit(md, NULL, EVP_sha384(), NULL, key) == 1 &&
	    EVP_DigestSign(md, der, &n, report, UIE_SNP_SIGNED_LEN) == 1 &&
	    (sig = d2i_ECDSA_SIG(NULL, &q, (long)n)) != NULL) {
		ECDSA_SIG_get0(sig, &r, &s);
		if (BN_bn2lebinpad(r, report + UIE_SNP_SIGNED_LEN, UIE_SNP_SIG_COMPONENT) > 0 &&
		    BN_bn2lebinpad(s, report + UIE_SNP_SIGNED_LEN + UIE_SNP_SIG_COMPONENT,
				   UIE_SNP_SIG_COMPONENT) > 0)
			rc = UIE_OK;
	}
	ECDSA_SIG_free(sig);
	EVP_MD_CTX_free(md);
	return rc;
}

void uie_snp_sim_free(struct uie_snp_sim *s)
{
	if (!s)
		return;
	/* The chain's links, each a certificate and its key. */
	X509 *certs[] = { s->ark, s->ask, s->vcek };
	EVP_PKEY *keys[] = { s->ark_key, s->ask_key, s->vcek_key };

	for (size_t i = 0; i < sizeof(certs) / sizeof(certs[0]); i++) {
		X509_free(certs[i]);
		EVP_PKEY_free(keys[i]);
	}
	memset(s, 0, sizeof(*s));
}

int uie_snp_sim_template(const struct uie_snp_sim *s, const uint8_t *measurement, struct uie_snp_report *r)
{
	bool turin = s->product == UIE_SNP_TURIN;
	struct uie_snp_cert_ext e;
	int rc;

	memset(r, 0, sizeof(*r));
	if ((rc = uie_snp_cert_ext_parse(s->vcek, &e, NULL)) != UIE_OK || !e.has_hwid)
		return rc != UIE_OK ? rc : UIE_E_FORMAT;
	r->version = 3;
	r->sig_algo = UIE_SNP_SIG_ALGO_ECDSA_P384_SHA384;
	r->policy = 0x30000; /* SMT allowed, the reserved bit 17 set; no debug, no migration agent */
	r->cpuid_fam_id = turin ? 0x1a : 0x19;
	memcpy(r->chip_id, e.hwid, sizeof(r->chip_id));
	r->reported_tcb = r->current_tcb = r->committed_tcb = r->launch_tcb = uie_snp_tcb_encode(&e.tcb,
												 turin);
	r->current_major = r->committed_major = 1;
	r->current_minor = r->committed_minor = 55;
	if (measurement)
		memcpy(r->measurement, measurement, sizeof(r->measurement));
	return UIE_OK;
}
