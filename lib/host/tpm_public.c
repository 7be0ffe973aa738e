/* SPDX-License-Identifier: Apache-2.0 */
/* EK and AK public areas: templates, strict TPM2B_PUBLIC parsing, names and checks (tpm_public.h). */
#include "tpm_public.h"

#include <stdlib.h>
#include <string.h>

#include <openssl/core_names.h>
#include <openssl/param_build.h>
#include <openssl/x509.h>
#include <tss2/tss2_mu.h>

#include "uie/err.h"

/* PolicySecret(TPM_RH_ENDORSEMENT) with SHA-256: the EK profile's authPolicy for template L-1. */
static const uint8_t ek_policy[32] = {
	0x83, 0x71, 0x97, 0x67, 0x44, 0x84, 0xb3, 0xf8, 0x1a, 0x90, 0xcc, 0x8d, 0x46, 0xa5, 0xd7, 0x24,
	0xfd, 0x52, 0xd7, 0x6e, 0x06, 0x52, 0x0b, 0x64, 0xf2, 0xa1, 0xda, 0x1b, 0x33, 0x14, 0x69, 0xaa,
};

#define AK_MUST                                                                             \
	(TPMA_OBJECT_FIXEDTPM | TPMA_OBJECT_FIXEDPARENT | TPMA_OBJECT_SENSITIVEDATAORIGIN | \
	 TPMA_OBJECT_RESTRICTED | TPMA_OBJECT_SIGN_ENCRYPT)

void uie_tpm_ek_template(TPMT_PUBLIC *pub, const uint8_t *n)
{
	memset(pub, 0, sizeof(*pub));
	pub->type = TPM2_ALG_RSA;
	pub->nameAlg = TPM2_ALG_SHA256;
	pub->objectAttributes = TPMA_OBJECT_FIXEDTPM | TPMA_OBJECT_FIXEDPARENT |
				TPMA_OBJECT_SENSITIVEDATAORIGIN | TPMA_OBJECT_ADMINWITHPOLICY |
				TPMA_OBJECT_RESTRICTED | TPMA_OBJECT_DECRYPT;
	pub->authPolicy.size = sizeof(ek_policy);
	memcpy(pub->authPolicy.buffer, ek_policy, sizeof(ek_policy));
	pub->parameters.rsaDetail.symmetric.algorithm = TPM2_ALG_AES;
	pub->parameters.rsaDetail.symmetric.keyBits.aes = 128;
	pub->parameters.rsaDetail.symmetric.mode.aes = TPM2_ALG_CFB;
	pub->parameters.rsaDetail.scheme.scheme = TPM2_ALG_NULL;
	pub->parameters.rsaDetail.keyBits = 2048;
	pub->parameters.rsaDetail.exponent = 0;
	pub->unique.rsa.size = UIE_TPM_EK_RSA_BYTES;
	if (n)
		memcpy(pub->unique.rsa.buffer, n, UIE_TPM_EK_RSA_BYTES);
}

void uie_tpm_ak_template(TPMT_PUBLIC *pub, const uint8_t *x, const uint8_t *y)
{
	memset(pub, 0, sizeof(*pub));
	pub->type = TPM2_ALG_ECC;
	pub->nameAlg = TPM2_ALG_SHA256;
	pub->objectAttributes = AK_MUST | TPMA_OBJECT_USERWITHAUTH;
	pub->parameters.eccDetail.symmetric.algorithm = TPM2_ALG_NULL;
	pub->parameters.eccDetail.scheme.scheme = TPM2_ALG_ECDSA;
	pub->parameters.eccDetail.scheme.details.ecdsa.hashAlg = TPM2_ALG_SHA256;
	pub->parameters.eccDetail.curveID = TPM2_ECC_NIST_P256;
	pub->parameters.eccDetail.kdf.scheme = TPM2_ALG_NULL;
	if (x && y) {
		pub->unique.ecc.x.size = pub->unique.ecc.y.size = 32;
		memcpy(pub->unique.ecc.x.buffer, x, 32);
		memcpy(pub->unique.ecc.y.buffer, y, 32);
	}
}

int uie_tpm_public_parse(const uint8_t *p, size_t len, TPMT_PUBLIC *out)
{
	TPM2B_PUBLIC tb = { 0 };
	size_t off = 0;
	TSS2_RC rc;

	memset(out, 0, sizeof(*out));
	if (len < 2)
		return UIE_E_TRUNCATED;
	if (((size_t)p[0] << 8 | p[1]) != len - 2)
		return len - 2 < ((size_t)p[0] << 8 | p[1]) ? UIE_E_TRUNCATED : UIE_E_FORMAT;
	/* tpm2-tss reads size 0 as an empty (all-zero) area: no key at all. */
	if (len == 2)
		return UIE_E_FORMAT;
	rc = Tss2_MU_TPM2B_PUBLIC_Unmarshal(p, len, &off, &tb);
	if (rc == TSS2_MU_RC_INSUFFICIENT_BUFFER)
		return UIE_E_TRUNCATED;
	if (rc != TSS2_RC_SUCCESS || off != len)
		return UIE_E_FORMAT;
	*out = tb.publicArea;
	return UIE_OK;
}

int uie_tpm_tpmt_parse(const uint8_t *p, size_t len, TPMT_PUBLIC *out)
{
	size_t off = 0;

	memset(out, 0, sizeof(*out));
	if (Tss2_MU_TPMT_PUBLIC_Unmarshal(p, len, &off, out) != TSS2_RC_SUCCESS || off != len) {
		memset(out, 0, sizeof(*out));
		return UIE_E_FORMAT;
	}
	return UIE_OK;
}

int uie_tpm_public_alloc(const TPMT_PUBLIC *pub, uint8_t **out, size_t *len)
{
	uint8_t tmp[sizeof(TPM2B_PUBLIC)];
	TPM2B_PUBLIC tb = { .publicArea = *pub };
	size_t off = 0;

	*out = NULL;
	*len = 0;
	/* size 0 lets tpm2-tss fill in the length of what it marshals. */
	if (Tss2_MU_TPM2B_PUBLIC_Marshal(&tb, tmp, sizeof(tmp), &off) != TSS2_RC_SUCCESS)
		return UIE_E_FORMAT;
	if (!(*out = malloc(off)))
		return UIE_E_NOMEM;
	memcpy(*out, tmp, off);
	*len = off;
	return UIE_OK;
}

const char *uie_tpm_md_name(TPM2_ALG_ID alg)
{
	switch (alg) {
	case TPM2_ALG_SHA256: return "SHA256";
	case TPM2_ALG_SHA384: return "SHA384";
	case TPM2_ALG_SHA512: return "SHA512";
	default: return NULL;
	}
}

int uie_tpm_public_name(const TPMT_PUBLIC *pub, uint8_t name[UIE_TPM_NAME_MAX], size_t *len)
{
	uint8_t tmp[sizeof(TPMT_PUBLIC)];
	const char *md = uie_tpm_md_name(pub->nameAlg);
	size_t off = 0, dlen = 0;

	*len = 0;
	if (!md)
		return UIE_E_ALG;
	if (Tss2_MU_TPMT_PUBLIC_Marshal(pub, tmp, sizeof(tmp), &off) != TSS2_RC_SUCCESS)
		return UIE_E_FORMAT;
	name[0] = (uint8_t)(pub->nameAlg >> 8);
	name[1] = (uint8_t)pub->nameAlg;
	if (!EVP_Q_digest(NULL, md, NULL, tmp, off, name + 2, &dlen))
		return UIE_E_CRYPTO;
	*len = 2 + dlen;
	return UIE_OK;
}

static int refuse(const char **why, const char *reason, int err)
{
	if (why)
		*why = reason;
	return err;
}

int uie_tpm_ek_check(const TPMT_PUBLIC *pub, const char **why)
{
	const TPMS_RSA_PARMS *rsa = &pub->parameters.rsaDetail;
	TPMA_OBJECT a = pub->objectAttributes;

	if (pub->type != TPM2_ALG_RSA)
		return refuse(why, "EK: type is not RSA", UIE_E_ALG);
	if (!uie_tpm_md_name(pub->nameAlg))
		return refuse(why, "EK: nameAlg is not SHA-256, SHA-384 or SHA-512", UIE_E_ALG);
	if (!(a & TPMA_OBJECT_RESTRICTED) || !(a & TPMA_OBJECT_DECRYPT) || (a & TPMA_OBJECT_SIGN_ENCRYPT))
		return refuse(why, "EK: objectAttributes: not a restricted decryption key", UIE_E_KEY);
	if (rsa->symmetric.algorithm != TPM2_ALG_AES || rsa->symmetric.mode.aes != TPM2_ALG_CFB ||
	    (rsa->symmetric.keyBits.aes != 128 && rsa->symmetric.keyBits.aes != 256))
		return refuse(why, "EK: symmetric is not AES-128-CFB or AES-256-CFB", UIE_E_ALG);
	if (rsa->scheme.scheme != TPM2_ALG_NULL)
		return refuse(why, "EK: scheme is not TPM_ALG_NULL", UIE_E_ALG);
	if (rsa->keyBits < 2048 || rsa->keyBits > 4096 || rsa->keyBits % 8 ||
	    pub->unique.rsa.size != rsa->keyBits / 8)
		return refuse(why, "EK: keyBits or the modulus size", UIE_E_KEY);
	return UIE_OK;
}

int uie_tpm_ak_check(const TPMT_PUBLIC *pub, const char **why)
{
	TPMA_OBJECT a = pub->objectAttributes;

	if ((a & AK_MUST) != AK_MUST || (a & TPMA_OBJECT_DECRYPT))
		return refuse(
			why,
			"AK: objectAttributes: not a restricted signing key fixed to its TPM (fixedTPM, "
			"fixedParent, sensitiveDataOrigin, restricted, sign; not decrypt)",
			UIE_E_KEY);
	if (!uie_tpm_md_name(pub->nameAlg))
		return refuse(why, "AK: nameAlg is not SHA-256, SHA-384 or SHA-512", UIE_E_ALG);
	return UIE_OK;
}

int uie_tpm_public_is_key(const TPMT_PUBLIC *pub, EVP_PKEY *pk)
{
	const TPMS_ECC_POINT *pt = &pub->unique.ecc;
	uint8_t want[65], got[65];
	char group[32];
	size_t n = 0;

	if (pub->type != TPM2_ALG_ECC || pub->parameters.eccDetail.curveID != TPM2_ECC_NIST_P256 ||
	    pt->x.size != 32 || pt->y.size != 32 || EVP_PKEY_get_base_id(pk) != EVP_PKEY_EC ||
	    EVP_PKEY_get_utf8_string_param(pk, OSSL_PKEY_PARAM_GROUP_NAME, group, sizeof(group), NULL) != 1 ||
	    strcmp(group, "prime256v1") != 0)
		return UIE_E_ALG;
	want[0] = 0x04;
	memcpy(want + 1, pt->x.buffer, 32);
	memcpy(want + 33, pt->y.buffer, 32);
	if (EVP_PKEY_get_octet_string_param(pk, OSSL_PKEY_PARAM_PUB_KEY, got, sizeof(got), &n) != 1 ||
	    n != sizeof(got))
		return UIE_E_KEY;
	return memcmp(want, got, sizeof(got)) == 0 ? UIE_OK : UIE_E_KEY;
}

int uie_tpm_rsa_pkey(const TPMT_PUBLIC *pub, EVP_PKEY **out)
{
	uint32_t e = pub->parameters.rsaDetail.exponent ? pub->parameters.rsaDetail.exponent : 65537u;
	OSSL_PARAM_BLD *bld = NULL;
	OSSL_PARAM *params = NULL;
	EVP_PKEY_CTX *ctx = NULL;
	BIGNUM *n = NULL, *bne = NULL;
	int r = UIE_E_CRYPTO;

	*out = NULL;
	if (pub->type != TPM2_ALG_RSA || pub->unique.rsa.size == 0)
		return UIE_E_KEY;
	if (!(n = BN_bin2bn(pub->unique.rsa.buffer, pub->unique.rsa.size, NULL)) || !(bne = BN_new()) ||
	    !BN_set_word(bne, e) || !(bld = OSSL_PARAM_BLD_new()) ||
	    !OSSL_PARAM_BLD_push_BN(bld, OSSL_PKEY_PARAM_RSA_N, n) ||
	    !OSSL_PARAM_BLD_push_BN(bld, OSSL_PKEY_PARAM_RSA_E, bne) ||
	    !(params = OSSL_PARAM_BLD_to_param(bld)) ||
	    !(ctx = EVP_PKEY_CTX_new_from_name(NULL, "RSA", NULL)) || EVP_PKEY_fromdata_init(ctx) != 1 ||
	    EVP_PKEY_fromdata(ctx, out, EVP_PKEY_PUBLIC_KEY, params) != 1)
		goto done;
	r = UIE_OK;
done:
	EVP_PKEY_CTX_free(ctx);
	OSSL_PARAM_free(params);
	OSSL_PARAM_BLD_free(bld);
	BN_free(bne);
	BN_free(n);
	return r;
}

int uie_tpm_ak_spki_alloc(const TPMT_PUBLIC *pub, uint8_t **der, size_t *len)
{
	const TPMS_ECC_POINT *pt = &pub->unique.ecc;
	uint8_t point[65];
	OSSL_PARAM params[3];
	EVP_PKEY_CTX *ctx = NULL;
	EVP_PKEY *pk = NULL;
	unsigned char *p = NULL;
	int n, r = UIE_E_CRYPTO;

	*der = NULL;
	*len = 0;
	if (pub->type != TPM2_ALG_ECC || pub->parameters.eccDetail.curveID != TPM2_ECC_NIST_P256 ||
	    pt->x.size != 32 || pt->y.size != 32)
		return UIE_E_ALG;
	point[0] = 0x04; /* uncompressed */
	memcpy(point + 1, pt->x.buffer, 32);
	memcpy(point + 33, pt->y.buffer, 32);
	params[0] = OSSL_PARAM_construct_utf8_string(OSSL_PKEY_PARAM_GROUP_NAME, (char *)"prime256v1", 0);
	params[1] = OSSL_PARAM_construct_octet_string(OSSL_PKEY_PARAM_PUB_KEY, point, sizeof(point));
	params[2] = OSSL_PARAM_construct_end();
	if (!(ctx = EVP_PKEY_CTX_new_from_name(NULL, "EC", NULL)) || EVP_PKEY_fromdata_init(ctx) != 1 ||
	    EVP_PKEY_fromdata(ctx, &pk, EVP_PKEY_PUBLIC_KEY, params) != 1)
		r = UIE_E_KEY; /* not a point of the curve */
	else if ((n = i2d_PUBKEY(pk, &p)) > 0) {
		*der = p;
		*len = (size_t)n;
		r = UIE_OK;
	}
	EVP_PKEY_free(pk);
	EVP_PKEY_CTX_free(ctx);
	return r;
}
