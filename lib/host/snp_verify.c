/* SPDX-License-Identifier: Apache-2.0 */
/* An SEV-SNP report judged whole, step by step (snp_verify.h). */
#include <stdio.h>
#include <string.h>

#include "snp_verify.h"

/* The roots ev names, or the built-in ones whose ASK issued the VCEK. */
static int roots_of(const struct uie_snp_evidence *ev, struct uie_snp_roots *roots, struct uie_snp_why *why)
{
	memset(roots, 0, sizeof(*roots));
	if (!ev->ask != !ev->ark)
		return uie_snp_fail(why, UIE_E_INVAL, "roots: give both the ASK and the ARK, or neither");
	if (!ev->ark) {
		if (ev->simulated_root)
			return uie_snp_fail(why, UIE_E_INVAL,
					    "roots: a simulated root must be given explicitly");
		return uie_snp_roots_for(ev->vcek, roots, why);
	}
	if (!X509_up_ref(ev->ask))
		return UIE_E_CRYPTO;
	roots->ask = ev->ask;
	if (!X509_up_ref(ev->ark)) {
		uie_snp_roots_free(roots);
		return UIE_E_CRYPTO;
	}
	roots->ark = ev->ark;
	/* A simulated root given explicitly; one of AMD's stays AMD's even then. */
	roots->simulated = ev->simulated_root && !uie_snp_ark_pinned(ev->ark);
	return UIE_OK;
}

static int steps(const struct uie_snp_evidence *ev, const struct uie_snp_policy *pol,
		 struct uie_snp_verdict *v)
{
	struct uie_snp_roots roots;
	int r;

	if ((r = uie_snp_report_parse(ev->report, ev->report_len, &v->report, &v->why)) != UIE_OK)
		return r;
	v->decoded = true;
	if ((r = roots_of(ev, &roots, &v->why)) != UIE_OK)
		return r;
	v->simulated = roots.simulated;
	r = uie_snp_chain_verify(ev->vcek, &roots, ev->crl, &v->why);
	uie_snp_roots_free(&roots);
	if (r != UIE_OK || (r = uie_snp_report_verify_sig(ev->report, ev->vcek, &v->why)) != UIE_OK ||
	    (r = uie_snp_cert_ext_parse(ev->vcek, &v->ext, &v->why)) != UIE_OK ||
	    (r = uie_snp_cert_check_report(&v->ext, &v->report, &v->why)) != UIE_OK)
		return r;
	return uie_snp_appraise(&v->report, pol, &v->why);
}

int uie_snp_verify(const struct uie_snp_evidence *ev, const struct uie_snp_policy *pol,
		   struct uie_snp_verdict *v)
{
	if (!v)
		return UIE_E_INVAL;
	memset(v, 0, sizeof(*v));
	if (!ev || !pol || !ev->report || !ev->vcek)
		v->err = uie_snp_fail(&v->why, UIE_E_INVAL, "evidence: no report or no VCEK");
	else
		v->err = steps(ev, pol, v);
	if (v->err == UIE_OK)
		snprintf(v->why.msg, sizeof(v->why.msg), "%s", v->simulated ? "ok (simulated root)" : "ok");
	return v->err;
}
