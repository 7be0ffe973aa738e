/* SPDX-License-Identifier: Apache-2.0 */
/*
 * libFuzzer target: package parsing and the monitor-side install checks
 * on a real core.  Signatures cannot be forged by a fuzzer, so the
 * platform's verify is replaced by one that accepts any signature whose
 * first byte is 0x30 (DER SEQUENCE) from a key id starting with 0x00:
 * everything after the signature check is reachable.  Invariants: a
 * rejection changes nothing but appends one POLICY_REJECT record; an
 * accepted package becomes the installed policy with its epoch.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "uie/core.h"
#include "uie/err.h"
#include "uie/package.h"

#include "bloom.h"
#include "fuzz_platform.h"

#define MAX_RECS 8

struct ctx {
	uint8_t pcr[MAX_RECS + 1][UIE_PCR_LEN];
	size_t n;
	const struct uie_platform *pl;
};

static int append(void *c, const uint8_t rec[UIE_LOG_RECORD_LEN], const uint8_t lrh[UIE_PCR_LEN])
{
	struct ctx *x = c;

	(void)rec;
	if (x->n >= MAX_RECS)
		return UIE_E_LIMIT;
	memcpy(x->pcr[x->n + 1], x->pcr[x->n], UIE_PCR_LEN);
	if (uie_pcr_extend(x->pl, x->pcr[x->n + 1], lrh) != UIE_OK)
		return UIE_E_CRYPTO;
	x->n++;
	return UIE_OK;
}

static int pcr_at(void *c, uint64_t seq, uint8_t pcr[UIE_PCR_LEN])
{
	struct ctx *x = c;

	if (seq > x->n)
		return UIE_E_RANGE;
	memcpy(pcr, x->pcr[seq], UIE_PCR_LEN);
	return UIE_OK;
}

static int lax_verify(void *ctx, const uint8_t key_id[32], const uint8_t *digest, size_t dlen,
		      const uint8_t *sig, size_t siglen)
{
	(void)ctx;
	(void)digest;
	if (dlen != 32 || !siglen)
		abort();
	if (key_id[0] != 0)
		return UIE_E_KEY;
	return sig[0] == 0x30 ? UIE_OK : UIE_E_SIGNATURE;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct uie_host_platform *hp = fuzz_platform();
	struct ctx x = { 0 };
	struct uie_log_sink sink = { .ctx = &x, .append = append };
	struct uie_core c;
	struct uie_package p;
	const uint8_t *h;
	size_t hl;
	uint64_t seq;
	int r;

	hp->pl.verify = lax_verify;
	x.pl = &hp->pl;
	if (uie_core_init(&c, &hp->pl, &sink, UIE_HASH_SHA256) != UIE_OK)
		abort();
	r = uie_package_parse(&hp->pl, data, size, &p);
	if (r != UIE_OK && (r >= 0 || p.table || p.sig || p.epoch))
		abort();
	if (r == UIE_OK) {
		struct uie_bloom b;

		if (p.table_len + p.hint_len + p.sig_len + 2 + UIE_PACKAGE_HDR_LEN != size)
			abort();
		if (uie_bloom_parse(p.hint, p.hint_len, &b) == UIE_OK &&
		    b.nbits / 8 + UIE_BLOOM_HDR_LEN != p.hint_len)
			abort();
	}
	seq = c.next_seq;
	r = uie_package_install(&c, data, size, pcr_at, &x);
	if (c.next_seq != seq + 1 || x.n != c.next_seq)
		abort(); /* exactly one record either way */
	if (r != UIE_OK) {
		if (c.have_policy || c.epoch != 0 || c.mode != UIE_MODE_BOOTSTRAP)
			abort();
		return 0;
	}
	if (!c.have_policy || c.epoch != p.epoch || memcmp(c.policy_id, p.package_hash, 32) != 0)
		abort();
	if (uie_package_hint(&c, data, size, &h, &hl) == UIE_OK &&
	    (h != p.hint || hl != p.hint_len || c.policy.mode != UIE_MODE_ENFORCE))
		abort();
	return 0;
}
