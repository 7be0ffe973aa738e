/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The chain VCEK -> ASK -> ARK, the pinned roots, and the report's
 * signature by the VCEK (snp_cert.h).  OpenSSL does every cryptographic
 * step: X509_verify_cert the chain (RSASSA-PSS parameters come from the
 * certificates), EVP_DigestVerify the report.
 */
#include <string.h>

#include <openssl/bn.h>
#include <openssl/ec.h>
#include <openssl/evp.h>
#include <openssl/objects.h>

#include "hex.h"
#include "snp_cert.h"
#include "snp_roots.h"

#define ROOT_RSA_BITS 4096
#define R_OFF UIE_SNP_SIGNED_LEN
#define S_OFF (UIE_SNP_SIGNED_LEN + UIE_SNP_SIG_COMPONENT)

static const char *const depth_name[] = { "VCEK", "ASK", "ARK" };

const char *uie_snp_product_name(enum uie_snp_product p)
{
	return (unsigned)p < UIE_SNP_PRODUCT__MAX ? uie_snp_builtin[p].name : NULL;
}

void uie_snp_roots_free(struct uie_snp_roots *r)
{
	if (!r)
		return;
	X509_free(r->ask);
	X509_free(r->ark);
	memset(r, 0, sizeof(*r));
}

int uie_snp_roots_builtin(enum uie_snp_product p, struct uie_snp_roots *out)
{
	const struct uie_snp_builtin *b;
	int r = uie_out_begin(out, sizeof(*out), (unsigned)p < UIE_SNP_PRODUCT__MAX);

	if (r != UIE_OK)
		return r;
	b = &uie_snp_builtin[p];
	if ((r = uie_snp_cert_parse_alloc((const uint8_t *)b->ask_pem, strlen(b->ask_pem), &out->ask)) !=
		    UIE_OK ||
	    (r = uie_snp_cert_parse_alloc((const uint8_t *)b->ark_pem, strlen(b->ark_pem), &out->ark)) !=
		    UIE_OK)
		uie_snp_roots_free(out);
	return r;
}

int uie_snp_roots_for(X509 *vcek, struct uie_snp_roots *out, struct uie_snp_why *why)
{
	char issuer[256];
	int r;

	for (int p = 0; p < UIE_SNP_PRODUCT__MAX; p++) {
		if ((r = uie_snp_roots_builtin((enum uie_snp_product)p, out)) != UIE_OK)
			return uie_snp_fail(why, r, "built-in roots of %s: %s", uie_snp_builtin[p].name,
					    uie_err_str(r));
		if (!X509_NAME_cmp(X509_get_issuer_name(vcek), X509_get_subject_name(out->ask)))
			return UIE_OK;
		uie_snp_roots_free(out);
	}
	X509_NAME_oneline(X509_get_issuer_name(vcek), issuer, sizeof(issuer));
	return uie_snp_fail(
		why, UIE_E_NOTFOUND,
		"VCEK: issuer %s is none of the built-in ASKs (Milan, Genoa, Turin); give --ask and --ark",
		issuer);
}

/* ark's SHA-256 fingerprint; false when OpenSSL fails. */
static bool fingerprint(X509 *ark, uint8_t md[32])
{
	unsigned len = 0;

	return X509_digest(ark, EVP_sha256(), md, &len) == 1 && len == 32;
}

bool uie_snp_ark_pinned(X509 *ark)
{
	uint8_t md[32];
	char hex[2 * sizeof(md) + 1];

	if (!ark || !fingerprint(ark, md))
		return false;
	uie_hex_encode(hex, md, sizeof(md));
	for (int p = 0; p < UIE_SNP_PRODUCT__MAX; p++)
		if (!strcmp(hex, uie_snp_builtin[p].ark_sha256))
			return true;
	return false;
}

/* c signed with RSASSA-PSS and SHA-384 (OpenSSL reads the hash from the PSS parameters). */
static int pss_sha384(X509 *c, const char *name, struct uie_snp_why *why)
{
	int md = 0, pk = 0;

	if (X509_get_signature_nid(c) != NID_rsassaPss ||
	    X509_get_signature_info(c, &md, &pk, NULL, NULL) != 1 || md != NID_sha384)
		return uie_snp_fail(why, UIE_E_ALG, "%s: not signed with RSASSA-PSS and SHA-384", name);
	return UIE_OK;
}

static int rsa4096(X509 *c, const char *name, struct uie_snp_why *why)
{
	EVP_PKEY *k = X509_get0_pubkey(c);

	if (!k || !EVP_PKEY_is_a(k, "RSA") || EVP_PKEY_get_bits(k) != ROOT_RSA_BITS)
		return uie_snp_fail(why, UIE_E_KEY, "%s: key is not RSA-4096", name);
	return UIE_OK;
}

static int unpinned(X509 *ark, struct uie_snp_why *why)
{
	uint8_t md[32];
	char hex[65] = "?";

	if (fingerprint(ark, md))
		uie_hex_encode(hex, md, sizeof(md));
	return uie_snp_fail(why, UIE_E_KEY,
			    "ARK: SHA-256 fingerprint %s is none of AMD's pinned ARKs (Milan, Genoa, Turin)",
			    hex);
}

/* X509_verify_cert on vcek with the ARK the one trust anchor and the ASK the one intermediate. */
static int store_verify(X509 *vcek, const struct uie_snp_roots *roots, struct uie_snp_why *why)
{
	X509_STORE *store = X509_STORE_new();
	X509_STORE_CTX *ctx = X509_STORE_CTX_new();
	STACK_OF(X509) *untrusted = sk_X509_new_null();
	STACK_OF(X509) * chain;
	int r = UIE_E_CRYPTO, depth;

	if (store && ctx && untrusted && X509_STORE_add_cert(store, roots->ark) == 1 &&
	    sk_X509_push(untrusted, roots->ask) > 0 &&
	    X509_STORE_CTX_init(ctx, store, vcek, untrusted) == 1) {
		X509_STORE_CTX_set_flags(ctx, X509_V_FLAG_CHECK_SS_SIGNATURE);
		if (X509_verify_cert(ctx) == 1) {
			chain = X509_STORE_CTX_get0_chain(ctx);
			r = sk_X509_num(chain) == 3 && !X509_cmp(sk_X509_value(chain, 1), roots->ask) &&
					    !X509_cmp(sk_X509_value(chain, 2), roots->ark)
				    ? UIE_OK
				    : uie_snp_fail(why, UIE_E_SIGNATURE, "VCEK: not issued by the ASK");
		} else {
			depth = X509_STORE_CTX_get_error_depth(ctx);
			r = uie_snp_fail(why, UIE_E_SIGNATURE, "%s: %s",
					 depth >= 0 && depth < 3 ? depth_name[depth] : "chain",
					 X509_verify_cert_error_string(X509_STORE_CTX_get_error(ctx)));
		}
	} else {
		uie_snp_fail(why, r, "chain: OpenSSL failed");
	}
	sk_X509_free(untrusted);
	X509_STORE_CTX_free(ctx);
	X509_STORE_free(store);
	return r;
}

static int crl_check(X509_CRL *crl, const struct uie_snp_roots *roots, struct uie_snp_why *why)
{
	X509_REVOKED *rev = NULL;

	if (X509_NAME_cmp(X509_CRL_get_issuer(crl), X509_get_subject_name(roots->ark)) != 0 ||
	    X509_CRL_verify(crl, X509_get0_pubkey(roots->ark)) != 1)
		return uie_snp_fail(why, UIE_E_SIGNATURE, "CRL: not issued and signed by the ARK");
	if (X509_CRL_get0_by_cert(crl, &rev, roots->ask) == 1)
		return uie_snp_fail(why, UIE_E_DENIED, "ASK: revoked by the CRL");
	return UIE_OK;
}

int uie_snp_chain_verify(X509 *vcek, const struct uie_snp_roots *roots, X509_CRL *crl,
			 struct uie_snp_why *why)
{
	int r;

	if (!vcek || !roots || !roots->ask || !roots->ark)
		return UIE_E_INVAL;
	if (!roots->simulated && !uie_snp_ark_pinned(roots->ark))
		return unpinned(roots->ark, why);
	if ((r = pss_sha384(roots->ark, "ARK", why)) != UIE_OK ||
	    (r = pss_sha384(roots->ask, "ASK", why)) != UIE_OK ||
	    (r = pss_sha384(vcek, "VCEK", why)) != UIE_OK ||
	    (r = rsa4096(roots->ark, "ARK", why)) != UIE_OK ||
	    (r = rsa4096(roots->ask, "ASK", why)) != UIE_OK || (r = store_verify(vcek, roots, why)) != UIE_OK)
		return r;
	return crl ? crl_check(crl, roots, why) : UIE_OK;
}

/* The report's R and S as the DER ECDSA-Sig-Value OpenSSL verifies; its length, or 0. */
static int der_sig(const uint8_t *report, unsigned char **der)
{
	ECDSA_SIG *sig = ECDSA_SIG_new();
	BIGNUM *r = BN_lebin2bn(report + R_OFF, UIE_SNP_SIG_COMPONENT, NULL);
	BIGNUM *s = BN_lebin2bn(report + S_OFF, UIE_SNP_SIG_COMPONENT, NULL);
	int n = 0;

	if (sig && r && s && ECDSA_SIG_set0(sig, r, s) == 1) {
		r = s = NULL; /* owned by sig now */
		n = i2d_ECDSA_SIG(sig, der);
	}
	BN_free(r);
	BN_free(s);
	ECDSA_SIG_free(sig);
	return n > 0 ? n : 0;
}

int uie_snp_report_verify_sig(const uint8_t report[UIE_SNP_REPORT_LEN], X509 *vcek, struct uie_snp_why *why)
{
	EVP_PKEY *k = vcek ? X509_get0_pubkey(vcek) : NULL;
	EVP_MD_CTX *md;
	unsigned char *der = NULL;
	char group[32] = "";
	int n, r;

	if (!report || !k)
		return UIE_E_INVAL;
	if (!EVP_PKEY_is_a(k, "EC") || EVP_PKEY_get_group_name(k, group, sizeof(group), NULL) != 1 ||
	    strcmp(group, "secp384r1") != 0)
		return uie_snp_fail(why, UIE_E_KEY, "VCEK: key is not ECDSA P-384");
	if ((n = der_sig(report, &der)) == 0 || !(md = EVP_MD_CTX_new())) {
		OPENSSL_free(der);
		return uie_snp_fail(why, UIE_E_CRYPTO, "report: OpenSSL failed on SIGNATURE");
	}
	r = EVP_DigestVerifyInit(md, NULL, EVP_sha384(), NULL, k) == 1 &&
			    EVP_DigestVerify(md, der, (size_t)n, report, UIE_SNP_SIGNED_LEN) == 1
		    ? UIE_OK
		    : uie_snp_fail(why, UIE_E_SIGNATURE,
				   "report: SIGNATURE does not verify with the VCEK's key");
	EVP_MD_CTX_free(md);
	OPENSSL_free(der);
	return r;
}
