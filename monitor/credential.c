/* SPDX-License-Identifier: Apache-2.0 */
/*
 * TPM_KEYS and ACTIVATE handlers: the vTPM's endorsement and attestation
 * keys, and TPM2_ActivateCredential for a verifier's challenge
 * (docs/FORMATS.md 5.8).  Answering any challenge is safe: the vTPM always
 * activates with its own AK, so a blob made for another AK's name is
 * refused by the vTPM itself.  Nothing is logged: the answer changes no
 * state of the monitor.
 */
#include <stdlib.h>
#include <string.h>

#include "credential.h"
#include "monitor.h"
#include "uie/err.h"
#include "vtpm.h"

_Static_assert(UIE_BRIDGE_CRED_MAX >= UIE_CRED_MAX, "every credential fits ACTIVATE_ANS");

/* A public area from alloc into a field of UIE_BRIDGE_TPM_PUBLIC_MAX bytes. */
static int take_public(int (*alloc)(struct uie_vtpm *, uint8_t **, size_t *), struct uie_vtpm *t,
		       uint8_t *dst, uint16_t *dst_len)
{
	uint8_t *p = NULL;
	size_t n = 0;
	int r;

	if ((r = alloc(t, &p, &n)) != UIE_OK)
		return r;
	if (n == 0 || n > UIE_BRIDGE_TPM_PUBLIC_MAX)
		r = UIE_E_LIMIT;
	else
		memcpy(dst, p, n);
	*dst_len = (uint16_t)(r == UIE_OK ? n : 0);
	free(p);
	return r;
}

int uie_mon_tpm_keys(struct uie_monitor *m, struct uie_mon_call *c)
{
	struct uie_msg_tpm_keys_ans *k = &c->a->u.tpm_keys_ans;
	int r;

	if (!m->tpm)
		return UIE_E_STATE;
	if ((r = take_public(uie_vtpm_ek_public_alloc, m->tpm, k->ek, &k->ek_len)) != UIE_OK)
		return r;
	return take_public(uie_vtpm_ak_public_alloc, m->tpm, k->ak, &k->ak_len);
}

int uie_mon_activate(struct uie_monitor *m, struct uie_mon_call *c)
{
	const struct uie_msg_activate_req *q = &c->q->u.activate_req;
	size_t n = 0;
	int r;

	if (!m->tpm)
		return UIE_E_STATE;
	r = uie_vtpm_activate_credential(m->tpm, q->blob, q->blob_len, q->secret, q->secret_len,
					 c->a->u.activate_ans.cred, &n);
	uie_mon_diag(m, "activate credential: %s", uie_err_str(r));
	if (r != UIE_OK)
		return r;
	c->a->u.activate_ans.len = (uint8_t)n;
	return UIE_OK;
}
