/* SPDX-License-Identifier: Apache-2.0 */
/*
 * SNP_REPORT handler (snp.h, docs/BRIDGE.md): what an SVSM with this
 * monitor's vTPM answers a guest that asks for an attestation with the
 * verifier's nonce.  Nothing is logged: the answer changes no state, and
 * any nonce may be asked for (the verifier picks it).
 */
#include <stdlib.h>

#include "fdpass.h"
#include "monitor.h"
#include "snp.h"
#include "snp_simfiles.h"
#include "uie/err.h"
#include "vtpm.h"

int uie_mon_snp_load(const char *dir, const uint8_t *measurement, struct uie_mon_snp *s,
		     struct uie_snp_why *why)
{
	int r;

	if ((r = uie_snp_simfiles_load(dir, &s->sim, why)) != UIE_OK)
		return r;
	if ((r = uie_snp_sim_template(&s->sim, measurement, &s->tmpl)) != UIE_OK) {
		uie_snp_fail(why, r, "%s/vcek.pem: no hwID extension (a VLEK cannot stand for a chip)", dir);
		uie_snp_sim_free(&s->sim);
	}
	return r;
}

void uie_mon_snp_free(struct uie_mon_snp *s)
{
	uie_snp_sim_free(&s->sim);
}

/* The vTPM's EK as the manifest holds it: the TPMT_PUBLIC inside its TPM2B_PUBLIC. */
static int ek_public(struct uie_vtpm *tpm, uint8_t **ek, const uint8_t **tpmt, size_t *len)
{
	size_t n = 0;
	int r;

	if ((r = uie_vtpm_ek_public_alloc(tpm, ek, &n)) != UIE_OK)
		return r;
	if (n < 3 || ((size_t)(*ek)[0] << 8 | (*ek)[1]) != n - 2)
		return UIE_E_FORMAT;
	*tpmt = *ek + 2;
	*len = n - 2;
	return UIE_OK;
}

int uie_mon_snp_report(struct uie_monitor *m, struct uie_mon_call *c)
{
	const struct uie_msg_snp_report_req *q = &c->q->u.snp_report_req;
	uint8_t *ek = NULL, *bundle = NULL;
	const uint8_t *tpmt = NULL;
	struct uie_snp_tsm t = { 0 };
	size_t tl = 0, bl = 0;
	int r;

	if (!m->snp)
		return UIE_E_NOTFOUND;
	if (!m->tpm)
		return UIE_E_STATE;
	if ((r = ek_public(m->tpm, &ek, &tpmt, &tl)) == UIE_OK &&
	    (r = uie_snp_sim_attest(&m->snp->sim, &m->snp->tmpl, q->nonce, tpmt, tl,
				    (q->flags & UIE_BRIDGE_SNP_SINGLE) != 0, &t)) == UIE_OK &&
	    (r = uie_snp_tsm_pack_alloc(&t, &bundle, &bl)) == UIE_OK &&
	    (r = uie_memfd_create_sealed("uie-snp-report", bundle, bl, c->afd)) == UIE_OK)
		c->a->u.blob_ans.len = bl;
	uie_mon_diag(m, "SNP report (simulated chain): %s", uie_err_str(r));
	uie_snp_tsm_free(&t);
	free(bundle);
	free(ek);
	return r;
}
