/* SPDX-License-Identifier: Apache-2.0 */
/*
 * configfs-tsm's three files in one buffer, as the monitor's SNP_REPORT
 * answer carries them through the bridge (docs/FORMATS.md 7.8): the
 * magic "USNP", version 1, flags, the three lengths, then the bytes.
 */
#include <stdlib.h>
#include <string.h>

#include "snp_report.h"
#include "snp_tsm.h"

#define BUNDLE_MAGIC "USNP"
#define BUNDLE_VERSION 1
#define BUNDLE_HEAD 20
#define BUNDLE_SINGLE 0x0001

int uie_snp_tsm_pack_alloc(const struct uie_snp_tsm *t, uint8_t **out, size_t *len)
{
	size_t n = BUNDLE_HEAD + t->report_len + t->manifest_len + t->aux_len;
	struct uie_wbuf w;

	*out = NULL;
	*len = 0;
	if (t->report_len > UIE_SNP_REPORT_LEN || t->manifest_len > UIE_SNP_MANIFEST_MAX ||
	    t->aux_len > UIE_SNP_AUX_MAX)
		return UIE_E_LIMIT;
	if (!(*out = malloc(n)))
		return UIE_E_NOMEM;
	uie_wbuf_init(&w, *out, n);
	uie_wbuf_bytes(&w, BUNDLE_MAGIC, 4);
	uie_wbuf_u16(&w, BUNDLE_VERSION);
	uie_wbuf_u16(&w, t->single ? BUNDLE_SINGLE : 0);
	uie_wbuf_u32(&w, (uint32_t)t->report_len);
	uie_wbuf_u32(&w, (uint32_t)t->manifest_len);
	uie_wbuf_u32(&w, (uint32_t)t->aux_len);
	uie_wbuf_bytes(&w, t->report, t->report_len);
	uie_wbuf_bytes(&w, t->manifest, t->manifest_len);
	uie_wbuf_bytes(&w, t->aux, t->aux_len);
	*len = n;
	return UIE_OK;
}

/* The next n bytes of b into a copy of its own at *dst (NULL when n is 0). */
static int take_copy(struct uie_rbuf *b, size_t n, uint8_t **dst, size_t *dst_len)
{
	const uint8_t *p;
	int r;

	if ((r = uie_rbuf_view(b, &p, n)) != UIE_OK || n == 0)
		return r;
	if (!(*dst = malloc(n)))
		return UIE_E_NOMEM;
	memcpy(*dst, p, n);
	*dst_len = n;
	return UIE_OK;
}

int uie_snp_tsm_unpack(const uint8_t *p, size_t n, struct uie_snp_tsm *out, struct uie_snp_why *why)
{
	uint32_t rl = 0, ml = 0, al = 0;
	uint16_t flags = 0;
	struct uie_rbuf b;
	int r = uie_out_begin(out, sizeof(*out), p != NULL);

	if (r != UIE_OK)
		return r;
	uie_rbuf_init(&b, p, n);
	uie_rbuf_magic_version(&b, BUNDLE_MAGIC, 4, BUNDLE_VERSION);
	uie_rbuf_u16(&b, &flags);
	uie_rbuf_u32(&b, &rl);
	uie_rbuf_u32(&b, &ml);
	uie_rbuf_u32(&b, &al);
	if ((r = uie_rbuf_err(&b)) != UIE_OK)
		return uie_snp_fail(why, r, "SNP bundle: not one (%s)", uie_err_str(r));
	if (flags & ~BUNDLE_SINGLE)
		return uie_snp_fail(why, UIE_E_FORMAT, "SNP bundle: unknown flags %#x", flags);
	if (rl == 0 || rl > UIE_SNP_REPORT_LEN || ml == 0 || ml > UIE_SNP_MANIFEST_MAX ||
	    al > UIE_SNP_AUX_MAX || (uint64_t)rl + ml + al != uie_rbuf_left(&b))
		return uie_snp_fail(why, UIE_E_FORMAT,
				    "SNP bundle: lengths %u, %u and %u do not fill its %zu bytes of content",
				    rl, ml, al, uie_rbuf_left(&b));
	out->single = (flags & BUNDLE_SINGLE) != 0;
	if ((r = take_copy(&b, rl, &out->report, &out->report_len)) != UIE_OK ||
	    (r = take_copy(&b, ml, &out->manifest, &out->manifest_len)) != UIE_OK ||
	    (r = take_copy(&b, al, &out->aux, &out->aux_len)) != UIE_OK) {
		uie_snp_tsm_free(out);
		return uie_snp_fail(why, r, "SNP bundle: %s", uie_err_str(r));
	}
	return UIE_OK;
}
