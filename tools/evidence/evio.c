/* SPDX-License-Identifier: Apache-2.0 */
#include "evio.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <openssl/bio.h>
#include <openssl/pem.h>
#include <openssl/x509.h>

#include "uie/err.h"

int evio_read_alloc(const char *path, uint8_t **buf, size_t *len)
{
	int fd = strcmp(path, "-") ? open(path, O_RDONLY | O_CLOEXEC) : 0;
	size_t cap = 1 << 16, n = 0;
	uint8_t *b = NULL, *nb;
	ssize_t got = 0;

	*buf = NULL;
	*len = 0;
	if (fd < 0)
		return UIE_E_IO;
	for (;;) {
		if (n == cap || !b) {
			if (b)
				cap *= 2;
			if (cap > EVIO_MAX_FILE || !(nb = realloc(b, cap))) {
				free(b);
				if (fd)
					close(fd);
				return cap > EVIO_MAX_FILE ? UIE_E_LIMIT : UIE_E_NOMEM;
			}
			b = nb;
		}
		got = read(fd, b + n, cap - n);
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0)
			break;
		n += (size_t)got;
	}
	if (fd)
		close(fd);
	if (got < 0) {
		free(b);
		return UIE_E_IO;
	}
	*buf = b;
	*len = n;
	return UIE_OK;
}

static int write_all(int fd, const uint8_t *p, size_t n)
{
	while (n) {
		ssize_t w = write(fd, p, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return UIE_E_IO;
		p += w;
		n -= (size_t)w;
	}
	return UIE_OK;
}

int evio_write(const char *path, const void *p, size_t n)
{
	char *tmp;
	int fd, r;

	if (!strcmp(path, "-"))
		return write_all(1, p, n);
	if (asprintf(&tmp, "%s.tmp.XXXXXX", path) < 0)
		return UIE_E_NOMEM;
	if ((fd = mkostemp(tmp, O_CLOEXEC)) < 0) {
		free(tmp);
		return UIE_E_IO;
	}
	r = write_all(fd, p, n);
	if (r == UIE_OK && (fchmod(fd, 0644) != 0 || fsync(fd) != 0))
		r = UIE_E_IO;
	if (close(fd) != 0)
		r = UIE_E_IO;
	if (r == UIE_OK && rename(tmp, path) != 0)
		r = UIE_E_IO;
	if (r != UIE_OK)
		unlink(tmp);
	free(tmp);
	return r;
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

int evio_unhex(const char *s, uint8_t *out, size_t cap, size_t *n)
{
	size_t l = strlen(s);

	*n = 0;
	if (l == 0 || l % 2)
		return UIE_E_FORMAT;
	if (l / 2 > cap)
		return UIE_E_LIMIT;
	for (size_t i = 0; i < l / 2; i++) {
		int hi = hexval(s[2 * i]), lo = hexval(s[2 * i + 1]);

		if (hi < 0 || lo < 0)
			return UIE_E_FORMAT;
		out[i] = (uint8_t)(hi << 4 | lo);
	}
	*n = l / 2;
	return UIE_OK;
}

void evio_hex(char *out, const uint8_t *p, size_t n)
{
	static const char d[] = "0123456789abcdef";

	for (size_t i = 0; i < n; i++) {
		out[2 * i] = d[p[i] >> 4];
		out[2 * i + 1] = d[p[i] & 15];
	}
	out[2 * n] = '\0';
}

int evio_pubkey_der_alloc(const char *path, uint8_t **der, size_t *len)
{
	uint8_t *raw = NULL;
	size_t rawlen = 0;
	EVP_PKEY *pk = NULL;
	unsigned char *p = NULL;
	BIO *bio;
	int n, r;

	*der = NULL;
	*len = 0;
	if ((r = evio_read_alloc(path, &raw, &rawlen)) != UIE_OK)
		return r;
	if ((bio = BIO_new_mem_buf(raw, (int)rawlen))) {
		pk = PEM_read_bio_PUBKEY(bio, NULL, NULL, NULL);
		BIO_free(bio);
	}
	if (!pk) {
		const unsigned char *q = raw;

		pk = d2i_PUBKEY(NULL, &q, (long)rawlen);
	}
	free(raw);
	if (!pk)
		return UIE_E_KEY;
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
		r = evio_write(path, pem, (size_t)n);
	BIO_free(bio);
	EVP_PKEY_free(pk);
	return r;
}

int evio_u64(const char *s, uint64_t *v)
{
	char *end = NULL;
	unsigned long long x;

	*v = 0;
	if (!s || *s < '0' || *s > '9')
		return UIE_E_FORMAT;
	errno = 0;
	x = strtoull(s, &end, 10);
	if (errno || *end)
		return UIE_E_FORMAT;
	*v = x;
	return UIE_OK;
}
