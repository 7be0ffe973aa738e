/* SPDX-License-Identifier: Apache-2.0 */
/*
 * EXPORT and PUBKEY handlers: AE = {Nonce || IE || Quote} over the log
 * records since the requested one, with a quote over the current PCR 16.
 * Only the loop's thread touches them (workers only hash), so the log,
 * vPCR16 and the quote cannot move apart.
 *
 * An export is taken in one step (the quote, PM and vPCR16 at that
 * moment, and the number of records they cover) and written out in
 * pieces: records already logged never change, so the loop can go on
 * deciding and logging between the pieces (docs/BRIDGE.md section 6).
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "evidence.h"
#include "fdpass.h"
#include "monitor.h"
#include "uie/err.h"
#include "vtpm.h"

struct uie_export_job {
	int memfd;
	uint64_t next, end; /* records still to write: [next, end) */
	uint8_t *tail;      /* PM, vPCR16 and the quote, written last */
	size_t tail_len;
	uint64_t len; /* AE bytes in all */
	uint64_t epoch;
	uint32_t request_id;
};

void uie_export_job_free(struct uie_export_job *x)
{
	if (!x)
		return;
	if (x->memfd >= 0)
		close(x->memfd);
	free(x->tail);
	free(x);
}

static int log_repeat(void *ctx, uint64_t seq, uint64_t count)
{
	struct uie_monitor *m = ctx;
	uint64_t at;

	return uie_core_log_repeat(&m->core, seq, count, &at);
}

/* Takes the snapshot and writes the AE's head; the records follow with export_write. */
static int export_begin(struct uie_monitor *m, const struct uie_msg_export_req *e,
			struct uie_export_job **out)
{
	struct uie_ae ae = { 0 };
	struct uie_export_job *x;
	uint8_t *attest = NULL, *sig = NULL, *head = NULL;
	size_t head_len = 0;
	uint64_t total;
	int r;

	*out = NULL;
	if (!m->tpm)
		return UIE_E_STATE;
	/* Records before a checkpoint left memory: they are in the log file (FORMATS.md 3.8). */
	if (e->since_seq > uie_logstore_count(&m->log) || e->since_seq < m->log.base)
		return UIE_E_RANGE;
	/* First-seen mode: the repeat counts so far go into the log the quote covers (FORMATS.md 3.7). */
	if ((r = uie_logstore_flush_repeats(&m->log, log_repeat, m)) != UIE_OK)
		return r;
	total = uie_logstore_count(&m->log);
	if (!(x = calloc(1, sizeof(*x))))
		return UIE_E_NOMEM;
	x->memfd = -1;
	ae.nonce = e->nonce;
	ae.nonce_len = e->nonce_len;
	ae.first_seq = e->since_seq;
	ae.nrecords = total - e->since_seq;
	ae.pm.mode = m->core.mode;
	ae.pm.epoch = m->core.epoch;
	memcpy(ae.pm.policy_id, m->core.policy_id, sizeof(ae.pm.policy_id));
	ae.pm.total_records = total;
	memcpy(ae.vpcr, m->core.vpcr, UIE_PCR_LEN);
	if ((r = uie_logstore_pcr_at(&m->log, e->since_seq, ae.start_pcr)) != UIE_OK ||
	    (r = uie_vtpm_quote_alloc(m->tpm, e->nonce, e->nonce_len, &attest, &ae.attest_len, &sig,
				      &ae.sig_len)) != UIE_OK)
		goto out;
	ae.attest = attest;
	ae.sig = sig;
	if ((r = uie_ae_frame_alloc(&ae, &head, &head_len, &x->tail, &x->tail_len)) != UIE_OK ||
	    (r = uie_memfd_open("uie-evidence", &x->memfd)) != UIE_OK ||
	    (r = uie_memfd_append(x->memfd, head, head_len)) != UIE_OK)
		goto out;
	x->next = e->since_seq;
	x->end = total;
	x->len = head_len + ae.nrecords * UIE_LOG_RECORD_LEN + x->tail_len;
	x->epoch = m->core.epoch;
out:
	free(attest);
	free(sig);
	free(head);
	if (r != UIE_OK)
		uie_export_job_free(x);
	else
		*out = x;
	return r;
}

/* Writes up to max more records; *done once all are written. */
static int export_write(struct uie_monitor *m, struct uie_export_job *x, uint64_t max, bool *done)
{
	uint64_t have = 0, k = x->end - x->next < max ? x->end - x->next : max;
	const uint8_t *p = k ? uie_logstore_records(&m->log, x->next, &have) : NULL;
	int r;

	if (k && (!p || have < k))
		return UIE_E_STATE; /* the store no longer holds them */
	if (k && (r = uie_memfd_append(x->memfd, p, (size_t)(k * UIE_LOG_RECORD_LEN))) != UIE_OK)
		return r;
	x->next += k;
	*done = x->next == x->end;
	return UIE_OK;
}

/* Writes the tail and seals: the answer's memfd moves to *afd. */
static int export_end(struct uie_export_job *x, struct uie_wire_msg *a, int *afd)
{
	int r;

	if ((r = uie_memfd_append(x->memfd, x->tail, x->tail_len)) != UIE_OK ||
	    (r = uie_memfd_seal(x->memfd)) != UIE_OK)
		return r;
	a->u.blob_ans.len = x->len;
	a->u.blob_ans.epoch = x->epoch;
	*afd = x->memfd;
	x->memfd = -1;
	return UIE_OK;
}

/*
 * EXPORT, written whole here (later NULL) or, when later is given, streamed:
 * the snapshot is taken now and later->export writes it out in pieces
 * (uie_mon_export_step) while the loop goes on serving others.
 */
int uie_mon_export(struct uie_monitor *m, struct uie_mon_call *c)
{
	struct uie_export_job *x;
	bool done = false;
	int r;

	if ((r = export_begin(m, &c->q->u.export_req, &x)) != UIE_OK) {
		uie_mon_diag(m, "export since record %llu: %s",
			     (unsigned long long)c->q->u.export_req.since_seq, uie_err_str(r));
		return r;
	}
	if (c->later) {
		x->request_id = c->q->request_id;
		c->later->export = x;
		return UIE_OK;
	}
	if ((r = export_write(m, x, UINT64_MAX, &done)) == UIE_OK)
		r = export_end(x, c->a, c->afd);
	uie_export_job_free(x);
	return r;
}

bool uie_mon_export_step(struct uie_monitor *m, struct uie_export_job *x, uint64_t max, uint8_t *ans,
			 size_t *anslen, int *ansfd)
{
	struct uie_wire_msg q = { .type = UIE_MSG_EXPORT_REQ, .request_id = x->request_id };
	struct uie_wire_msg a = { 0 };
	bool done = false;

	*ansfd = -1;
	a.status = export_write(m, x, max, &done);
	if (a.status == UIE_OK && !done)
		return false;
	if (a.status == UIE_OK)
		a.status = export_end(x, &a, ansfd);
	if (a.status != UIE_OK)
		uie_mon_diag(m, "export: %s", uie_err_str(a.status));
	uie_mon_answer(&q, &a, ans, anslen);
	return true;
}

int uie_mon_pubkey(struct uie_monitor *m, struct uie_mon_call *c)
{
	uint8_t *der = NULL;
	size_t len = 0;
	int r;

	if (!m->tpm)
		return UIE_E_STATE;
	if ((r = uie_vtpm_pubkey_alloc(m->tpm, &der, &len)) != UIE_OK)
		return r;
	if (len == 0 || len > UIE_BRIDGE_PUBKEY_MAX) {
		free(der);
		return UIE_E_LIMIT;
	}
	memcpy(c->a->u.pubkey_ans.der, der, len);
	c->a->u.pubkey_ans.len = (uint16_t)len;
	free(der);
	return UIE_OK;
}

int uie_mon_checkpoint(struct uie_monitor *m, struct uie_mon_call *c)
{
	const struct uie_msg_checkpoint_req *cq = &c->q->u.checkpoint_req;
	int r;

	r = uie_logstore_checkpoint(&m->log, cq->seq, cq->pcr);
	uie_mon_diag(m, "checkpoint at record %llu: %s", (unsigned long long)cq->seq, uie_err_str(r));
	if (r != UIE_OK)
		return r;
	c->a->u.checkpoint_base = m->log.base;
	return UIE_OK;
}
