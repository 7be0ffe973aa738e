/* SPDX-License-Identifier: Apache-2.0 */
#include "logstore.h"

#include <stdlib.h>
#include <string.h>

#include "uie/buf.h"

#include "logfile.h"
#include "uie/err.h"
#include "uie/sys.h"
#include "vtpm.h"

/*
 * First-seen keys: SHA-256 of the key fields (fs_key), in an open-
 * addressing table indexed by the hash's first bytes.  The decision is
 * part of the key, so a repeat is only ever answered with a record that
 * says the same thing.
 */
struct fs_slot {
	uint8_t key[UIE_PCR_LEN]; /* SHA-256 of the key fields */
	uint64_t seq;             /* the record that logged it */
	uint64_t count;           /* grants it stands for */
	uint64_t reported;        /* count in its last REPEAT_COUNT record (1: none yet) */
};

struct uie_firstseen {
	struct fs_slot *slots;
	uint32_t cap, n, max;
	uint64_t unreported;  /* repeats since the last complete flush */
	bool pending;         /* a key asked about is waiting for its append */
	bool pending_subject; /* ... and then for its SUBJECT record's */
	uint64_t pending_seq; /* the record it names, once appended (UINT64_MAX: not yet) */
	uint8_t pending_key[UIE_PCR_LEN];
};

void uie_logstore_init(struct uie_logstore *ls, const struct uie_platform *pl, struct uie_vtpm *tpm,
		       uint64_t max)
{
	memset(ls, 0, sizeof(*ls));
	ls->pl = pl;
	ls->tpm = tpm;
	ls->max = max ? max : UIE_LOGSTORE_DEFAULT_MAX;
}

void uie_logstore_fini(struct uie_logstore *ls)
{
	if (ls->fs)
		free(ls->fs->slots);
	free(ls->fs);
	free(ls->recs);
	free(ls->pcrs);
	memset(ls, 0, sizeof(*ls));
}

static bool fs_seen(void *ctx, const struct uie_log_record *rec, const struct uie_digest *subject,
		    uint64_t *seq);

struct uie_log_sink uie_logstore_sink(struct uie_logstore *ls)
{
	/* Without `seen` the core runs in the normal mode (no SUBJECT records either). */
	return (struct uie_log_sink){ .ctx = ls,
				      .append = uie_logstore_append,
				      .seen = ls->fs ? fs_seen : NULL };
}

void uie_logstore_set_file(struct uie_logstore *ls, struct uie_logfile *lf)
{
	ls->file = lf;
}

int uie_logstore_health(const struct uie_logstore *ls)
{
	if (ls->broken)
		return ls->tpm_err != UIE_OK ? ls->tpm_err : UIE_E_TPM;
	return ls->file_err;
}

bool uie_logstore_is_first_seen(const struct uie_logstore *ls)
{
	return ls->fs != NULL;
}

int uie_logstore_first_seen(struct uie_logstore *ls, uint32_t max_keys)
{
	struct uie_firstseen *fs = calloc(1, sizeof(*fs));

	if (!fs)
		return UIE_E_NOMEM;
	fs->cap = 1024;
	fs->max = max_keys ? max_keys : UIE_FIRSTSEEN_DEFAULT_KEYS;
	fs->slots = calloc(fs->cap, sizeof(*fs->slots));
	if (!fs->slots) {
		free(fs);
		return UIE_E_NOMEM;
	}
	ls->fs = fs;
	return UIE_OK;
}

/*
 * The key of a record: every field of (epoch, mode, event, role, digest,
 * decision, reason) and the subject's digest (all zero: none).
 */
static int fs_key(const struct uie_platform *pl, const struct uie_log_record *rec,
		  const struct uie_digest *subject, uint8_t key[UIE_PCR_LEN])
{
	static const struct uie_digest none;
	struct uie_wbuf w;
	uint8_t in[8 + 1 + 2 + 1 + 2 + UIE_DIGEST_MAX + 1 + 2 + 2 + UIE_DIGEST_MAX];

	uie_wbuf_init(&w, in, sizeof(in));
	uie_wbuf_u64(&w, rec->epoch);
	uie_wbuf_u8(&w, rec->mode);
	uie_wbuf_u16(&w, rec->event_type);
	uie_wbuf_u8(&w, rec->role);
	uie_wbuf_u16(&w, rec->digest.alg);
	uie_wbuf_bytes(&w, rec->digest.bytes, UIE_DIGEST_MAX);
	uie_wbuf_u8(&w, rec->decision);
	uie_wbuf_u16(&w, rec->reason);
	if (!subject)
		subject = &none;
	uie_wbuf_u16(&w, subject->alg);
	uie_wbuf_bytes(&w, subject->bytes, UIE_DIGEST_MAX);
	if (w.err != UIE_OK)
		return w.err;
	return uie_hash_buf(pl, UIE_HASH_SHA256, in, w.len, key);
}

static struct fs_slot *fs_find(struct fs_slot *slots, uint32_t cap, const uint8_t key[UIE_PCR_LEN])
{
	uint64_t h;
	uint32_t k;

	memcpy(&h, key, sizeof(h));
	for (k = (uint32_t)(h & (cap - 1));; k = (k + 1) & (cap - 1))
		if (slots[k].count == 0 || memcmp(slots[k].key, key, UIE_PCR_LEN) == 0)
			return &slots[k];
}

/* Doubles the table; false when it may not or cannot grow (then records are logged). */
static bool fs_grow(struct uie_firstseen *fs)
{
	struct fs_slot *ns;
	uint32_t ncap = fs->cap * 2;

	if (fs->n >= fs->max)
		return false;
	if (fs->n < fs->cap / 2)
		return true;
	if (ncap < fs->cap || !(ns = calloc(ncap, sizeof(*ns))))
		return false;
	for (uint32_t i = 0; i < fs->cap; i++)
		if (fs->slots[i].count)
			*fs_find(ns, ncap, fs->slots[i].key) = fs->slots[i];
	free(fs->slots);
	fs->slots = ns;
	fs->cap = ncap;
	return true;
}

static bool fs_seen(void *ctx, const struct uie_log_record *rec, const struct uie_digest *subject,
		    uint64_t *seq)
{
	struct uie_logstore *ls = ctx;
	struct uie_firstseen *fs = ls->fs;
	struct fs_slot *s;

	if (!fs)
		return false;
	fs->pending = false;
	if (fs_key(ls->pl, rec, subject, fs->pending_key) != UIE_OK)
		return false;
	s = fs_find(fs->slots, fs->cap, fs->pending_key);
	if (s->count) {
		s->count++;
		ls->repeats++;
		fs->unreported++;
		*seq = s->seq;
		return true;
	}
	fs->pending = fs_grow(fs);
	fs->pending_subject = subject != NULL;
	fs->pending_seq = UINT64_MAX;
	return false;
}

/*
 * After a successful append of rec as record seq while a key was pending:
 * the key now names that record, or, when a SUBJECT record must follow,
 * waits for it (a key whose SUBJECT record failed or did not come next is
 * not remembered: it is logged again).
 */
static void fs_commit(struct uie_logstore *ls, uint64_t seq, const uint8_t *rec)
{
	struct uie_firstseen *fs = ls->fs;
	struct fs_slot *s;

	if (fs->pending_subject) {
		fs->pending_subject = false;
		fs->pending_seq = seq;
		fs->pending = true;
		return;
	}
	if (fs->pending_seq != UINT64_MAX) {
		if ((rec[12] | rec[13] << 8) != UIE_LOG_SUBJECT) /* EM.event_type */
			return;
		seq = fs->pending_seq;
	}
	s = fs_find(fs->slots, fs->cap, fs->pending_key);
	memcpy(s->key, fs->pending_key, UIE_PCR_LEN);
	s->seq = seq;
	s->count = 1;
	s->reported = 1;
	fs->n++;
}

int uie_logstore_flush_repeats(struct uie_logstore *ls, int (*emit)(void *ctx, uint64_t seq, uint64_t count),
			       void *ctx)
{
	struct uie_firstseen *fs = ls->fs;
	int r;

	if (!fs || fs->unreported == 0)
		return UIE_OK;
	/* emit appends only records without a key, so the table does not move under us. */
	for (uint32_t i = 0; i < fs->cap; i++) {
		struct fs_slot *s = &fs->slots[i];

		if (s->count <= s->reported)
			continue;
		if ((r = emit(ctx, s->seq, s->count)) != UIE_OK)
			return r;
		s->reported = s->count;
	}
	fs->unreported = 0;
	return UIE_OK;
}

/* Makes room for one more record in memory; all or nothing. */
static int grow(struct uie_logstore *ls)
{
	uint64_t ncap, live = ls->n - ls->base;
	uint8_t *r, *p;

	if (live < ls->cap)
		return UIE_OK;
	if (live >= ls->max)
		return UIE_E_LIMIT;
	ncap = ls->cap ? ls->cap * 2 : 1024;
	if (ncap > ls->max)
		ncap = ls->max;
	if (ncap > SIZE_MAX / UIE_LOG_RECORD_LEN)
		return UIE_E_LIMIT;
	r = realloc(ls->recs, (size_t)ncap * UIE_LOG_RECORD_LEN);
	if (!r)
		return UIE_E_NOMEM;
	ls->recs = r;
	p = realloc(ls->pcrs, (size_t)ncap * UIE_PCR_LEN);
	if (!p)
		return UIE_E_NOMEM; /* recs grew harmlessly; cap stays */
	ls->pcrs = p;
	ls->cap = ncap;
	return UIE_OK;
}

int uie_logstore_append(void *ctx, const uint8_t rec[UIE_LOG_RECORD_LEN], const uint8_t lrh[UIE_PCR_LEN])
{
	struct uie_logstore *ls = ctx;
	uint8_t check[UIE_PCR_LEN];
	uint8_t pcr[UIE_PCR_LEN] = { 0 };
	uint64_t t0, t1;
	int r;

	bool pending = ls->fs && ls->fs->pending;

	if (ls->fs)
		ls->fs->pending = false; /* only the append right after fs_seen may commit its key */
	if (ls->broken)
		return ls->tpm_err != UIE_OK ? ls->tpm_err : UIE_E_STATE;
	if ((r = uie_log_lrh(ls->pl, rec, check)) != UIE_OK)
		return r;
	if (memcmp(check, lrh, UIE_PCR_LEN) != 0 || memcmp(rec + UIE_LOG_BODY_LEN, lrh, UIE_PCR_LEN) != 0)
		return UIE_E_INVAL;
	if ((r = grow(ls)) != UIE_OK)
		return r;
	if ((r = uie_logstore_pcr_at(ls, ls->n, pcr)) != UIE_OK ||
	    (r = uie_pcr_extend(ls->pl, pcr, lrh)) != UIE_OK)
		return r;
	/* Write-ahead: on the device before the vTPM or anyone else sees it. */
	t0 = ls->timed ? uie_now_ns() : 0;
	if (ls->file && (ls->file_err = uie_logfile_append(ls->file, rec)) != UIE_OK)
		return ls->file_err;
	t1 = ls->timed ? uie_now_ns() : 0;
	if (ls->tpm && (r = uie_vtpm_extend(ls->tpm, lrh)) != UIE_OK) {
		ls->broken = true;
		ls->tpm_err = r;
		return r;
	}
	if (ls->timed) {
		ls->file_ns += t1 - t0;
		ls->tpm_ns += uie_now_ns() - t1;
	}
	memcpy(ls->recs + (size_t)(ls->n - ls->base) * UIE_LOG_RECORD_LEN, rec, UIE_LOG_RECORD_LEN);
	memcpy(ls->pcrs + (size_t)(ls->n - ls->base) * UIE_PCR_LEN, pcr, UIE_PCR_LEN);
	if (pending)
		fs_commit(ls, ls->n, rec);
	ls->n++;
	return UIE_OK;
}

int uie_logstore_pcr_at(void *ctx, uint64_t seq, uint8_t pcr[UIE_PCR_LEN])
{
	const struct uie_logstore *ls = ctx;

	memset(pcr, 0, UIE_PCR_LEN);
	if (seq > ls->n || seq < ls->base)
		return UIE_E_RANGE;
	if (seq == ls->base)
		memcpy(pcr, ls->base_pcr, UIE_PCR_LEN);
	else
		memcpy(pcr, ls->pcrs + (size_t)(seq - ls->base - 1) * UIE_PCR_LEN, UIE_PCR_LEN);
	return UIE_OK;
}

const uint8_t *uie_logstore_records(const struct uie_logstore *ls, uint64_t first, uint64_t *n)
{
	*n = first >= ls->base && first < ls->n ? ls->n - first : 0;
	return *n ? ls->recs + (size_t)(first - ls->base) * UIE_LOG_RECORD_LEN : NULL;
}

uint64_t uie_logstore_count(const struct uie_logstore *ls)
{
	return ls->n;
}

int uie_logstore_checkpoint(struct uie_logstore *ls, uint64_t seq, const uint8_t pcr[UIE_PCR_LEN])
{
	uint8_t at[UIE_PCR_LEN];
	uint64_t drop, keep;
	int r;

	if ((r = uie_logstore_pcr_at(ls, seq, at)) != UIE_OK)
		return r;
	if (memcmp(at, pcr, UIE_PCR_LEN) != 0)
		return UIE_E_BINDING;
	drop = seq - ls->base;
	keep = ls->n - seq;
	if (drop && keep) {
		memmove(ls->recs, ls->recs + (size_t)drop * UIE_LOG_RECORD_LEN,
			(size_t)keep * UIE_LOG_RECORD_LEN);
		memmove(ls->pcrs, ls->pcrs + (size_t)drop * UIE_PCR_LEN, (size_t)keep * UIE_PCR_LEN);
	}
	memcpy(ls->base_pcr, at, UIE_PCR_LEN);
	ls->base = seq;
	/* Give the memory back when most of it is free (the store grows again by doubling). */
	if (ls->cap > 1024 && keep < ls->cap / 4) {
		uint64_t ncap = keep > 1024 ? keep : 1024;
		uint8_t *rr = realloc(ls->recs, (size_t)ncap * UIE_LOG_RECORD_LEN), *pp;

		if (!rr)
			return UIE_OK; /* keeps the larger arrays */
		ls->recs = rr;
		ls->cap = ncap; /* pcrs is at least this large whether or not it shrinks */
		if ((pp = realloc(ls->pcrs, (size_t)ncap * UIE_PCR_LEN)))
			ls->pcrs = pp;
	}
	return UIE_OK;
}
