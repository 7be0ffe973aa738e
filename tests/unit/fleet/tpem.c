/* SPDX-License-Identifier: Apache-2.0 */
#include "tpem.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <openssl/evp.h>
#include <openssl/pem.h>

/* What the memory BIO b holds, as a string; frees b. */
static char *text_of(BIO *b)
{
	char *p, *s;
	long n = BIO_get_mem_data(b, &p);

	assert_true(n > 0);
	s = strndup(p, (size_t)n);
	assert_non_null(s);
	BIO_free(b);
	return s;
}

char *tpem_ec_key(void)
{
	EVP_PKEY *pk = EVP_EC_gen("P-256");
	BIO *b = BIO_new(BIO_s_mem());

	assert_non_null(pk);
	assert_non_null(b);
	assert_int_equal(PEM_write_bio_PUBKEY(b, pk), 1);
	EVP_PKEY_free(pk);
	return text_of(b);
}

char *tpem_cert(X509 *c)
{
	BIO *b = BIO_new(BIO_s_mem());

	assert_non_null(b);
	assert_int_equal(PEM_write_bio_X509(b, c), 1);
	return text_of(b);
}
