/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Secure-log records (docs/FORMATS.md section 3): canonical encoding,
 * strict decoding, LRH, the vPCR extend and replay.
 *
 * Encoding and decoding accept exactly the same set of records, so a
 * decoded record re-encodes to the very bytes it came from: a verifier
 * can never be shown two different readings of one LRH.
 */
#include "uie/slog.h"

#include "uie/buf.h"
#include "uie/err.h"

#include "mem.h"

static bool event_ok(uint16_t e)
{
	return (e >= UIE_LOG_EXECVE && e <= UIE_LOG_MPROTECT_EXEC) ||
	       (e >= UIE_LOG_MONITOR_START && e < UIE_LOG__MAX);
}

/* Digest algorithm 0 means "no digest": then every digest byte is zero. */
static bool digest_ok(uint16_t alg, const uint8_t bytes[UIE_DIGEST_MAX])
{
	size_t n = uie_hash_len(alg);
	uint8_t acc = 0;

	if (alg != 0 && n == 0)
		return false;
	for (size_t i = n; i < UIE_DIGEST_MAX; i++)
		acc |= bytes[i];
	return acc == 0;
}

static bool fields_ok(const struct uie_log_record *r)
{
	return r->pcr_index == UIE_LOG_PCR_INDEX && event_ok(r->event_type) && r->role < UIE_ROLE__MAX &&
	       r->mode < UIE_MODE__MAX && r->decision < UIE_DECISION__MAX && r->reason >= UIE_R_RULE_ALLOW &&
	       r->reason < UIE_R__MAX && r->scope < UIE_SCOPE__MAX &&
	       digest_ok(r->digest.alg, r->digest.bytes) &&
	       (r->scope == UIE_SCOPE_NONE) == (r->digest.alg == 0);
}

static void body_encode(const struct uie_log_record *r, struct uie_wbuf *w)
{
	/* EM */
	uie_wbuf_u64(w, r->seq);
	uie_wbuf_u32(w, r->pcr_index);
	uie_wbuf_u16(w, r->event_type);
	uie_wbuf_zero(w, 2);
	uie_wbuf_u64(w, r->epoch);
	/* OC */
	uie_wbuf_u8(w, r->role);
	uie_wbuf_zero(w, 1);
	uie_wbuf_u16(w, r->digest.alg);
	uie_wbuf_u32(w, r->pid);
	uie_wbuf_file_id(w, &r->id);
	uie_wbuf_u64(w, r->vaddr);
	uie_wbuf_u64(w, r->length);
	uie_wbuf_u64(w, r->file_offset);
	uie_wbuf_bytes(w, r->digest.bytes, UIE_DIGEST_MAX);
	/* ER */
	uie_wbuf_u8(w, r->mode);
	uie_wbuf_u8(w, r->decision);
	uie_wbuf_u16(w, r->reason);
	uie_wbuf_u8(w, r->scope);
	uie_wbuf_zero(w, 3);
}

int uie_log_lrh(const struct uie_platform *pl, const uint8_t *rec, uint8_t lrh[UIE_PCR_LEN])
{
	if (!pl || !rec || !lrh)
		return UIE_E_INVAL;
	return uie_hash_buf(pl, UIE_LOG_HASH_ALG, rec, UIE_LOG_BODY_LEN, lrh);
}

int uie_log_encode(const struct uie_platform *pl, struct uie_log_record *rec, uint8_t out[UIE_LOG_RECORD_LEN])
{
	struct uie_wbuf w;
	int r;

	if (!pl || !rec || !out)
		return UIE_E_INVAL;
	/* The digest length must agree with its algorithm. */
	if (!fields_ok(rec) || rec->digest.len != uie_hash_len(rec->digest.alg))
		return UIE_E_INVAL;
	uie_wbuf_init(&w, out, UIE_LOG_RECORD_LEN);
	body_encode(rec, &w);
	if (w.err != UIE_OK || w.len != UIE_LOG_BODY_LEN)
		return UIE_E_OVERFLOW;
	if ((r = uie_log_lrh(pl, out, out + UIE_LOG_BODY_LEN)) != UIE_OK)
		return r;
	uie_memcpy(rec->lrh, out + UIE_LOG_BODY_LEN, UIE_PCR_LEN);
	return UIE_OK;
}

static int body_decode(struct uie_rbuf *b, struct uie_log_record *r)
{
	int e;

	if ((e = uie_rbuf_u64(b, &r->seq)) != UIE_OK || (e = uie_rbuf_u32(b, &r->pcr_index)) != UIE_OK ||
	    (e = uie_rbuf_u16(b, &r->event_type)) != UIE_OK || (e = uie_rbuf_zero(b, 2)) != UIE_OK ||
	    (e = uie_rbuf_u64(b, &r->epoch)) != UIE_OK)
		return e;
	if ((e = uie_rbuf_u8(b, &r->role)) != UIE_OK || (e = uie_rbuf_zero(b, 1)) != UIE_OK ||
	    (e = uie_rbuf_u16(b, &r->digest.alg)) != UIE_OK || (e = uie_rbuf_u32(b, &r->pid)) != UIE_OK ||
	    (e = uie_rbuf_file_id(b, &r->id)) != UIE_OK || (e = uie_rbuf_u64(b, &r->vaddr)) != UIE_OK ||
	    (e = uie_rbuf_u64(b, &r->length)) != UIE_OK || (e = uie_rbuf_u64(b, &r->file_offset)) != UIE_OK ||
	    (e = uie_rbuf_bytes(b, r->digest.bytes, UIE_DIGEST_MAX)) != UIE_OK)
		return e;
	r->digest.len = (uint8_t)uie_hash_len(r->digest.alg);
	if ((e = uie_rbuf_u8(b, &r->mode)) != UIE_OK || (e = uie_rbuf_u8(b, &r->decision)) != UIE_OK ||
	    (e = uie_rbuf_u16(b, &r->reason)) != UIE_OK || (e = uie_rbuf_u8(b, &r->scope)) != UIE_OK ||
	    (e = uie_rbuf_zero(b, 3)) != UIE_OK)
		return e;
	return uie_rbuf_bytes(b, r->lrh, UIE_PCR_LEN);
}

int uie_log_decode(const uint8_t *p, size_t len, struct uie_log_record *out)
{
	struct uie_rbuf b;
	int r = uie_out_begin(out, sizeof(*out), p != NULL);

	if (r != UIE_OK)
		return r;
	if (len > UIE_LOG_RECORD_LEN)
		return UIE_E_FORMAT;
	uie_rbuf_init(&b, p, len);
	if ((r = body_decode(&b, out)) == UIE_OK && !fields_ok(out))
		r = UIE_E_FORMAT;
	return uie_out_end(out, sizeof(*out), r);
}

int uie_pcr_extend(const struct uie_platform *pl, uint8_t pcr[UIE_PCR_LEN], const uint8_t lrh[UIE_PCR_LEN])
{
	uint8_t in[2 * UIE_PCR_LEN];

	if (!pl || !pcr || !lrh)
		return UIE_E_INVAL;
	uie_memcpy(in, pcr, UIE_PCR_LEN);
	uie_memcpy(in + UIE_PCR_LEN, lrh, UIE_PCR_LEN);
	return uie_hash_buf(pl, UIE_LOG_HASH_ALG, in, sizeof(in), pcr);
}

int uie_log_replay(const struct uie_platform *pl, const uint8_t *recs, size_t len, uint64_t first_seq,
		   uint8_t pcr[UIE_PCR_LEN], uint64_t *bad_seq)
{
	struct uie_log_record rec;
	uint8_t lrh[UIE_PCR_LEN];
	size_t n;
	int r;

	if (bad_seq)
		*bad_seq = 0;
	if (!pl || (!recs && len) || !pcr || !bad_seq)
		return UIE_E_INVAL;
	n = len / UIE_LOG_RECORD_LEN;
	for (size_t i = 0; i < n; i++) {
		const uint8_t *p = recs + i * UIE_LOG_RECORD_LEN;

		*bad_seq = first_seq + i;
		if ((r = uie_log_decode(p, UIE_LOG_RECORD_LEN, &rec)) != UIE_OK)
			return r;
		if (rec.seq != first_seq + i)
			return UIE_E_REPLAY;
		if ((r = uie_log_lrh(pl, p, lrh)) != UIE_OK)
			return r;
		if (!uie_ct_memeq(lrh, rec.lrh, UIE_PCR_LEN))
			return UIE_E_REPLAY;
		if ((r = uie_pcr_extend(pl, pcr, lrh)) != UIE_OK)
			return r;
	}
	*bad_seq = first_seq + n;
	/* A partial trailing record is a truncated log. */
	return len % UIE_LOG_RECORD_LEN ? UIE_E_TRUNCATED : UIE_OK;
}
