/* SPDX-License-Identifier: Apache-2.0 */
/* configfs-tsm's report directory and the GHCB certificate table (snp_tsm.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fileio.h"
#include "snp_tsm.h"

#define ENTRY_LEN 24

static const char *const cert_guid[UIE_SNP_CERT__MAX] = {
	[UIE_SNP_CERT_VCEK] = "63da758d-e664-4564-adc5-f4b93be8accd",
	[UIE_SNP_CERT_ASK] = "4ab7b379-bbac-4fe4-a02f-05aef327c782",
	[UIE_SNP_CERT_ARK] = "c0b406a4-a803-4952-9743-3fb6014cd0ae",
	[UIE_SNP_CERT_VLEK] = "a8074bc2-a25a-483e-aae6-39c045a0b8a1",
};

static const char *const cert_name[UIE_SNP_CERT__MAX] = { "VCEK", "ASK", "ARK", "VLEK" };

/* Which certificate guid is, or UIE_SNP_CERT__MAX. */
static enum uie_snp_cert_kind kind_of(const uint8_t guid[UIE_GUID_LEN])
{
	uint8_t g[UIE_GUID_LEN];

	for (int k = 0; k < UIE_SNP_CERT__MAX; k++)
		if (uie_guid_parse(cert_guid[k], g) == UIE_OK && !memcmp(g, guid, sizeof(g)))
			return (enum uie_snp_cert_kind)k;
	return UIE_SNP_CERT__MAX;
}

int uie_snp_cert_table_parse(const uint8_t *p, size_t n, struct uie_snp_cert_table *out,
			     struct uie_snp_why *why)
{
	static const uint8_t zero[UIE_GUID_LEN];
	uint8_t guid[UIE_GUID_LEN];
	uint32_t off, len;
	struct uie_rbuf b;
	int r = uie_out_begin(out, sizeof(*out), p != NULL);

	if (r != UIE_OK)
		return r;
	uie_rbuf_init(&b, p, n);
	for (unsigned i = 0; r == UIE_OK; i++) {
		enum uie_snp_cert_kind k;

		uie_rbuf_bytes(&b, guid, sizeof(guid));
		uie_rbuf_u32(&b, &off);
		uie_rbuf_u32(&b, &len);
		if (uie_rbuf_err(&b) != UIE_OK) {
			r = uie_snp_fail(why, UIE_E_TRUNCATED,
					 "certificate table: no all-zero entry ends it");
			break;
		}
		if (!memcmp(guid, zero, sizeof(zero)) && !off && !len)
			break;
		if (off > n || len > n - off)
			r = uie_snp_fail(
				why, UIE_E_RANGE,
				"certificate table: entry %u (%u bytes at %u) is outside its %zu bytes", i,
				len, off, n);
		else if ((k = kind_of(guid)) < UIE_SNP_CERT__MAX && out->der[k])
			r = uie_snp_fail(why, UIE_E_ORDER, "certificate table: a second %s", cert_name[k]);
		else if (k < UIE_SNP_CERT__MAX) {
			out->der[k] = p + off;
			out->len[k] = len;
		}
	}
	return uie_out_end(out, sizeof(*out), r);
}

void uie_snp_cert_table_put(struct uie_wbuf *w, const struct uie_snp_cert_table *t)
{
	uint8_t guid[UIE_GUID_LEN];
	size_t at = ENTRY_LEN; /* the end entry */

	for (int k = 0; k < UIE_SNP_CERT__MAX; k++)
		at += t->der[k] ? ENTRY_LEN : 0;
	for (int k = 0; k < UIE_SNP_CERT__MAX; k++) {
		if (!t->der[k])
			continue;
		if (at + t->len[k] > UINT32_MAX) {
			w->err = UIE_E_OVERFLOW;
			return;
		}
		uie_guid_parse(cert_guid[k], guid);
		uie_wbuf_bytes(w, guid, sizeof(guid));
		uie_wbuf_u32(w, (uint32_t)at);
		uie_wbuf_u32(w, (uint32_t)t->len[k]);
		at += t->len[k];
	}
	uie_wbuf_zero(w, ENTRY_LEN);
	for (int k = 0; k < UIE_SNP_CERT__MAX; k++)
		if (t->der[k])
			uie_wbuf_bytes(w, t->der[k], t->len[k]);
}

/* dir/name into *buf; a missing file is *buf NULL when optional. */
static int blob(const char *dir, const char *name, size_t max, bool optional, uint8_t **buf, size_t *len,
		struct uie_snp_why *why)
{
	char path[4096];
	int r;

	*buf = NULL;
	*len = 0;
	if ((size_t)snprintf(path, sizeof(path), "%s/%s", dir, name) >= sizeof(path))
		return uie_snp_fail(why, UIE_E_LIMIT, "%s/%s: path too long", dir, name);
	if ((r = uie_file_read_alloc(path, max, buf, len)) == UIE_OK)
		return UIE_OK;
	if (optional && r == UIE_E_NOTFOUND)
		return UIE_OK;
	return uie_snp_fail(why, r, "%s: %s", path, uie_file_err_str(r));
}

/* service_guid: absent or all zero, the GUID table; the vTPM's, its data alone. */
static int service(const char *dir, bool *single, struct uie_snp_why *why)
{
	uint8_t *text, guid[UIE_GUID_LEN], vtpm[UIE_GUID_LEN];
	static const uint8_t zero[UIE_GUID_LEN];
	char s[37];
	size_t len;
	int r;

	*single = false;
	if ((r = blob(dir, "service_guid", 64, true, &text, &len, why)) != UIE_OK || !text)
		return r;
	while (len && (text[len - 1] == '\n' || text[len - 1] == '\0'))
		len--;
	if (len == sizeof(s) - 1) {
		memcpy(s, text, len);
		s[len] = '\0';
	}
	free(text);
	if (len != sizeof(s) - 1 || uie_guid_parse(s, guid) != UIE_OK)
		return uie_snp_fail(why, UIE_E_FORMAT, "%s/service_guid: not a GUID", dir);
	uie_guid_parse(UIE_SNP_GUID_VTPM, vtpm);
	if (!memcmp(guid, zero, sizeof(zero)))
		return UIE_OK;
	if (memcmp(guid, vtpm, sizeof(vtpm)) != 0)
		return uie_snp_fail(why, UIE_E_NOTFOUND, "%s/service_guid: %s is not the vTPM (%s)", dir, s,
				    UIE_SNP_GUID_VTPM);
	*single = true;
	return UIE_OK;
}

int uie_snp_tsm_read(const char *dir, struct uie_snp_tsm *out, struct uie_snp_why *why)
{
	int r = uie_out_begin(out, sizeof(*out), dir != NULL);

	if (r == UIE_OK &&
	    (r = blob(dir, "outblob", UIE_SNP_REPORT_LEN + 1, false, &out->report, &out->report_len, why)) ==
		    UIE_OK &&
	    (r = blob(dir, "manifestblob", UIE_SNP_MANIFEST_MAX, false, &out->manifest, &out->manifest_len,
		      why)) == UIE_OK &&
	    (r = blob(dir, "auxblob", UIE_SNP_AUX_MAX, true, &out->aux, &out->aux_len, why)) == UIE_OK)
		r = service(dir, &out->single, why);
	if (r != UIE_OK)
		uie_snp_tsm_free(out);
	return r;
}

void uie_snp_tsm_free(struct uie_snp_tsm *t)
{
	if (!t)
		return;
	free(t->report);
	free(t->manifest);
	free(t->aux);
	memset(t, 0, sizeof(*t));
}

/* dir/name replaced by p[0..n). */
static int put(const char *dir, const char *name, const void *p, size_t n)
{
	char path[4096];

	if ((size_t)snprintf(path, sizeof(path), "%s/%s", dir, name) >= sizeof(path))
		return UIE_E_LIMIT;
	return uie_file_write_atomic(path, p, n, 0644);
}

int uie_snp_tsm_write(const char *dir, const struct uie_snp_tsm *t)
{
	const char *guid = t->single ? UIE_SNP_GUID_VTPM "\n" : "00000000-0000-0000-0000-000000000000\n";
	char path[4096];
	int r;

	if ((r = put(dir, "outblob", t->report, t->report_len)) != UIE_OK ||
	    (r = put(dir, "manifestblob", t->manifest, t->manifest_len)) != UIE_OK ||
	    (t->aux && (r = put(dir, "auxblob", t->aux, t->aux_len)) != UIE_OK))
		return r;
	/* No certificate table: none left from an earlier answer in dir either. */
	if (!t->aux && ((size_t)snprintf(path, sizeof(path), "%s/auxblob", dir) >= sizeof(path) ||
			(unlink(path) != 0 && errno != ENOENT)))
		return UIE_E_IO;
	return put(dir, "service_guid", guid, strlen(guid));
}
