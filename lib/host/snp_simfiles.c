/* SPDX-License-Identifier: Apache-2.0 */
/* A simulated chain's directory (snp_simfiles.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/pem.h>

#include "fileio.h"
#include "snp_simfiles.h"

enum {
	ARK,
	ASK,
	VCEK,
	N
};

static const char *const names[N] = { "ark", "ask", "vcek" };

static int path_of(char *path, size_t cap, const char *dir, int i, const char *ext)
{
	return (size_t)snprintf(path, cap, "%s/%s.%s", dir, names[i], ext) < cap ? UIE_OK : UIE_E_LIMIT;
}

/* The PEM BIO's bytes into path with mode. */
static int flush(BIO *bio, const char *path, mode_t mode)
{
	char *p;
	long n = BIO_get_mem_data(bio, &p);

	return n > 0 ? uie_file_write_atomic(path, p, (size_t)n, mode) : UIE_E_CRYPTO;
}

int uie_snp_simfiles_save(const char *dir, const struct uie_snp_sim *s, struct uie_snp_why *why)
{
	X509 *const certs[N] = { s->ark, s->ask, s->vcek };
	EVP_PKEY *const keys[N] = { s->ark_key, s->ask_key, s->vcek_key };
	char path[4096];
	int r = UIE_OK;

	for (int i = 0; r == UIE_OK && i < N; i++) {
		BIO *c = BIO_new(BIO_s_mem()), *k = BIO_new(BIO_s_mem());

		r = c && k && PEM_write_bio_X509(c, certs[i]) == 1 &&
				    PEM_write_bio_PrivateKey(k, keys[i], NULL, NULL, 0, NULL, NULL) == 1
			    ? UIE_OK
			    : UIE_E_CRYPTO;
		if (r == UIE_OK && (r = path_of(path, sizeof(path), dir, i, "pem")) == UIE_OK &&
		    (r = flush(c, path, 0644)) == UIE_OK &&
		    (r = path_of(path, sizeof(path), dir, i, "key")) == UIE_OK)
			r = flush(k, path, 0600);
		BIO_free(c);
		BIO_free(k);
	}
	if (r != UIE_OK)
		uie_snp_fail(why, r, "%s: %s", r == UIE_E_CRYPTO ? dir : path, uie_file_err_str(r));
	return r;
}

static int key_of(const char *path, EVP_PKEY **out)
{
	uint8_t *buf;
	size_t len;
	BIO *bio;
	int r;

	*out = NULL;
	if ((r = uie_file_read_alloc(path, UIE_SNP_CERT_FILE_MAX, &buf, &len)) != UIE_OK)
		return r;
	if ((bio = BIO_new_mem_buf(buf, (int)len)) != NULL) {
		*out = PEM_read_bio_PrivateKey(bio, NULL, NULL, NULL);
		BIO_free(bio);
	}
	OPENSSL_cleanse(buf, len);
	free(buf);
	return *out ? UIE_OK : UIE_E_KEY;
}

/* Which product the ASK's name is (SEV-Milan, ...). */
static int product_of(X509 *ask, enum uie_snp_product *p)
{
	char cn[32] = "", want[32];

	X509_NAME_get_text_by_NID(X509_get_subject_name(ask), NID_commonName, cn, sizeof(cn));
	for (int i = 0; i < UIE_SNP_PRODUCT__MAX; i++) {
		snprintf(want, sizeof(want), "SEV-%s", uie_snp_product_name((enum uie_snp_product)i));
		if (!strcmp(cn, want)) {
			*p = (enum uie_snp_product)i;
			return UIE_OK;
		}
	}
	return UIE_E_FORMAT;
}

int uie_snp_simfiles_load(const char *dir, struct uie_snp_sim *s, struct uie_snp_why *why)
{
	X509 **certs[N] = { &s->ark, &s->ask, &s->vcek };
	EVP_PKEY **keys[N] = { &s->ark_key, &s->ask_key, &s->vcek_key };
	char path[4096];
	int r = UIE_OK;

	memset(s, 0, sizeof(*s));
	for (int i = 0; r == UIE_OK && i < N; i++)
		if ((r = path_of(path, sizeof(path), dir, i, "pem")) == UIE_OK &&
		    (r = uie_snp_cert_read_alloc(path, certs[i])) == UIE_OK &&
		    (r = path_of(path, sizeof(path), dir, i, "key")) == UIE_OK)
			r = key_of(path, keys[i]);
	if (r == UIE_OK && product_of(s->ask, &s->product) != UIE_OK) {
		snprintf(path, sizeof(path), "%s/ask.pem", dir);
		r = UIE_E_FORMAT;
	}
	if (r != UIE_OK) {
		uie_snp_fail(why, r, "%s: %s", path,
			     r == UIE_E_KEY      ? "not a PEM private key"
			     : r == UIE_E_FORMAT ? "not a certificate of a simulated chain"
						 : uie_file_err_str(r));
		uie_snp_sim_free(s);
	}
	return r;
}
