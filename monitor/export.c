/* SPDX-License-Identifier: Apache-2.0 */
/*
 * EXPORT and PUBKEY handlers: AE = {Nonce || IE || Quote} over the log
 * records since the requested one, with a quote over the current PCR 16.
 * Only the loop's thread touches them (workers only hash), so the log, vPCR16 and the quote cannot
 * move apart between the three reads.
 */
#include <stdlib.h>
#include <string.h>

#include "evidence.h"
#include "fdpass.h"
#include "monitor.h"
#include "uie/err.h"
#include "vtpm.h"

int uie_mon_export(struct uie_monitor *m, const struct uie_wire_msg *q, int fd,
		   struct uie_wire_msg *a, int *afd)
{
	const struct uie_msg_export_req *e = &q->u.export_req;
	struct uie_ae ae = { 0 };
	uint8_t *attest = NULL, *sig = NULL, *out = NULL;
	size_t out_len = 0;
	uint64_t total = uie_logstore_count(&m->log);
	int r;

	if (!m->tpm)
		return UIE_E_STATE;
	if (e->since_seq > total)
		return UIE_E_RANGE;
	ae.nonce = e->nonce;
	ae.nonce_len = e->nonce_len;
	ae.first_seq = e->since_seq;
	ae.records = uie_logstore_records(&m->log, e->since_seq, &ae.nrecords);
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
	if ((r = uie_ae_build_alloc(&ae, &out, &out_len)) != UIE_OK ||
	    (r = uie_memfd_create_sealed("uie-evidence", out, out_len, afd)) != UIE_OK)
		goto out;
	a->u.blob_ans.len = out_len;
	a->u.blob_ans.epoch = m->core.epoch;
out:
	free(attest);
	free(sig);
	free(out);
	return r;
}

int uie_mon_pubkey(struct uie_monitor *m, const struct uie_wire_msg *q, int fd,
		   struct uie_wire_msg *a, int *afd)
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
	memcpy(a->u.pubkey_ans.der, der, len);
	a->u.pubkey_ans.len = (uint16_t)len;
	free(der);
	return UIE_OK;
}
