/* SPDX-License-Identifier: Apache-2.0 */
#include "evio.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/bio.h>
#include <openssl/pem.h>
#include <openssl/x509.h>

#include "fileio.h"
#include "hex.h"
#include "opts.h"
#include "pubkey.h"
#include "uie/err.h"

int evio_read_alloc(const char *path, uint8_t **buf, size_t *len)
{
	if (!strcmp(path, "-"))
		return uie_fd_read_alloc(0, EVIO_MAX_FILE, buf, len);
	return uie_file_read_alloc(path, EVIO_MAX_FILE, buf, len);
}

/* The nonce from arg (hex, or the file it names): UIE_OK, or UIE_E_FORMAT after saying why. */
static int nonce_option(struct evio_nonce *o, bool from_file, const char *arg)
{
	const char *cmd = o->cmd;
	uint8_t *raw = NULL;
	size_t n = 0;
	int r;

	if (o->len) {
		fprintf(stderr, "%s: give one nonce only\n", cmd);
		return UIE_E_FORMAT;
	}
	if (!from_file) {
		if (uie_hex_decode_upto(arg, o->bytes, UIE_NONCE_MAX, &o->len) == UIE_OK)
			return UIE_OK;
		fprintf(stderr, "%s: --nonce needs 1 to %d bytes of hex\n", cmd, UIE_NONCE_MAX);
		return UIE_E_FORMAT;
	}
	r = strcmp(arg, "-") ? uie_file_read_alloc(arg, UIE_NONCE_MAX, &raw, &n)
			     : uie_fd_read_alloc(0, UIE_NONCE_MAX, &raw, &n);
	if (r == UIE_OK && n > 0) {
		memcpy(o->bytes, raw, n);
		o->len = n;
	} else if (r == UIE_OK || r == UIE_E_LIMIT) {
		fprintf(stderr, "%s: the nonce file must hold 1 to %d bytes\n", cmd, UIE_NONCE_MAX);
		r = UIE_E_FORMAT;
	} else {
		fprintf(stderr, "%s: cannot read nonce file %s: %s\n", cmd, arg, uie_file_err_str(r));
		r = UIE_E_FORMAT;
	}
	free(raw);
	return r;
}

int evio_nonce_hex(void *nonce, const char *arg)
{
	return nonce_option(nonce, false, arg) == UIE_OK ? UIE_OPTS_GO : UIE_OPTS_EXIT_USAGE;
}

int evio_nonce_file(void *nonce, const char *arg)
{
	return nonce_option(nonce, true, arg) == UIE_OK ? UIE_OPTS_GO : UIE_OPTS_EXIT_USAGE;
}

int evio_pubkey_der_alloc(const char *path, uint8_t **der, size_t *len)
{
	uint8_t *raw = NULL;
	size_t rawlen = 0;
	EVP_PKEY *pk;
	unsigned char *p = NULL;
	int n, r;

	*der = NULL;
	*len = 0;
	if ((r = evio_read_alloc(path, &raw, &rawlen)) != UIE_OK)
		return r;
	r = uie_pubkey_parse_alloc(raw, rawlen, &pk);
	free(raw);
	if (r != UIE_OK)
		return r;
	n = i2d_PUBKEY(pk, &p);
	EVP_PKEY_free(pk);
	if (n <= 0)
		return UIE_E_KEY;
	if (!(*der = malloc((size_t)n))) {
		OPENSSL_free(p);
		return UIE_E_NOMEM;
	}
	memcpy(*der, p, (size_t)n);
	*len = (size_t)n;
	OPENSSL_free(p);
	return UIE_OK;
}

int evio_write_pubkey_pem(const char *path, const uint8_t *der, size_t len)
{
	const unsigned char *q = der;
	EVP_PKEY *pk = d2i_PUBKEY(NULL, &q, (long)len);
	BIO *bio = NULL;
	char *pem;
	long n;
	int r = UIE_E_KEY;

	if (pk && (bio = BIO_new(BIO_s_mem())) && PEM_write_bio_PUBKEY(bio, pk) == 1 &&
	    (n = BIO_get_mem_data(bio, &pem)) > 0)
		r = uie_file_write_output(path, pem, (size_t)n, 0644);
	BIO_free(bio);
	EVP_PKEY_free(pk);
	return r;
}
