/* SPDX-License-Identifier: Apache-2.0 */
/*
 * libFuzzer target: the SEV-SNP parsers.  The first byte picks one: the
 * ATTESTATION_REPORT (an accepted report re-encodes to the same bytes and
 * its signature check never crashes), the SVSM services manifest (an
 * accepted one re-encodes to the same bytes, and the binding step never
 * accepts it for a report whose REPORT_DATA is not its hash), the GHCB
 * certificate table (re-encodes with the certificates it found), a
 * certificate's AMD extensions (DER through OpenSSL, then our extension
 * parser and the fit to a report), and the monitor's SNP bundle (an
 * accepted one packs back to the same bytes).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "snp_cert.h"
#include "snp_manifest.h"
#include "snp_tsm.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void report(const uint8_t *p, size_t n)
{
	struct uie_snp_report r;
	uint8_t buf[UIE_SNP_REPORT_LEN];
	struct uie_wbuf w;

	if (uie_snp_report_parse(p, n, &r, NULL) != UIE_OK)
		return;
	uie_wbuf_init(&w, buf, sizeof(buf));
	uie_snp_report_put(&w, &r);
	if (w.err != UIE_OK || w.len != n || memcmp(buf, p, n) != 0)
		abort();
}

static void manifest(const uint8_t *p, size_t n)
{
	static const uint8_t nonce[UIE_SNP_NONCE_LEN];
	struct uie_snp_manifest m;
	struct uie_snp_report r;
	const uint8_t *ek;
	uint8_t *buf;
	struct uie_wbuf w;
	size_t ek_len;

	memset(&r, 0, sizeof(r));
	if (uie_snp_vtpm_ek(&r, nonce, p, n, false, &ek, &ek_len, NULL) == UIE_OK)
		abort(); /* REPORT_DATA zero is no SHA-512 */
	if (uie_snp_binding(nonce, p, n, r.report_data) != UIE_OK)
		abort();
	if (uie_snp_vtpm_ek(&r, nonce, p, n, false, &ek, &ek_len, NULL) == UIE_OK &&
	    (ek < p || ek + ek_len > p + n))
		abort();
	if (uie_snp_manifest_parse(p, n, &m, NULL) != UIE_OK)
		return;
	if (!(buf = malloc(n ? n : 1)))
		abort();
	uie_wbuf_init(&w, buf, n);
	uie_snp_manifest_put(&w, &m);
	if (w.err != UIE_OK || w.len != n || memcmp(buf, p, n) != 0)
		abort();
	free(buf);
}

static void cert_table(const uint8_t *p, size_t n)
{
	struct uie_snp_cert_table t, back;
	uint8_t *buf;
	struct uie_wbuf w;
	size_t cap = 24 * (UIE_SNP_CERT__MAX + 1);

	if (uie_snp_cert_table_parse(p, n, &t, NULL) != UIE_OK)
		return;
	for (int k = 0; k < UIE_SNP_CERT__MAX; k++)
		if (t.der[k] && (t.der[k] < p || t.der[k] + t.len[k] > p + n))
			abort();
		else
			cap += t.len[k];
	if (!(buf = malloc(cap)))
		abort();
	uie_wbuf_init(&w, buf, cap);
	uie_snp_cert_table_put(&w, &t);
	if (w.err != UIE_OK || uie_snp_cert_table_parse(buf, w.len, &back, NULL) != UIE_OK)
		abort();
	for (int k = 0; k < UIE_SNP_CERT__MAX; k++)
		if (!t.der[k] != !back.der[k] || t.len[k] != back.len[k] ||
		    (t.der[k] && memcmp(t.der[k], back.der[k], t.len[k]) != 0))
			abort();
	free(buf);
}

static void cert(const uint8_t *p, size_t n)
{
	struct uie_snp_cert_ext e;
	struct uie_snp_report r;
	X509 *x;

	if (uie_snp_cert_parse_alloc(p, n, &x) != UIE_OK)
		return;
	memset(&r, 0, sizeof(r));
	r.version = 2;
	if (uie_snp_cert_ext_parse(x, &e, NULL) == UIE_OK)
		uie_snp_cert_check_report(&e, &r, NULL);
	X509_free(x);
}

static void bundle(const uint8_t *p, size_t n)
{
	struct uie_snp_tsm t;
	uint8_t *back;
	size_t len;

	if (uie_snp_tsm_unpack(p, n, &t, NULL) != UIE_OK)
		return;
	if (uie_snp_tsm_pack_alloc(&t, &back, &len) != UIE_OK || len != n || memcmp(back, p, n) != 0)
		abort();
	free(back);
	uie_snp_tsm_free(&t);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!size)
		return 0;
	switch (data[0] % 5) {
	case 0: report(data + 1, size - 1); break;
	case 1: manifest(data + 1, size - 1); break;
	case 2: cert_table(data + 1, size - 1); break;
	case 3: cert(data + 1, size - 1); break;
	default: bundle(data + 1, size - 1); break;
	}
	return 0;
}
