/* SPDX-License-Identifier: Apache-2.0 */
#include "tls.h"

#include <stdio.h>

#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/x509.h>

#include "uie/err.h"

/* The chain is judged after the handshake (vd_tls_client_verified): a bad one is a 403, not a failure. */
static int judge_later(int ok, X509_STORE_CTX *x)
{
	(void)ok;
	(void)x;
	return 1;
}

/* The option what is refused: none (nothing of the PEM kind expected in it), else OpenSSL's reason. */
static int fail(const char *what, const char *none, char why[VD_TLS_WHY_LEN])
{
	unsigned long e = ERR_peek_last_error();
	const char *reason = e ? ERR_reason_error_string(e) : NULL;

	snprintf(why, VD_TLS_WHY_LEN, "%s: %s", what, none ? none : reason ? reason : "refused by OpenSSL");
	ERR_clear_error();
	return UIE_E_FORMAT;
}

/* The certificate and its chain. */
static int use_cert(SSL_CTX *ctx, const char *pem, char why[VD_TLS_WHY_LEN])
{
	BIO *b = BIO_new_mem_buf(pem, -1);
	X509 *x = b ? PEM_read_bio_X509_AUX(b, NULL, NULL, NULL) : NULL;
	bool read = x != NULL;
	int ok = read && SSL_CTX_use_certificate(ctx, x) == 1;
	X509 *more;

	X509_free(x);
	while (ok && (more = PEM_read_bio_X509(b, NULL, NULL, NULL)))
		if (!(ok = SSL_CTX_add0_chain_cert(ctx, more) == 1))
			X509_free(more);
	BIO_free(b);
	if (!ok)
		return fail("--tls-cert", read ? NULL : "no PEM certificate in it", why);
	ERR_clear_error(); /* the end of the chain */
	return UIE_OK;
}

static int use_key(SSL_CTX *ctx, const char *pem, char why[VD_TLS_WHY_LEN])
{
	BIO *b = BIO_new_mem_buf(pem, -1);
	EVP_PKEY *k = b ? PEM_read_bio_PrivateKey(b, NULL, NULL, NULL) : NULL;
	bool read = k != NULL;
	int ok = read && SSL_CTX_use_PrivateKey(ctx, k) == 1 && SSL_CTX_check_private_key(ctx) == 1;

	EVP_PKEY_free(k);
	BIO_free(b);
	return ok ? UIE_OK : fail("--tls-key", read ? NULL : "no PEM private key in it", why);
}

/* Every certificate of pem is trusted for clients, and named to them as acceptable. */
static int use_client_ca(SSL_CTX *ctx, const char *pem, char why[VD_TLS_WHY_LEN])
{
	BIO *b = BIO_new_mem_buf(pem, -1);
	X509_STORE *st = SSL_CTX_get_cert_store(ctx);
	unsigned n = 0;
	X509 *x;
	int ok = b != NULL;

	while (ok && (x = PEM_read_bio_X509(b, NULL, NULL, NULL))) {
		ok = X509_STORE_add_cert(st, x) == 1 && SSL_CTX_add_client_CA(ctx, x) == 1;
		X509_free(x);
		n++;
	}
	BIO_free(b);
	if (!ok || !n)
		return fail("--tls-client-ca", ok ? "no PEM certificate in it" : NULL, why);
	ERR_clear_error();
	SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER, judge_later);
	return UIE_OK;
}

int vd_tls_ctx_alloc(const char *cert, const char *key, const char *client_ca, SSL_CTX **out,
		     char why[VD_TLS_WHY_LEN])
{
	static const unsigned char sid[] = "uie-verifierd";
	SSL_CTX *ctx = SSL_CTX_new(TLS_server_method());
	int r;

	*out = NULL;
	why[0] = '\0';
	if (!ctx)
		return UIE_E_NOMEM;
	SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION);
	SSL_CTX_set_mode(ctx, SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
	/* No resumption: every connection's client certificate is verified afresh; no renegotiation. */
	SSL_CTX_set_session_cache_mode(ctx, SSL_SESS_CACHE_OFF);
	SSL_CTX_set_options(ctx, SSL_OP_NO_TICKET | SSL_OP_NO_RENEGOTIATION);
	SSL_CTX_set_num_tickets(ctx, 0);
	SSL_CTX_set_session_id_context(ctx, sid, sizeof(sid) - 1);
	if ((r = use_cert(ctx, cert, why)) != UIE_OK || (r = use_key(ctx, key, why)) != UIE_OK ||
	    (client_ca && (r = use_client_ca(ctx, client_ca, why)) != UIE_OK)) {
		SSL_CTX_free(ctx);
		return r;
	}
	*out = ctx;
	return UIE_OK;
}

bool vd_tls_client_verified(const SSL *ssl)
{
	return SSL_get0_peer_certificate(ssl) && SSL_get_verify_result(ssl) == X509_V_OK;
}
