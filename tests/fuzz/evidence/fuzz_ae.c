/* SPDX-License-Identifier: Apache-2.0 */
/*
 * libFuzzer target: AE parsing, the TPM structures inside it, and the
 * verifier's replay-and-audit pass.  An accepted AE must rebuild to the
 * same bytes; accepted TPM structures must re-marshal to the same bytes;
 * the log pass must classify without crashing and never accept a log
 * that does not replay to the AE's vPCR16.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "evidence.h"
#include "tpm_marshal.h"
#include "uie/err.h"
#include "fuzz_platform.h"
#include "verify.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_tpm(const struct uie_ae *a)
{
	struct uie_tpm_quote q;
	struct uie_tpm_ecdsa_sig s;
	uint8_t buf[UIE_TPM_ATTEST_MAX + 64];
	struct uie_wbuf w;

	if (uie_tpm_quote_parse(a->attest, a->attest_len, &q) == UIE_OK) {
		uie_wbuf_init(&w, buf, sizeof(buf));
		uie_tpm_quote_put(&w, &q);
		if (w.err != UIE_OK || w.len != a->attest_len || memcmp(buf, a->attest, w.len))
			abort();
	}
	if (uie_tpm_sig_parse(a->sig, a->sig_len, &s) == UIE_OK) {
		uie_wbuf_init(&w, buf, sizeof(buf));
		uie_tpm_sig_put(&w, &s);
		if (w.err != UIE_OK || w.len != a->sig_len || memcmp(buf, a->sig, w.len))
			abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct uie_host_platform *vp = fuzz_platform();
	struct uie_verify_input in;
	struct uie_verify_report rep;
	struct uie_ae a;
	uint8_t *out, pcr[UIE_PCR_LEN];
	uint64_t bad;
	size_t len;
	int cls;

	if (uie_ae_parse(data, size, &a) != UIE_OK)
		return 0;
	if (uie_ae_build_alloc(&a, &out, &len) != UIE_OK || len != size || memcmp(out, data, size))
		abort();
	free(out);
	check_tpm(&a);
	memset(&in, 0, sizeof(in));
	in.ae = data;
	in.ae_len = size;
	in.nonce = a.nonce;
	in.nonce_len = a.nonce_len;
	cls = uie_verify_log_walk(&vp->pl, &in, &a, NULL, &rep);
	if (cls == UIE_V_OK) {
		memcpy(pcr, a.start_pcr, sizeof(pcr));
		if (uie_log_replay(&vp->pl, a.records, (size_t)a.nrecords * UIE_LOG_RECORD_LEN, a.first_seq,
				   pcr, &bad) != UIE_OK ||
		    memcmp(pcr, a.vpcr, sizeof(pcr)) != 0)
			abort();
	}
	return 0;
}
