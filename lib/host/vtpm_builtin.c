/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The built-in vTPM: PCR 16 of a SHA-256 bank in memory and an ECDSA P-256
 * attestation key in a PEM file, producing quotes byte-for-byte shaped as
 * a TPM 2.0 would (TPMS_ATTEST + TPMT_SIGNATURE).  Clock information
 * persists next to the key in KEYFILE.clock: every open is a TPM Reset
 * (PCR 16 starts at zero), so resetCount grows by one per open (stored
 * durably, with fsync) and the clock continues from the last stored value.
 * Quotes update the clock through a descriptor kept open, with lseek and
 * write only, which the monitor's seccomp sandbox allows; that update is
 * not synced, and need not be: after a crash resetCount grows, and
 * verifiers compare clocks only within one resetCount.
 * The endorsement key (RSA 2048, the public area of the TCG EK profile's
 * template L-1) is in KEYFILE.ek, created 0600 at the first open, and
 * ActivateCredential is credential.c's software TPM side with it.
 */
#include "vtpm_impl.h"

#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <openssl/core_names.h>
#include <openssl/ec.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rsa.h>
#include <openssl/sha.h>
#include <openssl/x509.h>

#include "credential.h"
#include "tpm_marshal.h"
#include "tpm_public.h"
#include "uie/buf.h"
#include "uie/err.h"
#include "uie/sys.h"

#define CLOCK_MAGIC "UIECLK01"
#define CLOCK_FILE_LEN 24
#define BUILTIN_FIRMWARE 0x0000000100000000ull /* "1.0" */

struct builtin {
	struct uie_vtpm base;
	EVP_PKEY *ak;
	EVP_PKEY *ek; /* RSA 2048, in KEYFILE.ek */
	uint8_t name[34];
	uint8_t pcr16[UIE_PCR_LEN];
	char *clock_path;
	int clock_fd;        /* KEYFILE.clock, open for the per-quote update */
	uint64_t clock_base; /* ms at open */
	uint64_t open_ns;    /* CLOCK_MONOTONIC at open */
	uint32_t reset_count, restart_count;
};

/* The AK: ECDSA P-256; the EK: RSA 2048 with exponent 65537 (template L-1). */
static bool key_fits(EVP_PKEY *pk, bool rsa)
{
	BIGNUM *e = NULL;
	bool ok;

	if (!rsa)
		return EVP_PKEY_get_base_id(pk) == EVP_PKEY_EC && EVP_PKEY_get_bits(pk) == 256;
	ok = EVP_PKEY_get_base_id(pk) == EVP_PKEY_RSA && EVP_PKEY_get_bits(pk) == 2048 &&
	     EVP_PKEY_get_bn_param(pk, OSSL_PKEY_PARAM_RSA_E, &e) == 1 && BN_is_word(e, 65537);
	BN_free(e);
	return ok;
}

static int load_or_create_key(const char *path, bool rsa, EVP_PKEY **out)
{
	FILE *f;
	int fd;

	*out = NULL;
	if ((f = fopen(path, "rb"))) {
		*out = PEM_read_PrivateKey(f, NULL, NULL, NULL);
		fclose(f);
		if (!*out || !key_fits(*out, rsa)) {
			EVP_PKEY_free(*out);
			*out = NULL;
			return UIE_E_KEY;
		}
		return UIE_OK;
	}
	if (errno != ENOENT)
		return UIE_E_IO;
	if (!(*out = rsa ? EVP_RSA_gen(2048) : EVP_EC_gen("P-256")))
		return UIE_E_CRYPTO;
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd < 0 || !(f = fdopen(fd, "wb"))) {
		if (fd >= 0)
			close(fd);
		goto fail;
	}
	if (PEM_write_PrivateKey(f, *out, NULL, NULL, 0, NULL, NULL) != 1) {
		fclose(f);
		unlink(path);
		goto fail;
	}
	if (fclose(f) != 0) {
		unlink(path);
		goto fail;
	}
	return UIE_OK;
fail:
	EVP_PKEY_free(*out);
	*out = NULL;
	return UIE_E_IO;
}

static int key_point(EVP_PKEY *pk, uint8_t x[32], uint8_t y[32])
{
	uint8_t pt[65];
	size_t n = 0;

	if (EVP_PKEY_get_octet_string_param(pk, OSSL_PKEY_PARAM_PUB_KEY, pt, sizeof(pt), &n) != 1 ||
	    n != sizeof(pt) || pt[0] != 0x04)
		return UIE_E_KEY;
	memcpy(x, pt + 1, 32);
	memcpy(y, pt + 33, 32);
	return UIE_OK;
}

/* The EK's public area: template L-1 with the key's modulus. */
static int ek_public(EVP_PKEY *pk, TPMT_PUBLIC *pub)
{
	uint8_t n[UIE_TPM_EK_RSA_BYTES];
	BIGNUM *bn = NULL;
	int ok;

	ok = EVP_PKEY_get_bn_param(pk, OSSL_PKEY_PARAM_RSA_N, &bn) == 1 &&
	     BN_bn2binpad(bn, n, sizeof(n)) == sizeof(n);
	BN_free(bn);
	if (!ok)
		return UIE_E_KEY;
	uie_tpm_ek_template(pub, n);
	return UIE_OK;
}

/* Reads KEYFILE.clock; a missing file is a TPM that never ran. */
static int clock_load(const char *path, uint64_t *clock, uint32_t *resets)
{
	uint8_t buf[CLOCK_FILE_LEN + 1];
	struct uie_rbuf b;
	ssize_t n;
	int fd, r;

	*clock = 0;
	*resets = 0;
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return errno == ENOENT ? UIE_OK : UIE_E_IO;
	n = read(fd, buf, sizeof(buf));
	close(fd);
	if (n != CLOCK_FILE_LEN)
		return UIE_E_FORMAT;
	uie_rbuf_init(&b, buf, (size_t)n);
	if (memcmp(buf, CLOCK_MAGIC, 8) != 0)
		return UIE_E_FORMAT;
	if ((r = uie_rbuf_skip(&b, 8)) != UIE_OK || (r = uie_rbuf_u64(&b, clock)) != UIE_OK ||
	    (r = uie_rbuf_u32(&b, resets)) != UIE_OK || (r = uie_rbuf_zero(&b, 4)) != UIE_OK)
		return r;
	return UIE_OK;
}

static size_t clock_encode(uint8_t buf[CLOCK_FILE_LEN], uint64_t clock, uint32_t resets)
{
	struct uie_wbuf w;

	uie_wbuf_init(&w, buf, CLOCK_FILE_LEN);
	uie_wbuf_bytes(&w, CLOCK_MAGIC, 8);
	uie_wbuf_u64(&w, clock);
	uie_wbuf_u32(&w, resets);
	uie_wbuf_zero(&w, 4);
	return w.err == UIE_OK ? w.len : 0;
}

/* Writes the clock file atomically and durably (temporary file, fsync, rename). */
static int clock_store(const char *path, uint64_t clock, uint32_t resets)
{
	uint8_t buf[CLOCK_FILE_LEN];
	size_t n = clock_encode(buf, clock, resets);
	char tmp[4096];
	int fd, ok;

	if (n != CLOCK_FILE_LEN || snprintf(tmp, sizeof(tmp), "%s.tmp", path) >= (int)sizeof(tmp))
		return UIE_E_LIMIT;
	if ((fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600)) < 0)
		return UIE_E_IO;
	ok = write(fd, buf, n) == (ssize_t)n && fsync(fd) == 0;
	ok = close(fd) == 0 && ok;
	if (!ok || rename(tmp, path) != 0) {
		unlink(tmp);
		return UIE_E_IO;
	}
	return UIE_OK;
}

/* The per-quote update: one 24-byte write at offset 0 of the open file. */
static int clock_update(int fd, uint64_t clock, uint32_t resets)
{
	uint8_t buf[CLOCK_FILE_LEN];
	size_t n = clock_encode(buf, clock, resets);

	if (n != CLOCK_FILE_LEN || lseek(fd, 0, SEEK_SET) != 0 || write(fd, buf, n) != (ssize_t)n)
		return UIE_E_IO;
	return UIE_OK;
}

static uint64_t clock_now(const struct builtin *b)
{
	return b->clock_base + (uie_now_ns() - b->open_ns) / 1000000u;
}

static int bi_extend(struct uie_vtpm *t, const uint8_t lrh[UIE_PCR_LEN])
{
	struct builtin *b = (struct builtin *)t;
	uint8_t cat[2 * UIE_PCR_LEN];

	memcpy(cat, b->pcr16, UIE_PCR_LEN);
	memcpy(cat + UIE_PCR_LEN, lrh, UIE_PCR_LEN);
	return SHA256(cat, sizeof(cat), b->pcr16) ? UIE_OK : UIE_E_CRYPTO;
}

static int bi_read(struct uie_vtpm *t, uint8_t pcr[UIE_PCR_LEN])
{
	memcpy(pcr, ((struct builtin *)t)->pcr16, UIE_PCR_LEN);
	return UIE_OK;
}

/* ECDSA over SHA-256(msg), as r and s padded to the key size. */
static int sign(EVP_PKEY *pk, const uint8_t *msg, size_t len, struct uie_tpm_ecdsa_sig *out)
{
	uint8_t dgst[32], der[80];
	const unsigned char *p = der;
	size_t derlen = sizeof(der);
	EVP_PKEY_CTX *ctx;
	ECDSA_SIG *es = NULL;
	int ok;

	if (!SHA256(msg, len, dgst) || !(ctx = EVP_PKEY_CTX_new(pk, NULL)))
		return UIE_E_CRYPTO;
	ok = EVP_PKEY_sign_init(ctx) == 1 && EVP_PKEY_sign(ctx, der, &derlen, dgst, sizeof(dgst)) == 1;
	EVP_PKEY_CTX_free(ctx);
	if (!ok || !(es = d2i_ECDSA_SIG(NULL, &p, (long)derlen)))
		return UIE_E_CRYPTO;
	out->sig_alg = UIE_TPM_ALG_ECDSA;
	out->hash_alg = UIE_TPM_ALG_SHA256;
	out->r_len = out->s_len = 32;
	ok = BN_bn2binpad(ECDSA_SIG_get0_r(es), out->r, 32) == 32 &&
	     BN_bn2binpad(ECDSA_SIG_get0_s(es), out->s, 32) == 32;
	ECDSA_SIG_free(es);
	return ok ? UIE_OK : UIE_E_CRYPTO;
}

static int dup_out(const struct uie_wbuf *w, uint8_t **out, size_t *len)
{
	if (w->err != UIE_OK)
		return w->err;
	if (!(*out = malloc(w->len)))
		return UIE_E_NOMEM;
	memcpy(*out, w->p, w->len);
	*len = w->len;
	return UIE_OK;
}

static int bi_quote(struct uie_vtpm *t, const uint8_t *nonce, size_t nonce_len, uint8_t **attest,
		    size_t *attest_len, uint8_t **sig, size_t *sig_len)
{
	struct builtin *b = (struct builtin *)t;
	struct uie_tpm_quote q;
	struct uie_tpm_ecdsa_sig s;
	uint8_t abuf[UIE_TPM_ATTEST_MAX], sbuf[UIE_TPM_SIG_MAX];
	struct uie_wbuf w;
	int r;

	memset(&q, 0, sizeof(q));
	memset(&s, 0, sizeof(s));
	q.magic = UIE_TPM_GENERATED_VALUE;
	q.type = UIE_TPM_ST_ATTEST_QUOTE;
	q.signer_len = sizeof(b->name);
	memcpy(q.signer, b->name, sizeof(b->name));
	q.extra_len = (uint16_t)nonce_len;
	memcpy(q.extra, nonce, nonce_len);
	q.clock = clock_now(b);
	q.reset_count = b->reset_count;
	q.restart_count = b->restart_count;
	/* safe: the clock is known not to have been reported lower before. */
	q.safe = clock_update(b->clock_fd, q.clock, b->reset_count) == UIE_OK;
	q.firmware_version = BUILTIN_FIRMWARE;
	q.nsel = 1;
	q.sel[0].hash = UIE_TPM_ALG_SHA256;
	q.sel[0].size_of_select = 3;
	q.sel[0].select[UIE_LOG_PCR_INDEX / 8] = 1u << (UIE_LOG_PCR_INDEX % 8);
	q.pcr_digest_len = 32;
	/* pcrDigest: hash of the concatenated selected PCR values (here one). */
	if (!SHA256(b->pcr16, UIE_PCR_LEN, q.pcr_digest))
		return UIE_E_CRYPTO;
	uie_wbuf_init(&w, abuf, sizeof(abuf));
	uie_tpm_quote_put(&w, &q);
	if (w.err != UIE_OK)
		return w.err;
	if ((r = sign(b->ak, abuf, w.len, &s)) != UIE_OK || (r = dup_out(&w, attest, attest_len)) != UIE_OK)
		return r;
	uie_wbuf_init(&w, sbuf, sizeof(sbuf));
	uie_tpm_sig_put(&w, &s);
	if ((r = dup_out(&w, sig, sig_len)) != UIE_OK) {
		free(*attest);
		*attest = NULL;
		*attest_len = 0;
	}
	return r;
}

static int bi_activate(struct uie_vtpm *t, const uint8_t *blob, size_t blob_len, const uint8_t *secret,
		       size_t secret_len, uint8_t cred[UIE_CRED_MAX], size_t *cred_len)
{
	struct builtin *b = (struct builtin *)t;

	return uie_credential_activate(b->ek, &b->base.ek_pub, b->name, sizeof(b->name), blob, blob_len,
				       secret, secret_len, cred, cred_len);
}

static void bi_free(struct uie_vtpm *t)
{
	struct builtin *b = (struct builtin *)t;

	EVP_PKEY_free(b->ak);
	EVP_PKEY_free(b->ek);
	if (b->clock_fd >= 0)
		close(b->clock_fd);
	free(b->clock_path);
	free(b);
}

static const struct uie_vtpm_ops builtin_ops = {
	.extend = bi_extend,
	.read_pcr16 = bi_read,
	.quote_alloc = bi_quote,
	.activate = bi_activate,
	.free = bi_free,
};

/* keyfile followed by suffix, malloc'ed. */
static char *suffixed(const char *keyfile, const char *suffix)
{
	size_t n = strlen(keyfile), m = strlen(suffix);
	char *p = malloc(n + m + 1);

	if (p)
		snprintf(p, n + m + 1, "%s%s", keyfile, suffix);
	return p;
}

int uie_vtpm_builtin_open(const char *keyfile, struct uie_vtpm **out)
{
	struct builtin *b;
	char *ek_path = NULL;
	int r;

	*out = NULL;
	if (!(b = calloc(1, sizeof(*b))) || !(b->clock_path = suffixed(keyfile, ".clock")) ||
	    !(ek_path = suffixed(keyfile, ".ek"))) {
		if (b)
			free(b->clock_path);
		free(b);
		return UIE_E_NOMEM;
	}
	b->base.ops = &builtin_ops;
	b->clock_fd = -1;
	if ((r = load_or_create_key(keyfile, false, &b->ak)) == UIE_OK &&
	    (r = key_point(b->ak, b->base.x, b->base.y)) == UIE_OK &&
	    (r = uie_tpm_ecc_name(b->base.x, b->base.y, b->name)) == UIE_OK)
		r = load_or_create_key(ek_path, true, &b->ek);
	free(ek_path);
	if (r != UIE_OK || (r = ek_public(b->ek, &b->base.ek_pub)) != UIE_OK ||
	    (r = clock_load(b->clock_path, &b->clock_base, &b->reset_count)) != UIE_OK)
		goto fail;
	uie_tpm_ak_template(&b->base.ak_pub, b->base.x, b->base.y);
	if (b->reset_count == UINT32_MAX) {
		r = UIE_E_LIMIT;
		goto fail;
	}
	b->reset_count++;
	b->restart_count = 0;
	b->open_ns = uie_now_ns();
	if ((r = clock_store(b->clock_path, b->clock_base, b->reset_count)) != UIE_OK)
		goto fail;
	if ((b->clock_fd = open(b->clock_path, O_WRONLY | O_CLOEXEC)) < 0) {
		r = UIE_E_IO;
		goto fail;
	}
	*out = &b->base;
	return UIE_OK;
fail:
	bi_free(&b->base);
	return r;
}
