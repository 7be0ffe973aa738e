/* SPDX-License-Identifier: Apache-2.0 */
/* The SVSM services manifest and its binding to a report (snp_manifest.h). */
#include <string.h>

#include <openssl/crypto.h>
#include <openssl/evp.h>

#include "hex.h"
#include "snp_manifest.h"
#include "tpm_public.h"

#define ENTRY_LEN 24 /* a GUID and two u32: the header and every entry */
#define EK_ATTRS (TPMA_OBJECT_RESTRICTED | TPMA_OBJECT_DECRYPT | TPMA_OBJECT_SIGN_ENCRYPT)

int uie_guid_parse(const char *text, uint8_t out[UIE_GUID_LEN])
{
	/* Where each field's digits start, and how many bytes it has; the first three are little-endian. */
	static const struct {
		unsigned at, bytes;
		bool le;
	} f[] = { { 0, 4, true }, { 9, 2, true }, { 14, 2, true }, { 19, 2, false }, { 24, 6, false } };
	uint8_t *o = out;

	if (!text || strlen(text) != 36 || text[8] != '-' || text[13] != '-' || text[18] != '-' ||
	    text[23] != '-')
		return UIE_E_FORMAT;
	for (size_t i = 0; i < sizeof(f) / sizeof(f[0]); i++) {
		uint8_t b[6];

		if (uie_hex_decode(text + f[i].at, 2 * (size_t)f[i].bytes, b, f[i].bytes) != UIE_OK)
			return UIE_E_FORMAT;
		for (unsigned j = 0; j < f[i].bytes; j++)
			*o++ = f[i].le ? b[f[i].bytes - 1 - j] : b[j];
	}
	return UIE_OK;
}

static int header(struct uie_rbuf *b, size_t n, uint32_t *count, struct uie_snp_why *why)
{
	uint8_t want[UIE_GUID_LEN], guid[UIE_GUID_LEN];
	uint32_t total;

	uie_guid_parse(UIE_SNP_GUID_SERVICES, want);
	uie_rbuf_bytes(b, guid, sizeof(guid));
	uie_rbuf_u32(b, &total);
	uie_rbuf_u32(b, count);
	if (uie_rbuf_err(b) != UIE_OK)
		return uie_snp_fail(why, UIE_E_TRUNCATED, "manifest: %zu bytes, shorter than its header", n);
	if (memcmp(guid, want, sizeof(guid)) != 0)
		return uie_snp_fail(why, UIE_E_FORMAT,
				    "manifest: header GUID is not the services manifest's");
	if (total != n)
		return uie_snp_fail(why, UIE_E_RANGE, "manifest: total length %u, but %zu bytes", total, n);
	if (*count > UIE_SNP_MANIFEST_MAX_ENTRIES)
		return uie_snp_fail(why, UIE_E_LIMIT, "manifest: %u entries (at most %d)", *count,
				    UIE_SNP_MANIFEST_MAX_ENTRIES);
	if ((size_t)(1 + *count) * ENTRY_LEN > n)
		return uie_snp_fail(why, UIE_E_TRUNCATED, "manifest: %u entries do not fit in %zu bytes",
				    *count, n);
	return UIE_OK;
}

int uie_snp_manifest_parse(const uint8_t *p, size_t n, struct uie_snp_manifest *out, struct uie_snp_why *why)
{
	struct uie_rbuf b;
	uint32_t count = 0, off, size;
	size_t next;
	int r = uie_out_begin(out, sizeof(*out), p != NULL);

	if (r != UIE_OK)
		return r;
	uie_rbuf_init(&b, p, n);
	if ((r = header(&b, n, &count, why)) != UIE_OK)
		return uie_out_end(out, sizeof(*out), r);
	next = (size_t)(1 + count) * ENTRY_LEN;
	for (uint32_t i = 0; r == UIE_OK && i < count; i++) {
		struct uie_snp_service *s = &out->s[i];

		uie_rbuf_bytes(&b, s->guid, sizeof(s->guid));
		uie_rbuf_u32(&b, &off);
		uie_rbuf_u32(&b, &size);
		if (off != next || size > n - next)
			r = uie_snp_fail(
				why, UIE_E_RANGE,
				"manifest: entry %u: data at %u, %u bytes (want at %zu, within %zu bytes)", i,
				off, size, next, n);
		for (uint32_t j = 0; r == UIE_OK && j < i; j++)
			if (!memcmp(out->s[j].guid, s->guid, sizeof(s->guid)))
				r = uie_snp_fail(why, UIE_E_ORDER,
						 "manifest: entry %u repeats entry %u's GUID", i, j);
		s->data = p + off;
		s->size = size;
		next += size;
		out->n = i + 1;
	}
	if (r == UIE_OK && next != n)
		r = uie_snp_fail(why, UIE_E_RANGE, "manifest: %zu bytes after the last service's data",
				 n - next);
	return uie_out_end(out, sizeof(*out), r);
}

void uie_snp_manifest_put(struct uie_wbuf *w, const struct uie_snp_manifest *m)
{
	uint8_t guid[UIE_GUID_LEN];
	uint64_t total = (uint64_t)(1 + m->n) * ENTRY_LEN, off = total;

	for (uint32_t i = 0; i < m->n; i++)
		total += m->s[i].size;
	if (total > UINT32_MAX || m->n > UIE_SNP_MANIFEST_MAX_ENTRIES) {
		w->err = UIE_E_OVERFLOW;
		return;
	}
	uie_guid_parse(UIE_SNP_GUID_SERVICES, guid);
	uie_wbuf_bytes(w, guid, sizeof(guid));
	uie_wbuf_u32(w, (uint32_t)total);
	uie_wbuf_u32(w, m->n);
	for (uint32_t i = 0; i < m->n; i++) {
		uie_wbuf_bytes(w, m->s[i].guid, sizeof(m->s[i].guid));
		uie_wbuf_u32(w, (uint32_t)off);
		uie_wbuf_u32(w, m->s[i].size);
		off += m->s[i].size;
	}
	for (uint32_t i = 0; i < m->n; i++)
		uie_wbuf_bytes(w, m->s[i].data, m->s[i].size);
}

int uie_snp_manifest_find(const struct uie_snp_manifest *m, const uint8_t guid[UIE_GUID_LEN],
			  const uint8_t **data, size_t *size)
{
	for (uint32_t i = 0; i < m->n; i++)
		if (!memcmp(m->s[i].guid, guid, UIE_GUID_LEN)) {
			*data = m->s[i].data;
			*size = m->s[i].size;
			return UIE_OK;
		}
	return UIE_E_NOTFOUND;
}

int uie_snp_binding(const uint8_t nonce[UIE_SNP_NONCE_LEN], const uint8_t *manifest, size_t n,
		    uint8_t out[UIE_SNP_REPORT_DATA_LEN])
{
	EVP_MD_CTX *md = EVP_MD_CTX_new();
	unsigned len = 0;
	bool ok = md && EVP_DigestInit_ex(md, EVP_sha512(), NULL) == 1 &&
		  EVP_DigestUpdate(md, nonce, UIE_SNP_NONCE_LEN) == 1 &&
		  EVP_DigestUpdate(md, manifest, n) == 1 && EVP_DigestFinal_ex(md, out, &len) == 1 &&
		  len == UIE_SNP_REPORT_DATA_LEN;

	EVP_MD_CTX_free(md);
	return ok ? UIE_OK : UIE_E_CRYPTO;
}

int uie_snp_vtpm_ek(const struct uie_snp_report *r, const uint8_t nonce[UIE_SNP_NONCE_LEN],
		    const uint8_t *manifest, size_t n, bool single, const uint8_t **ek, size_t *ek_len,
		    struct uie_snp_why *why)
{
	uint8_t want[UIE_SNP_REPORT_DATA_LEN], guid[UIE_GUID_LEN];
	struct uie_snp_manifest m;
	TPMT_PUBLIC pub;
	int rc;

	*ek = NULL;
	*ek_len = 0;
	if (n > UIE_SNP_MANIFEST_MAX)
		return uie_snp_fail(why, UIE_E_LIMIT, "manifest: %zu bytes (at most %u)", n,
				    UIE_SNP_MANIFEST_MAX);
	if ((rc = uie_snp_binding(nonce, manifest, n, want)) != UIE_OK)
		return uie_snp_fail(why, rc, "manifest: OpenSSL failed on SHA-512");
	if (CRYPTO_memcmp(want, r->report_data, sizeof(want)) != 0)
		return uie_snp_fail(why, UIE_E_NONCE,
				    "report: REPORT_DATA is not SHA-512(nonce || manifest)");
	if (single) {
		*ek = manifest;
		*ek_len = n;
	} else {
		uie_guid_parse(UIE_SNP_GUID_VTPM, guid);
		if ((rc = uie_snp_manifest_parse(manifest, n, &m, why)) != UIE_OK)
			return rc;
		if (uie_snp_manifest_find(&m, guid, ek, ek_len) != UIE_OK)
			return uie_snp_fail(why, UIE_E_NOTFOUND, "manifest: no vTPM service (%s)",
					    UIE_SNP_GUID_VTPM);
	}
	if (uie_tpm_tpmt_parse(*ek, *ek_len, &pub) != UIE_OK)
		rc = uie_snp_fail(why, UIE_E_FORMAT, "manifest: the vTPM's data is not one TPMT_PUBLIC");
	/* An endorsement key is a restricted decryption key: what MakeCredential encrypts to. */
	else if ((pub.objectAttributes & EK_ATTRS) != (TPMA_OBJECT_RESTRICTED | TPMA_OBJECT_DECRYPT))
		rc = uie_snp_fail(why, UIE_E_KEY,
				  "manifest: the vTPM's key is not a restricted decryption key");
	if (rc != UIE_OK) {
		*ek = NULL;
		*ek_len = 0;
	}
	return rc;
}
