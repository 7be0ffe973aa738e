/* SPDX-License-Identifier: Apache-2.0 */
#include "keys.h"

#include <stdio.h>
#include <errno.h>
#include <string.h>

#include <openssl/core_names.h>
#include <openssl/pem.h>

#include "uie/err.h"

#include "fileio.h"

int keys_load_private(const char *path, EVP_PKEY **pk)
{
	char group[64] = "";
	size_t glen = 0;
	FILE *f;

	*pk = NULL;
	if (!(f = fopen(path, "rb")))
		return uie_err_from_errno(errno);
	*pk = PEM_read_PrivateKey(f, NULL, NULL, NULL);
	fclose(f);
	if (!*pk)
		return UIE_E_KEY;
	if (!EVP_PKEY_is_a(*pk, "EC") ||
	    EVP_PKEY_get_utf8_string_param(*pk, OSSL_PKEY_PARAM_GROUP_NAME, group, sizeof(group), &glen) !=
		    1 ||
	    strcmp(group, "prime256v1") != 0) {
		EVP_PKEY_free(*pk);
		*pk = NULL;
		return UIE_E_ALG;
	}
	return UIE_OK;
}

int keys_sign_digest(EVP_PKEY *pk, const uint8_t digest[32], uint8_t *sig, size_t cap, size_t *siglen)
{
	EVP_PKEY_CTX *ctx = EVP_PKEY_CTX_new(pk, NULL);
	size_t n = cap;
	int ok;

	*siglen = 0;
	if (!ctx)
		return UIE_E_CRYPTO;
	ok = EVP_PKEY_sign_init(ctx) == 1 && EVP_PKEY_sign(ctx, sig, &n, digest, 32) == 1;
	EVP_PKEY_CTX_free(ctx);
	if (!ok)
		return UIE_E_CRYPTO;
	*siglen = n;
	return UIE_OK;
}
