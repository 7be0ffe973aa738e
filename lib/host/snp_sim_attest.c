/* SPDX-License-Identifier: Apache-2.0 */
/* An SVSM's answer to an attestation request, simulated (snp_sim.h). */
#include <stdlib.h>
#include <string.h>

#include "snp_sim.h"

#define SIGNING_KEY_MASK (7u << 2)

/* The manifest: ek alone, or a GUID table of the one vTPM service. */
static int manifest(const uint8_t *ek, size_t ek_len, bool single, struct uie_snp_tsm *out)
{
	struct uie_snp_manifest m = { .n = 1 };
	struct uie_wbuf w;
	size_t cap = ek_len + 48;

	if (ek_len > UIE_SNP_MANIFEST_MAX - 48)
		return UIE_E_LIMIT;
	if (!(out->manifest = malloc(cap)))
		return UIE_E_NOMEM;
	if (single) {
		memcpy(out->manifest, ek, ek_len);
		out->manifest_len = ek_len;
		return UIE_OK;
	}
	uie_guid_parse(UIE_SNP_GUID_VTPM, m.s[0].guid);
	m.s[0].data = ek;
	m.s[0].size = (uint32_t)ek_len;
	uie_wbuf_init(&w, out->manifest, cap);
	uie_snp_manifest_put(&w, &m);
	out->manifest_len = w.len;
	return w.err;
}

/* The auxblob: s's VCEK, ASK and ARK in a GHCB certificate table. */
static int aux(const struct uie_snp_sim *s, struct uie_snp_tsm *out)
{
	X509 *const certs[UIE_SNP_CERT__MAX] = {
		[UIE_SNP_CERT_VCEK] = s->vcek, [UIE_SNP_CERT_ASK] = s->ask, [UIE_SNP_CERT_ARK] = s->ark
	};
	unsigned char *der[UIE_SNP_CERT__MAX] = { NULL };
	struct uie_snp_cert_table t;
	struct uie_wbuf w;
	size_t cap = (size_t)24 * (UIE_SNP_CERT__MAX + 1);
	int r = UIE_OK, n;

	memset(&t, 0, sizeof(t));
	for (int k = 0; r == UIE_OK && k < UIE_SNP_CERT__MAX; k++) {
		if (!certs[k])
			continue;
		if ((n = i2d_X509(certs[k], &der[k])) <= 0)
			r = UIE_E_CRYPTO;
		t.der[k] = der[k];
		t.len[k] = n > 0 ? (size_t)n : 0;
		cap += t.len[k];
	}
	if (r == UIE_OK && !(out->aux = malloc(cap)))
		r = UIE_E_NOMEM;
	if (r == UIE_OK) {
		uie_wbuf_init(&w, out->aux, cap);
		uie_snp_cert_table_put(&w, &t);
		out->aux_len = w.len;
		r = w.err;
	}
	for (int k = 0; k < UIE_SNP_CERT__MAX; k++)
		OPENSSL_free(der[k]);
	return r;
}

int uie_snp_sim_attest(const struct uie_snp_sim *s, const struct uie_snp_report *tmpl,
		       const uint8_t nonce[UIE_SNP_NONCE_LEN], const uint8_t *ek, size_t ek_len, bool single,
		       struct uie_snp_tsm *out)
{
	struct uie_snp_cert_ext e;
	struct uie_snp_report rep;
	struct uie_wbuf w;
	int r = uie_out_begin(out, sizeof(*out), s && s->vcek_key && tmpl && nonce && ek);

	if (r != UIE_OK || (r = uie_snp_cert_ext_parse(s->vcek, &e, NULL)) != UIE_OK)
		return r;
	rep = *tmpl;
	rep.key_info = (rep.key_info & ~SIGNING_KEY_MASK) |
		       ((e.vlek ? UIE_SNP_KEY_VLEK : UIE_SNP_KEY_VCEK) << 2);
	out->single = single;
	if ((r = manifest(ek, ek_len, single, out)) == UIE_OK &&
	    (r = uie_snp_binding(nonce, out->manifest, out->manifest_len, rep.report_data)) == UIE_OK &&
	    (r = (out->report = malloc(UIE_SNP_REPORT_LEN)) ? UIE_OK : UIE_E_NOMEM) == UIE_OK) {
		uie_wbuf_init(&w, out->report, UIE_SNP_REPORT_LEN);
		uie_snp_report_put(&w, &rep);
		out->report_len = w.len;
		if ((r = w.err) == UIE_OK && (r = uie_snp_sim_sign(out->report, s->vcek_key)) == UIE_OK)
			r = aux(s, out);
	}
	if (r != UIE_OK)
		uie_snp_tsm_free(out);
	return r;
}
