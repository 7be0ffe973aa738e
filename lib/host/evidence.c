/* SPDX-License-Identifier: Apache-2.0 */
/* AE encoding and strict parsing (docs/FORMATS.md section 5). */
#include "evidence.h"

#include <stdlib.h>
#include <string.h>

#include "uie/buf.h"
#include "uie/err.h"
#include "uie/types.h"

/* The AE stores the nonce length as a u16 (docs/FORMATS.md 5.1). */
_Static_assert(UIE_NONCE_MAX <= UINT16_MAX, "an AE nonce length fits its field");

#define AE_MAGIC "UIEA"
#define AE_VERSION 1
#define AE_PM_LEN 56
#define AE_ATTEST_MAX 1024
#define AE_SIG_MAX 256

static int check_fields(const struct uie_ae *ae, uint64_t *rec_bytes)
{
	uint64_t end;

	if (ae->nonce_len < 1 || ae->nonce_len > UIE_NONCE_MAX || ae->attest_len < 1 ||
	    ae->attest_len > AE_ATTEST_MAX || ae->sig_len < 1 || ae->sig_len > AE_SIG_MAX)
		return UIE_E_LIMIT;
	if (ae->pm.mode >= UIE_MODE__MAX)
		return UIE_E_FORMAT;
	if (!uie_add_ok(ae->first_seq, ae->nrecords, &end) ||
	    __builtin_mul_overflow(ae->nrecords, (uint64_t)UIE_LOG_RECORD_LEN, rec_bytes))
		return UIE_E_OVERFLOW;
	return UIE_OK;
}

#define AE_HEAD_LEN(n) (8 + 2 + (size_t)(n) + 8 + 8 + UIE_PCR_LEN + 8)

/* Everything before SL: magic .. records_len. */
static void put_head(struct uie_wbuf *w, const struct uie_ae *ae, uint64_t rec_bytes)
{
	uie_wbuf_bytes(w, AE_MAGIC, 4);
	uie_wbuf_u16(w, AE_VERSION);
	uie_wbuf_zero(w, 2);
	uie_wbuf_u16(w, (uint16_t)ae->nonce_len);
	uie_wbuf_bytes(w, ae->nonce, ae->nonce_len);
	uie_wbuf_u64(w, ae->first_seq);
	uie_wbuf_u64(w, ae->nrecords);
	uie_wbuf_bytes(w, ae->start_pcr, UIE_PCR_LEN);
	uie_wbuf_u64(w, rec_bytes);
}

static size_t tail_len(const struct uie_ae *ae)
{
	return 4 + AE_PM_LEN + 2 + UIE_PCR_LEN + 4 + ae->attest_len + 4 + ae->sig_len;
}

/* Everything after SL: PM, vPCR16, the quote. */
static void put_tail(struct uie_wbuf *w, const struct uie_ae *ae)
{
	uie_wbuf_u32(w, AE_PM_LEN);
	uie_wbuf_u8(w, ae->pm.mode);
	uie_wbuf_zero(w, 7);
	uie_wbuf_u64(w, ae->pm.epoch);
	uie_wbuf_bytes(w, ae->pm.policy_id, sizeof(ae->pm.policy_id));
	uie_wbuf_u64(w, ae->pm.total_records);
	uie_wbuf_u16(w, UIE_PCR_LEN);
	uie_wbuf_bytes(w, ae->vpcr, UIE_PCR_LEN);
	uie_wbuf_u32(w, (uint32_t)ae->attest_len);
	uie_wbuf_bytes(w, ae->attest, ae->attest_len);
	uie_wbuf_u32(w, (uint32_t)ae->sig_len);
	uie_wbuf_bytes(w, ae->sig, ae->sig_len);
}

int uie_ae_build_alloc(const struct uie_ae *ae, uint8_t **out, size_t *out_len)
{
	uint64_t rec_bytes, total;
	struct uie_wbuf w;
	int r;

	if (!out || !out_len)
		return UIE_E_INVAL;
	*out = NULL;
	*out_len = 0;
	if (!ae || !ae->nonce || !ae->attest || !ae->sig || (ae->nrecords && !ae->records))
		return UIE_E_INVAL;
	if ((r = check_fields(ae, &rec_bytes)) != UIE_OK)
		return r;
	total = AE_HEAD_LEN(ae->nonce_len) + tail_len(ae);
	if (!uie_add_ok(total, rec_bytes, &total) || total > SIZE_MAX)
		return UIE_E_OVERFLOW;
	if (!(*out = malloc((size_t)total)))
		return UIE_E_NOMEM;
	uie_wbuf_init(&w, *out, (size_t)total);
	put_head(&w, ae, rec_bytes);
	uie_wbuf_bytes(&w, ae->records, (size_t)rec_bytes);
	put_tail(&w, ae);
	if (w.err != UIE_OK || w.len != total) {
		free(*out);
		*out = NULL;
		return w.err != UIE_OK ? w.err : UIE_E_OVERFLOW;
	}
	*out_len = w.len;
	return UIE_OK;
}

int uie_ae_frame_alloc(const struct uie_ae *ae, uint8_t **head, size_t *head_len, uint8_t **tail,
		       size_t *tail_out_len)
{
	struct uie_wbuf w;
	uint64_t rec_bytes;
	int r;

	if (!head || !head_len || !tail || !tail_out_len)
		return UIE_E_INVAL;
	*head = *tail = NULL;
	*head_len = *tail_out_len = 0;
	if (!ae || !ae->nonce || !ae->attest || !ae->sig)
		return UIE_E_INVAL;
	if ((r = check_fields(ae, &rec_bytes)) != UIE_OK)
		return r;
	*head = malloc(AE_HEAD_LEN(ae->nonce_len));
	*tail = malloc(tail_len(ae));
	if (!*head || !*tail) {
		r = UIE_E_NOMEM;
		goto fail;
	}
	uie_wbuf_init(&w, *head, AE_HEAD_LEN(ae->nonce_len));
	put_head(&w, ae, rec_bytes);
	if ((r = w.err) != UIE_OK || (r = w.len == AE_HEAD_LEN(ae->nonce_len) ? UIE_OK : UIE_E_OVERFLOW))
		goto fail;
	*head_len = w.len;
	uie_wbuf_init(&w, *tail, tail_len(ae));
	put_tail(&w, ae);
	if ((r = w.err) != UIE_OK || (r = w.len == tail_len(ae) ? UIE_OK : UIE_E_OVERFLOW))
		goto fail;
	*tail_out_len = w.len;
	return UIE_OK;
fail:
	free(*head);
	free(*tail);
	*head = *tail = NULL;
	*head_len = *tail_out_len = 0;
	return r;
}

static int parse_body(struct uie_rbuf *b, struct uie_ae *ae)
{
	uint16_t u16;
	uint32_t u32;
	uint64_t rec_bytes, want, end;
	int r;

	if ((r = uie_rbuf_magic_version(b, AE_MAGIC, 4, AE_VERSION)) != UIE_OK)
		return r;
	if ((r = uie_rbuf_zero(b, 2)) != UIE_OK || (r = uie_rbuf_u16(b, &u16)) != UIE_OK)
		return r;
	if (u16 < 1 || u16 > UIE_NONCE_MAX)
		return UIE_E_LIMIT;
	ae->nonce_len = u16;
	if ((r = uie_rbuf_view(b, &ae->nonce, u16)) != UIE_OK ||
	    (r = uie_rbuf_u64(b, &ae->first_seq)) != UIE_OK ||
	    (r = uie_rbuf_u64(b, &ae->nrecords)) != UIE_OK ||
	    (r = uie_rbuf_bytes(b, ae->start_pcr, UIE_PCR_LEN)) != UIE_OK ||
	    (r = uie_rbuf_u64(b, &rec_bytes)) != UIE_OK)
		return r;
	if (!uie_add_ok(ae->first_seq, ae->nrecords, &end) ||
	    __builtin_mul_overflow(ae->nrecords, (uint64_t)UIE_LOG_RECORD_LEN, &want))
		return UIE_E_OVERFLOW;
	if (rec_bytes != want)
		return UIE_E_FORMAT;
	if (rec_bytes > uie_rbuf_left(b))
		return UIE_E_TRUNCATED;
	if ((r = uie_rbuf_view(b, &ae->records, (size_t)rec_bytes)) != UIE_OK ||
	    (r = uie_rbuf_u32(b, &u32)) != UIE_OK)
		return r;
	if (u32 != AE_PM_LEN)
		return UIE_E_FORMAT;
	if ((r = uie_rbuf_u8(b, &ae->pm.mode)) != UIE_OK || (r = uie_rbuf_zero(b, 7)) != UIE_OK ||
	    (r = uie_rbuf_u64(b, &ae->pm.epoch)) != UIE_OK ||
	    (r = uie_rbuf_bytes(b, ae->pm.policy_id, sizeof(ae->pm.policy_id))) != UIE_OK ||
	    (r = uie_rbuf_u64(b, &ae->pm.total_records)) != UIE_OK)
		return r;
	if (ae->pm.mode >= UIE_MODE__MAX)
		return UIE_E_FORMAT;
	if ((r = uie_rbuf_u16(b, &u16)) != UIE_OK)
		return r;
	if (u16 != UIE_PCR_LEN)
		return UIE_E_FORMAT;
	if ((r = uie_rbuf_bytes(b, ae->vpcr, UIE_PCR_LEN)) != UIE_OK || (r = uie_rbuf_u32(b, &u32)) != UIE_OK)
		return r;
	if (u32 < 1 || u32 > AE_ATTEST_MAX)
		return UIE_E_LIMIT;
	ae->attest_len = u32;
	if ((r = uie_rbuf_view(b, &ae->attest, u32)) != UIE_OK || (r = uie_rbuf_u32(b, &u32)) != UIE_OK)
		return r;
	if (u32 < 1 || u32 > AE_SIG_MAX)
		return UIE_E_LIMIT;
	ae->sig_len = u32;
	if ((r = uie_rbuf_view(b, &ae->sig, u32)) != UIE_OK)
		return r;
	return uie_rbuf_end(b);
}

int uie_ae_parse(const uint8_t *buf, size_t len, struct uie_ae *out)
{
	struct uie_rbuf b;
	int r = uie_out_begin(out, sizeof(*out), buf != NULL);

	if (r != UIE_OK)
		return r;
	uie_rbuf_init(&b, buf, len);
	return uie_out_end(out, sizeof(*out), parse_body(&b, out));
}
