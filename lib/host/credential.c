/* SPDX-License-Identifier: Apache-2.0 */
/* TPM2_MakeCredential and TPM2_ActivateCredential in software (credential.h). */
#include "credential.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/kdf.h>
#include <openssl/rand.h>
#include <openssl/rsa.h>
#include <tss2/tss2_mu.h>

#include "tpm_public.h"
#include "uie/err.h"

/* The OAEP label of a credential's seed, its NUL included (part 1, 24.4). */
static const char identity_label[] = "IDENTITY";

int uie_kdfa(const char *md, const uint8_t *key, size_t key_len, const char *label, const uint8_t *ctx_u,
	     size_t u_len, const uint8_t *ctx_v, size_t v_len, uint8_t *out, size_t out_len)
{
	uint8_t ctx[2 * UIE_TPM_NAME_MAX + 1];
	OSSL_PARAM params[7], *p = params;
	EVP_KDF *kdf;
	EVP_KDF_CTX *kctx = NULL;
	int ok;

	if (u_len > UIE_TPM_NAME_MAX || v_len > UIE_TPM_NAME_MAX)
		return UIE_E_LIMIT;
	if (u_len)
		memcpy(ctx, ctx_u, u_len);
	if (v_len)
		memcpy(ctx + u_len, ctx_v, v_len);
	/* OpenSSL's KBKDF adds the 0x00 separator after the label and the 32-bit length in bits. */
	*p++ = OSSL_PARAM_construct_utf8_string(OSSL_KDF_PARAM_MODE, "counter", 0);
	*p++ = OSSL_PARAM_construct_utf8_string(OSSL_KDF_PARAM_MAC, "HMAC", 0);
	*p++ = OSSL_PARAM_construct_utf8_string(OSSL_KDF_PARAM_DIGEST, (char *)md, 0);
	*p++ = OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_KEY, (void *)key, key_len);
	*p++ = OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_SALT, (void *)label, strlen(label));
	*p++ = OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_INFO, ctx, u_len + v_len);
	*p = OSSL_PARAM_construct_end();
	if (!(kdf = EVP_KDF_fetch(NULL, "KBKDF", NULL)))
		return UIE_E_CRYPTO;
	kctx = EVP_KDF_CTX_new(kdf);
	ok = kctx && EVP_KDF_derive(kctx, out, out_len, params) == 1;
	EVP_KDF_CTX_free(kctx);
	EVP_KDF_free(kdf);
	return ok ? UIE_OK : UIE_E_CRYPTO;
}

/* The keys of one credential: the EK's hash and symmetric algorithms, and what the seed gives. */
struct ckeys {
	const char *md;
	size_t dsize;
	char cipher[16];
	uint8_t sym[32];
	size_t sym_len;
	uint8_t hmac[EVP_MAX_MD_SIZE];
};

static int derive(const TPMT_PUBLIC *ek, const uint8_t *name, size_t name_len, const uint8_t *seed,
		  size_t seed_len, struct ckeys *k)
{
	unsigned bits = ek->parameters.rsaDetail.symmetric.keyBits.aes;
	int r;

	memset(k, 0, sizeof(*k));
	if (uie_tpm_ek_check(ek, NULL) != UIE_OK)
		return UIE_E_KEY;
	k->md = uie_tpm_md_name(ek->nameAlg);
	k->dsize = (size_t)EVP_MD_get_size(EVP_get_digestbyname(k->md));
	k->sym_len = bits / 8;
	snprintf(k->cipher, sizeof(k->cipher), "AES-%u-CFB", bits);
	if (seed_len == 0 || seed_len > k->dsize)
		return UIE_E_KEY;
	if ((r = uie_kdfa(k->md, seed, seed_len, "STORAGE", name, name_len, NULL, 0, k->sym, k->sym_len)) !=
		    UIE_OK ||
	    (r = uie_kdfa(k->md, seed, seed_len, "INTEGRITY", NULL, 0, NULL, 0, k->hmac, k->dsize)) != UIE_OK)
		return r;
	return UIE_OK;
}

static void ckeys_clear(struct ckeys *k)
{
	OPENSSL_cleanse(k, sizeof(*k));
}

/* AES-CFB with a zero IV over n bytes, in either direction. */
static int cfb(const struct ckeys *k, int enc, const uint8_t *in, size_t n, uint8_t *out)
{
	static const uint8_t iv[16];
	EVP_CIPHER *c = EVP_CIPHER_fetch(NULL, k->cipher, NULL);
	EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();
	int l1 = 0, l2 = 0, ok;

	ok = c && ctx && EVP_CipherInit_ex2(ctx, c, k->sym, iv, enc, NULL) == 1 &&
	     EVP_CipherUpdate(ctx, out, &l1, in, (int)n) == 1 &&
	     EVP_CipherFinal_ex(ctx, out + l1, &l2) == 1 && (size_t)l1 + (size_t)l2 == n;
	EVP_CIPHER_CTX_free(ctx);
	EVP_CIPHER_free(c);
	return ok ? UIE_OK : UIE_E_CRYPTO;
}

/* HMAC(hmacKey, enc || name). */
static int outer_hmac(const struct ckeys *k, const uint8_t *enc, size_t enc_len, const uint8_t *name,
		      size_t name_len, uint8_t out[EVP_MAX_MD_SIZE])
{
	uint8_t msg[sizeof(TPM2B_DIGEST) + UIE_TPM_NAME_MAX];
	size_t n = 0;

	if (enc_len + name_len > sizeof(msg))
		return UIE_E_LIMIT;
	memcpy(msg, enc, enc_len);
	memcpy(msg + enc_len, name, name_len);
	if (!EVP_Q_mac(NULL, "HMAC", NULL, k->md, NULL, k->hmac, k->dsize, msg, enc_len + name_len, out,
		       EVP_MAX_MD_SIZE, &n) ||
	    n != k->dsize)
		return UIE_E_CRYPTO;
	return UIE_OK;
}

int uie_credential_wrap(const TPMT_PUBLIC *ek, const uint8_t *name, size_t name_len, const uint8_t *seed,
			size_t seed_len, const uint8_t *cred, size_t cred_len, uint8_t *out, size_t cap,
			size_t *out_len)
{
	TPM2B_DIGEST plain = { .size = (UINT16)cred_len }, integrity = { 0 };
	TPM2B_ID_OBJECT id = { 0 };
	uint8_t pbuf[sizeof(TPM2B_DIGEST)];
	size_t plen = 0, ilen = 0;
	struct ckeys k;
	int r;

	*out_len = 0;
	if ((r = derive(ek, name, name_len, seed, seed_len, &k)) != UIE_OK)
		goto out;
	r = UIE_E_LIMIT;
	if (cred_len == 0 || cred_len > k.dsize)
		goto out;
	memcpy(plain.buffer, cred, cred_len);
	r = UIE_E_FORMAT;
	if (Tss2_MU_TPM2B_DIGEST_Marshal(&plain, pbuf, sizeof(pbuf), &plen) != TSS2_RC_SUCCESS)
		goto out;
	/* credential = TPM2B_DIGEST(integrity) || encIdentity */
	integrity.size = (UINT16)k.dsize;
	ilen = 2 + k.dsize;
	if ((r = cfb(&k, 1, pbuf, plen, id.credential + ilen)) != UIE_OK ||
	    (r = outer_hmac(&k, id.credential + ilen, plen, name, name_len, integrity.buffer)) != UIE_OK)
		goto out;
	r = UIE_E_FORMAT;
	ilen = 0;
	if (Tss2_MU_TPM2B_DIGEST_Marshal(&integrity, id.credential, sizeof(id.credential), &ilen) !=
	    TSS2_RC_SUCCESS)
		goto out;
	id.size = (UINT16)(ilen + plen);
	r = Tss2_MU_TPM2B_ID_OBJECT_Marshal(&id, out, cap, out_len) == TSS2_RC_SUCCESS ? UIE_OK
										       : UIE_E_OVERFLOW;
out:
	OPENSSL_cleanse(pbuf, sizeof(pbuf));
	OPENSSL_cleanse(&plain, sizeof(plain));
	ckeys_clear(&k);
	return r;
}

/* A whole buffer holding one TPM2B (u16 size, then exactly that many bytes). */
static int tpm2b_whole(const uint8_t *p, size_t len)
{
	if (len < 2 || ((size_t)p[0] << 8 | p[1]) > len - 2)
		return UIE_E_TRUNCATED;
	return ((size_t)p[0] << 8 | p[1]) == len - 2 ? UIE_OK : UIE_E_FORMAT;
}

int uie_credential_unwrap(const TPMT_PUBLIC *ek, const uint8_t *name, size_t name_len, const uint8_t *seed,
			  size_t seed_len, const uint8_t *blob, size_t blob_len, uint8_t cred[UIE_CRED_MAX],
			  size_t *cred_len)
{
	uint8_t mac[EVP_MAX_MD_SIZE], pbuf[sizeof(TPM2B_DIGEST)];
	TPM2B_ID_OBJECT id = { 0 };
	TPM2B_DIGEST integrity = { 0 }, plain = { 0 };
	size_t off = 0, enc_len;
	struct ckeys k;
	int r;

	*cred_len = 0;
	memset(&k, 0, sizeof(k));
	if ((r = tpm2b_whole(blob, blob_len)) != UIE_OK)
		return r;
	if (Tss2_MU_TPM2B_ID_OBJECT_Unmarshal(blob, blob_len, &off, &id) != TSS2_RC_SUCCESS ||
	    off != blob_len)
		return UIE_E_LIMIT;
	off = 0;
	if (Tss2_MU_TPM2B_DIGEST_Unmarshal(id.credential, id.size, &off, &integrity) != TSS2_RC_SUCCESS)
		return UIE_E_FORMAT;
	enc_len = id.size - off;
	if ((r = derive(ek, name, name_len, seed, seed_len, &k)) != UIE_OK)
		goto out;
	/* The HMAC first: nothing is decrypted before the blob is known to be for this name. */
	r = UIE_E_SIGNATURE;
	if (integrity.size != k.dsize || enc_len < 2 || enc_len > sizeof(pbuf))
		goto out;
	if ((r = outer_hmac(&k, id.credential + off, enc_len, name, name_len, mac)) != UIE_OK)
		goto out;
	if (CRYPTO_memcmp(mac, integrity.buffer, k.dsize) != 0) {
		r = UIE_E_SIGNATURE;
		goto out;
	}
	if ((r = cfb(&k, 0, id.credential + off, enc_len, pbuf)) != UIE_OK)
		goto out;
	off = 0;
	r = UIE_E_FORMAT;
	if (Tss2_MU_TPM2B_DIGEST_Unmarshal(pbuf, enc_len, &off, &plain) != TSS2_RC_SUCCESS ||
	    off != enc_len || plain.size == 0 || plain.size > k.dsize)
		goto out;
	memcpy(cred, plain.buffer, plain.size);
	*cred_len = plain.size;
	r = UIE_OK;
out:
	OPENSSL_cleanse(pbuf, sizeof(pbuf));
	ckeys_clear(&k);
	return r;
}

/* RSA-OAEP with the EK's nameAlg and the label "IDENTITY\0", either direction. */
static int oaep(EVP_PKEY *pk, const TPMT_PUBLIC *ek, int enc, const uint8_t *in, size_t in_len, uint8_t *out,
		size_t *out_len)
{
	const char *md = uie_tpm_md_name(ek->nameAlg);
	EVP_PKEY_CTX *ctx = EVP_PKEY_CTX_new_from_pkey(NULL, pk, NULL);
	void *label = OPENSSL_memdup(identity_label, sizeof(identity_label));
	int ok;

	ok = ctx && label && md && (enc ? EVP_PKEY_encrypt_init(ctx) : EVP_PKEY_decrypt_init(ctx)) == 1 &&
	     EVP_PKEY_CTX_set_rsa_padding(ctx, RSA_PKCS1_OAEP_PADDING) == 1 &&
	     EVP_PKEY_CTX_set_rsa_oaep_md_name(ctx, md, NULL) == 1 &&
	     EVP_PKEY_CTX_set_rsa_mgf1_md_name(ctx, md, NULL) == 1 &&
	     EVP_PKEY_CTX_set0_rsa_oaep_label(ctx, label, sizeof(identity_label)) == 1;
	if (ok)
		label = NULL; /* the context owns it */
	ok = ok && (enc ? EVP_PKEY_encrypt(ctx, out, out_len, in, in_len)
			: EVP_PKEY_decrypt(ctx, out, out_len, in, in_len)) == 1;
	OPENSSL_free(label);
	EVP_PKEY_CTX_free(ctx);
	return ok ? UIE_OK : UIE_E_KEY;
}

static int dup_bytes(const uint8_t *p, size_t n, uint8_t **out, size_t *len)
{
	if (!(*out = malloc(n)))
		return UIE_E_NOMEM;
	memcpy(*out, p, n);
	*len = n;
	return UIE_OK;
}

static int refuse(const char **why, const char *reason, int err)
{
	if (why)
		*why = reason;
	return err;
}

int uie_credential_make(const uint8_t *ek_pub, size_t ek_len, const uint8_t *ak_pub, size_t ak_len,
			const uint8_t *cred, size_t cred_len, uint8_t **blob, size_t *blob_len,
			uint8_t **secret, size_t *secret_len, const char **why)
{
	TPMT_PUBLIC ek, ak;
	TPM2B_ENCRYPTED_SECRET es = { 0 };
	uint8_t name[UIE_TPM_NAME_MAX], seed[EVP_MAX_MD_SIZE], bbuf[sizeof(TPM2B_ID_OBJECT)],
		sbuf[sizeof(TPM2B_ENCRYPTED_SECRET)];
	size_t name_len, seed_len, blen, slen = 0, elen = sizeof(es.secret);
	EVP_PKEY *pk = NULL;
	int r;

	*blob = *secret = NULL;
	*blob_len = *secret_len = 0;
	if (why)
		*why = "";
	if ((r = uie_tpm_public_parse(ek_pub, ek_len, &ek)) != UIE_OK)
		return refuse(why, "EK: not one marshalled TPM2B_PUBLIC", r);
	if ((r = uie_tpm_public_parse(ak_pub, ak_len, &ak)) != UIE_OK)
		return refuse(why, "AK: not one marshalled TPM2B_PUBLIC", r);
	if ((r = uie_tpm_ek_check(&ek, why)) != UIE_OK || (r = uie_tpm_ak_check(&ak, why)) != UIE_OK)
		return r;
	if (cred_len == 0 ||
	    cred_len > (size_t)EVP_MD_get_size(EVP_get_digestbyname(uie_tpm_md_name(ek.nameAlg))))
		return refuse(why, "credential: not 1 .. digest size of the EK's nameAlg bytes", UIE_E_LIMIT);
	if ((r = uie_tpm_public_name(&ak, name, &name_len)) != UIE_OK)
		return refuse(why, "AK: name", r);
	seed_len = (size_t)EVP_MD_get_size(EVP_get_digestbyname(uie_tpm_md_name(ek.nameAlg)));
	if (RAND_bytes(seed, (int)seed_len) != 1)
		return refuse(why, "no random seed", UIE_E_CRYPTO);
	if ((r = uie_credential_wrap(&ek, name, name_len, seed, seed_len, cred, cred_len, bbuf, sizeof(bbuf),
				     &blen)) != UIE_OK) {
		refuse(why, "credential blob", r);
		goto out;
	}
	if ((r = uie_tpm_rsa_pkey(&ek, &pk)) != UIE_OK ||
	    (r = oaep(pk, &ek, 1, seed, seed_len, es.secret, &elen)) != UIE_OK) {
		refuse(why, "EK: RSA-OAEP encryption of the seed", r);
		goto out;
	}
	es.size = (UINT16)elen;
	if (Tss2_MU_TPM2B_ENCRYPTED_SECRET_Marshal(&es, sbuf, sizeof(sbuf), &slen) != TSS2_RC_SUCCESS) {
		r = refuse(why, "secret: marshalling", UIE_E_FORMAT);
		goto out;
	}
	if ((r = dup_bytes(bbuf, blen, blob, blob_len)) != UIE_OK ||
	    (r = dup_bytes(sbuf, slen, secret, secret_len)) != UIE_OK) {
		free(*blob);
		*blob = NULL;
		*blob_len = 0;
	}
out:
	OPENSSL_cleanse(seed, sizeof(seed));
	EVP_PKEY_free(pk);
	return r;
}

int uie_credential_activate(EVP_PKEY *ek, const TPMT_PUBLIC *ek_pub, const uint8_t *name, size_t name_len,
			    const uint8_t *blob, size_t blob_len, const uint8_t *secret, size_t secret_len,
			    uint8_t cred[UIE_CRED_MAX], size_t *cred_len)
{
	TPM2B_ENCRYPTED_SECRET es = { 0 };
	uint8_t seed[sizeof(es.secret)];
	size_t off = 0, seed_len = sizeof(seed);
	int r;

	*cred_len = 0;
	if ((r = tpm2b_whole(secret, secret_len)) != UIE_OK || (r = tpm2b_whole(blob, blob_len)) != UIE_OK)
		return r;
	if (Tss2_MU_TPM2B_ENCRYPTED_SECRET_Unmarshal(secret, secret_len, &off, &es) != TSS2_RC_SUCCESS)
		return UIE_E_LIMIT;
	/* As a TPM: the seed first (another EK fails here), then the blob's HMAC for this AK. */
	if ((r = oaep(ek, ek_pub, 0, es.secret, es.size, seed, &seed_len)) == UIE_OK)
		r = uie_credential_unwrap(ek_pub, name, name_len, seed, seed_len, blob, blob_len, cred,
					  cred_len);
	OPENSSL_cleanse(seed, sizeof(seed));
	return r;
}

#define CRED_FILE_MAGIC 0xbadcc0deu

void uie_credential_file_put(struct uie_wbuf *w, const uint8_t *blob, size_t blob_len, const uint8_t *secret,
			     size_t secret_len)
{
	uie_tpm_put32(w, CRED_FILE_MAGIC);
	uie_tpm_put32(w, 1);
	uie_wbuf_bytes(w, blob, blob_len);
	uie_wbuf_bytes(w, secret, secret_len);
}

/* One TPM2B at the read position: *p and *n cover its size field and its bytes. */
static int take_tpm2b(struct uie_rbuf *b, const uint8_t **p, size_t *n)
{
	uint16_t size;
	int r;

	*p = uie_rbuf_cur(b);
	if ((r = uie_tpm_get16(b, &size)) != UIE_OK || (r = uie_rbuf_skip(b, size)) != UIE_OK)
		return r;
	*n = 2u + size;
	return UIE_OK;
}

int uie_credential_file_parse(const uint8_t *p, size_t len, const uint8_t **blob, size_t *blob_len,
			      const uint8_t **secret, size_t *secret_len)
{
	struct uie_rbuf b;
	uint32_t magic, version;
	int r;

	*blob = *secret = NULL;
	*blob_len = *secret_len = 0;
	uie_rbuf_init(&b, p, len);
	if ((r = uie_tpm_get32(&b, &magic)) != UIE_OK || (r = uie_tpm_get32(&b, &version)) != UIE_OK)
		return r;
	if (magic != CRED_FILE_MAGIC || version != 1)
		return UIE_E_FORMAT;
	if ((r = take_tpm2b(&b, blob, blob_len)) != UIE_OK ||
	    (r = take_tpm2b(&b, secret, secret_len)) != UIE_OK || (r = uie_rbuf_end(&b)) != UIE_OK) {
		*blob = *secret = NULL;
		*blob_len = *secret_len = 0;
		return r;
	}
	return UIE_OK;
}

const char *uie_credential_reason(int err)
{
	switch (err) {
	case UIE_E_KEY: return "the secret does not open with this TPM's EK (made to another EK, or altered)";
	case UIE_E_SIGNATURE:
		return "the credential's integrity HMAC does not hold for this AK's name (made for another "
		       "AK, or altered)";
	case UIE_E_FORMAT:
	case UIE_E_TRUNCATED:
	case UIE_E_LIMIT: return "the credential blob or secret is malformed";
	default: return uie_err_str(err);
	}
}
