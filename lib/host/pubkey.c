/* SPDX-License-Identifier: Apache-2.0 */
#include "pubkey.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#include <openssl/bio.h>
#include <openssl/pem.h>
#include <openssl/x509.h>

#include "fileio.h"
#include "uie/err.h"

int uie_pubkey_parse_alloc(const uint8_t *p, size_t n, EVP_PKEY **pk)
{
	BIO *bio;

	*pk = NULL;
	if (n > INT32_MAX)
		return UIE_E_KEY;
	if ((bio = BIO_new_mem_buf(p, (int)n))) {
		*pk = PEM_read_bio_PUBKEY(bio, NULL, NULL, NULL);
		BIO_free(bio);
	}
	if (!*pk) {
		const unsigned char *q = p;

		*pk = d2i_PUBKEY(NULL, &q, (long)n);
	}
	return *pk ? UIE_OK : UIE_E_KEY;
}

int uie_pubkey_read_alloc(const char *path, EVP_PKEY **pk)
{
	uint8_t *raw = NULL;
	size_t len = 0;
	int fd, r;

	*pk = NULL;
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return uie_err_from_errno(errno);
	r = uie_fd_read_alloc(fd, UIE_PUBKEY_FILE_MAX, &raw, &len);
	close(fd);
	if (r == UIE_OK)
		r = uie_pubkey_parse_alloc(raw, len, pk);
	free(raw);
	return r;
}

int uie_pubkey_id(EVP_PKEY *pk, uint8_t id[32])
{
	unsigned char *der = NULL;
	unsigned int n = 0;
	int len = i2d_PUBKEY(pk, &der), r = UIE_OK;

	if (len <= 0)
		return UIE_E_CRYPTO;
	if (EVP_Digest(der, (size_t)len, id, &n, EVP_sha256(), NULL) != 1 || n != 32)
		r = UIE_E_CRYPTO;
	OPENSSL_free(der);
	return r;
}
