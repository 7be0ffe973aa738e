/* SPDX-License-Identifier: Apache-2.0 */
#include "host_platform.h"

#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <openssl/evp.h>

#include "fileio.h"
#include "pubkey.h"
#include "uie/err.h"
#include "uie/sys.h"

/*
 * Digests are fetched once at init: an EVP_sha256() per hash makes OpenSSL 3
 * look the implementation up again on every EVP_DigestInit_ex (~0.4 us).
 */
static const EVP_MD *md_for(const struct uie_host_platform *hp, uint16_t alg)
{
	switch (alg) {
	case UIE_HASH_SHA256: return hp->md_sha256;
	case UIE_HASH_SHA384: return hp->md_sha384;
	default: return NULL;
	}
}

static int hp_hash_begin(void *pctx, uint16_t alg, void **h)
{
	struct uie_host_platform *hp = pctx;
	const EVP_MD *md = md_for(hp, alg);

	*h = NULL;
	if (!md)
		return UIE_E_ALG;
	for (unsigned i = 0; i < UIE_HOST_HASH_SLOTS; i++) {
		if (hp->slot_busy[i])
			continue;
		if (EVP_DigestInit_ex(hp->hash_slot[i], md, NULL) != 1)
			return UIE_E_CRYPTO;
		hp->slot_busy[i] = 1;
		*h = hp->hash_slot[i];
		return UIE_OK;
	}
	return UIE_E_LIMIT;
}

static int hp_hash_update(void *pctx, void *h, const void *p, size_t n)
{
	(void)pctx;
	return EVP_DigestUpdate(h, p, n) == 1 ? UIE_OK : UIE_E_CRYPTO;
}

static int hp_hash_end(void *pctx, void *h, uint8_t *out)
{
	struct uie_host_platform *hp = pctx;
	unsigned char tmp[EVP_MAX_MD_SIZE];
	unsigned int n = 0;
	int r = UIE_OK;

	if (EVP_DigestFinal_ex(h, tmp, &n) != 1)
		r = UIE_E_CRYPTO;
	else if (out)
		memcpy(out, tmp, n);
	for (unsigned i = 0; i < UIE_HOST_HASH_SLOTS; i++)
		if (hp->hash_slot[i] == h)
			hp->slot_busy[i] = 0;
	return r;
}

static uint64_t hp_now_ns(void *ctx)
{
	(void)ctx;
	return uie_now_ns();
}

static int hp_verify(void *pctx, const uint8_t key_id[32], const uint8_t *digest, size_t dlen,
		     const uint8_t *sig, size_t siglen)
{
	struct uie_host_platform *hp = pctx;
	EVP_PKEY_CTX *vctx;
	int ok;

	for (unsigned i = 0; i < hp->nkeys; i++) {
		if (memcmp(hp->key_ids[i], key_id, 32) != 0)
			continue;
		vctx = EVP_PKEY_CTX_new(hp->keys[i], NULL);
		if (!vctx)
			return UIE_E_CRYPTO;
		ok = EVP_PKEY_verify_init(vctx) == 1 && EVP_PKEY_verify(vctx, sig, siglen, digest, dlen) == 1;
		EVP_PKEY_CTX_free(vctx);
		return ok ? UIE_OK : UIE_E_SIGNATURE;
	}
	return UIE_E_KEY;
}

int uie_host_platform_init(struct uie_host_platform *hp)
{
	memset(hp, 0, sizeof(*hp));
	hp->md_sha256 = EVP_MD_fetch(NULL, "SHA256", NULL);
	hp->md_sha384 = EVP_MD_fetch(NULL, "SHA384", NULL);
	if (!hp->md_sha256 || !hp->md_sha384) {
		uie_host_platform_fini(hp);
		return UIE_E_CRYPTO;
	}
	for (unsigned i = 0; i < UIE_HOST_HASH_SLOTS; i++) {
		hp->hash_slot[i] = EVP_MD_CTX_new();
		if (!hp->hash_slot[i]) {
			uie_host_platform_fini(hp);
			return UIE_E_NOMEM;
		}
	}
	hp->pl.ctx = hp;
	hp->pl.hash.begin = hp_hash_begin;
	hp->pl.hash.update = hp_hash_update;
	hp->pl.hash.end = hp_hash_end;
	hp->pl.now_ns = hp_now_ns;
	hp->pl.verify = hp_verify;
	return UIE_OK;
}

void uie_host_platform_fini(struct uie_host_platform *hp)
{
	for (unsigned i = 0; i < UIE_HOST_HASH_SLOTS; i++)
		EVP_MD_CTX_free(hp->hash_slot[i]);
	for (unsigned i = 0; i < hp->nkeys; i++)
		EVP_PKEY_free(hp->keys[i]);
	EVP_MD_free(hp->md_sha256);
	EVP_MD_free(hp->md_sha384);
	memset(hp, 0, sizeof(*hp));
}

int uie_host_platform_add_key_file(struct uie_host_platform *hp, const char *path, uint8_t key_id[32])
{
	EVP_PKEY *pk;
	int r;

	if (hp->nkeys >= UIE_HOST_MAX_KEYS)
		return UIE_E_LIMIT;
	if ((r = uie_pubkey_read_alloc(path, &pk)) != UIE_OK)
		return r;
	if ((r = uie_pubkey_id(pk, hp->key_ids[hp->nkeys])) != UIE_OK) {
		EVP_PKEY_free(pk);
		return r;
	}
	if (key_id)
		memcpy(key_id, hp->key_ids[hp->nkeys], 32);
	hp->keys[hp->nkeys++] = pk;
	return UIE_OK;
}

static int ho_read(void *ctx, uint64_t off, void *buf, size_t len)
{
	const struct uie_host_object *ho = ctx;

	return uie_fd_pread_all(ho->fd, buf, len, off);
}

int uie_host_object_open(struct uie_host_object *ho, int fd, bool map, struct uie_file_id *id)
{
	struct stat st;

	memset(ho, 0, sizeof(*ho));
	ho->fd = fd;
	if (fstat(fd, &st) != 0)
		return UIE_E_IO;
	if (!S_ISREG(st.st_mode))
		return UIE_E_IO;
	if (id)
		*id = uie_file_id_of(&st);
	ho->obj.ctx = ho;
	ho->obj.size = (uint64_t)st.st_size;
	ho->obj.read = ho_read;
	if (map && st.st_size > 0) {
		void *m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);

		if (m != MAP_FAILED) {
			ho->mapping = m;
			ho->map_len = (size_t)st.st_size;
			ho->obj.map = m;
		}
	}
	return UIE_OK;
}

void uie_host_object_close(struct uie_host_object *ho)
{
	if (ho->mapping)
		munmap(ho->mapping, ho->map_len);
	memset(ho, 0, sizeof(*ho));
	ho->fd = -1;
}
