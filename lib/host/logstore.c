/* SPDX-License-Identifier: Apache-2.0 */
#include "logstore.h"

#include <stdlib.h>
#include <string.h>

#include "uie/err.h"
#include "vtpm.h"

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
	free(ls->recs);
	free(ls->pcrs);
	memset(ls, 0, sizeof(*ls));
}

struct uie_log_sink uie_logstore_sink(struct uie_logstore *ls)
{
	return (struct uie_log_sink){ .ctx = ls, .append = uie_logstore_append };
}

/* Makes room for one more record; all or nothing. */
static int grow(struct uie_logstore *ls)
{
	uint64_t ncap;
	uint8_t *r, *p;

	if (ls->n < ls->cap)
		return UIE_OK;
	if (ls->n >= ls->max)
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

int uie_logstore_append(void *ctx, const uint8_t rec[UIE_LOG_RECORD_LEN],
			const uint8_t lrh[UIE_PCR_LEN])
{
	struct uie_logstore *ls = ctx;
	uint8_t check[UIE_PCR_LEN];
	uint8_t pcr[UIE_PCR_LEN] = { 0 };
	int r;

	if (ls->broken)
		return UIE_E_STATE;
	if ((r = uie_log_lrh(ls->pl, rec, check)) != UIE_OK)
		return r;
	if (memcmp(check, lrh, UIE_PCR_LEN) != 0 ||
	    memcmp(rec + UIE_LOG_BODY_LEN, lrh, UIE_PCR_LEN) != 0)
		return UIE_E_INVAL;
	if ((r = grow(ls)) != UIE_OK)
		return r;
	if (ls->n)
		memcpy(pcr, ls->pcrs + (size_t)(ls->n - 1) * UIE_PCR_LEN, UIE_PCR_LEN);
	if ((r = uie_pcr_extend(ls->pl, pcr, lrh)) != UIE_OK)
		return r;
	if (ls->tpm && (r = uie_vtpm_extend(ls->tpm, lrh)) != UIE_OK) {
		ls->broken = true;
		return r;
	}
	memcpy(ls->recs + (size_t)ls->n * UIE_LOG_RECORD_LEN, rec, UIE_LOG_RECORD_LEN);
	memcpy(ls->pcrs + (size_t)ls->n * UIE_PCR_LEN, pcr, UIE_PCR_LEN);
	ls->n++;
	return UIE_OK;
}

int uie_logstore_pcr_at(void *ctx, uint64_t seq, uint8_t pcr[UIE_PCR_LEN])
{
	const struct uie_logstore *ls = ctx;

	memset(pcr, 0, UIE_PCR_LEN);
	if (seq > ls->n)
		return UIE_E_RANGE;
	if (seq)
		memcpy(pcr, ls->pcrs + (size_t)(seq - 1) * UIE_PCR_LEN, UIE_PCR_LEN);
	return UIE_OK;
}

const uint8_t *uie_logstore_records(const struct uie_logstore *ls, uint64_t first, uint64_t *n)
{
	*n = first < ls->n ? ls->n - first : 0;
	return *n ? ls->recs + (size_t)first * UIE_LOG_RECORD_LEN : NULL;
}

uint64_t uie_logstore_count(const struct uie_logstore *ls)
{
	return ls->n;
}
