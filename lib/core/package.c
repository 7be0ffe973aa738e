/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Signed policy packages (docs/FORMATS.md section 4): strict parsing and the
 * monitor-side installation checks.  Order matters: nothing the package
 * says is believed before its signature verifies, and nothing changes in
 * the core unless every check passed; a rejection only appends a
 * POLICY_REJECT record.
 */
#include "uie/package.h"

#include "uie/buf.h"
#include "uie/err.h"

#include "bloom.h"
#include "mem.h"

static int header_parse(struct uie_rbuf *b, struct uie_package *p, uint32_t *tl, uint32_t *hl)
{
	int r;

	if ((r = uie_rbuf_magic_version(b, UIE_PACKAGE_MAGIC, 8, UIE_PACKAGE_VERSION)) != UIE_OK)
		return r;
	p->version = UIE_PACKAGE_VERSION;
	if ((r = uie_rbuf_u16(b, &p->sig_alg)) != UIE_OK || (r = uie_rbuf_u16(b, &p->hash_alg)) != UIE_OK)
		return r;
	if (p->sig_alg != UIE_SIG_ECDSA_P256_SHA256 || !uie_hash_len(p->hash_alg))
		return UIE_E_ALG;
	if ((r = uie_rbuf_zero(b, 2)) != UIE_OK || (r = uie_rbuf_u64(b, &p->epoch)) != UIE_OK ||
	    (r = uie_rbuf_u64(b, &p->bind_seq)) != UIE_OK ||
	    (r = uie_rbuf_bytes(b, p->bind_pcr, UIE_PCR_LEN)) != UIE_OK ||
	    (r = uie_rbuf_bytes(b, p->key_id, UIE_SHA256_LEN)) != UIE_OK ||
	    (r = uie_rbuf_u32(b, tl)) != UIE_OK || (r = uie_rbuf_u32(b, hl)) != UIE_OK)
		return r;
	return UIE_OK;
}

static int package_parse(const struct uie_platform *pl, const uint8_t *buf, size_t len, struct uie_package *p)
{
	struct uie_rbuf b;
	uint32_t tl, hl;
	uint16_t sl;
	size_t signed_len;
	int r;

	if (len > UIE_PACKAGE_MAX_LEN)
		return UIE_E_LIMIT;
	uie_rbuf_init(&b, buf, len);
	if ((r = header_parse(&b, p, &tl, &hl)) != UIE_OK)
		return r;
	if (tl == 0)
		return UIE_E_FORMAT;
	/* Both lengths are u32 and len is capped: the sums cannot overflow size_t. */
	if ((r = uie_rbuf_view(&b, &p->table, tl)) != UIE_OK)
		return r;
	p->table_len = tl;
	if ((r = uie_rbuf_view(&b, &p->hint, hl)) != UIE_OK)
		return r;
	p->hint_len = hl;
	if (!hl)
		p->hint = NULL;
	signed_len = b.off;
	if ((r = uie_rbuf_u16(&b, &sl)) != UIE_OK)
		return r;
	if (sl == 0 || sl > UIE_PACKAGE_MAX_SIG)
		return UIE_E_FORMAT;
	if ((r = uie_rbuf_view(&b, &p->sig, sl)) != UIE_OK || (r = uie_rbuf_end(&b)) != UIE_OK)
		return r;
	p->sig_len = sl;
	return uie_hash_buf(pl, UIE_HASH_SHA256, buf, signed_len, p->package_hash);
}

int uie_package_parse(const struct uie_platform *pl, const uint8_t *buf, size_t len, struct uie_package *out)
{
	int r = uie_out_begin(out, sizeof(*out), pl && buf);

	return r != UIE_OK ? r : uie_out_end(out, sizeof(*out), package_parse(pl, buf, len, out));
}

/* The binding: vPCR16 after the first bind_seq records equals bind_pcr. */
static int binding_check(const struct uie_core *c, const struct uie_package *p,
			 int (*pcr_at)(void *ctx, uint64_t seq, uint8_t pcr[UIE_PCR_LEN]), void *pcr_ctx)
{
	uint8_t pcr[UIE_PCR_LEN];
	int r;

	/* An empty prefix binds to nothing: every package names at least MONITOR_START. */
	if (p->bind_seq == 0 || p->bind_seq > c->next_seq)
		return UIE_E_BINDING;
	if (p->bind_seq == c->next_seq) {
		uie_memcpy(pcr, c->vpcr, UIE_PCR_LEN);
	} else {
		if (!pcr_at)
			return UIE_E_BINDING;
		if ((r = pcr_at(pcr_ctx, p->bind_seq, pcr)) != UIE_OK)
			return r;
	}
	return uie_memcmp(pcr, p->bind_pcr, UIE_PCR_LEN) == 0 ? UIE_OK : UIE_E_BINDING;
}

static int package_check(const struct uie_core *c, const struct uie_package *p,
			 int (*pcr_at)(void *ctx, uint64_t seq, uint8_t pcr[UIE_PCR_LEN]), void *pcr_ctx)
{
	struct uie_policy pol;
	int r;

	if (!c->pl->verify)
		return UIE_E_KEY;
	r = c->pl->verify(c->pl->ctx, p->key_id, p->package_hash, UIE_SHA256_LEN, p->sig, p->sig_len);
	if (r != UIE_OK)
		return r == UIE_E_KEY ? UIE_E_KEY : UIE_E_SIGNATURE;
	if (p->epoch <= c->epoch || p->epoch > UIE_EPOCH_MAX)
		return UIE_E_EPOCH;
	if ((r = binding_check(c, p, pcr_at, pcr_ctx)) != UIE_OK)
		return r;
	if ((r = uie_policy_load(p->table, p->table_len, &pol)) != UIE_OK)
		return r;
	return pol.hash_alg == p->hash_alg ? UIE_OK : UIE_E_ALG;
}

int uie_package_install(struct uie_core *c, const uint8_t *buf, size_t len,
			int (*pcr_at)(void *ctx, uint64_t seq, uint8_t pcr[UIE_PCR_LEN]), void *pcr_ctx)
{
	struct uie_package p;
	uint8_t id[UIE_SHA256_LEN];
	uint64_t epoch = 0;
	int r;

	if (!c || !c->pl)
		return UIE_E_INVAL;
	uie_memset(id, 0, sizeof(id));
	r = uie_package_parse(c->pl, buf, len, &p);
	if (r == UIE_OK) {
		epoch = p.epoch;
		uie_memcpy(id, p.package_hash, sizeof(id));
		r = package_check(c, &p, pcr_at, pcr_ctx);
	} else if (buf && len <= UIE_PACKAGE_MAX_LEN) {
		/* Unparsable: the record names the bytes that were offered. */
		if (uie_hash_buf(c->pl, UIE_HASH_SHA256, buf, len, id) != UIE_OK)
			uie_memset(id, 0, sizeof(id));
	}
	if (r == UIE_OK)
		r = uie_core_install(c, p.table, p.table_len, p.epoch, p.package_hash);
	if (r != UIE_OK)
		(void)uie_core_log_reject(c, epoch, id, r); /* best effort: r is what counts */
	return r;
}

int uie_package_restore(struct uie_core *c, const uint8_t *buf, size_t len,
			const uint8_t want_hash[UIE_SHA256_LEN], uint64_t want_epoch)
{
	struct uie_package p;
	struct uie_policy pol;
	int r;

	if (!c || !c->pl || !want_hash)
		return UIE_E_INVAL;
	if ((r = uie_package_parse(c->pl, buf, len, &p)) != UIE_OK)
		return r;
	if (uie_memcmp(p.package_hash, want_hash, UIE_SHA256_LEN) != 0 || p.epoch != want_epoch)
		return UIE_E_BINDING;
	if (!c->pl->verify)
		return UIE_E_KEY;
	r = c->pl->verify(c->pl->ctx, p.key_id, p.package_hash, UIE_SHA256_LEN, p.sig, p.sig_len);
	if (r != UIE_OK)
		return r == UIE_E_KEY ? UIE_E_KEY : UIE_E_SIGNATURE;
	if ((r = uie_policy_load(p.table, p.table_len, &pol)) != UIE_OK)
		return r;
	if (pol.hash_alg != p.hash_alg)
		return UIE_E_ALG;
	return uie_core_restore(c, p.table, p.table_len, p.epoch, p.package_hash);
}

int uie_package_hint(const struct uie_core *c, const uint8_t *buf, size_t len, const uint8_t **hint,
		     size_t *hint_len)
{
	struct uie_package p;
	struct uie_bloom b;
	int r;

	if (hint)
		*hint = NULL;
	if (hint_len)
		*hint_len = 0;
	if (!c || !hint || !hint_len)
		return UIE_E_INVAL;
	if ((r = uie_package_parse(c->pl, buf, len, &p)) != UIE_OK)
		return r;
	if (!c->have_policy || c->epoch != p.epoch ||
	    uie_memcmp(c->policy_id, p.package_hash, UIE_SHA256_LEN) != 0)
		return UIE_E_STATE;
	if (!p.hint)
		return UIE_E_NOTFOUND;
	if ((r = uie_bloom_parse(p.hint, p.hint_len, &b)) != UIE_OK ||
	    (r = uie_bloom_check_policy(&b, &c->policy, c->epoch)) != UIE_OK)
		return r;
	*hint = p.hint;
	*hint_len = p.hint_len;
	return UIE_OK;
}

int uie_package_encode(const struct uie_package *p, uint8_t *out, size_t cap, size_t *outlen)
{
	struct uie_wbuf w;

	if (outlen)
		*outlen = 0;
	if (!p || !out || !outlen || !p->table || (p->hint_len && !p->hint) || (p->sig_len && !p->sig))
		return UIE_E_INVAL;
	if (p->table_len > UINT32_MAX || p->hint_len > UINT32_MAX || p->sig_len > UIE_PACKAGE_MAX_SIG ||
	    p->table_len + p->hint_len > UIE_PACKAGE_MAX_LEN)
		return UIE_E_LIMIT;
	uie_wbuf_init(&w, out, cap);
	uie_wbuf_bytes(&w, UIE_PACKAGE_MAGIC, 8);
	uie_wbuf_u16(&w, p->version);
	uie_wbuf_u16(&w, p->sig_alg);
	uie_wbuf_u16(&w, p->hash_alg);
	uie_wbuf_zero(&w, 2);
	uie_wbuf_u64(&w, p->epoch);
	uie_wbuf_u64(&w, p->bind_seq);
	uie_wbuf_bytes(&w, p->bind_pcr, UIE_PCR_LEN);
	uie_wbuf_bytes(&w, p->key_id, UIE_SHA256_LEN);
	uie_wbuf_u32(&w, (uint32_t)p->table_len);
	uie_wbuf_u32(&w, (uint32_t)p->hint_len);
	uie_wbuf_bytes(&w, p->table, p->table_len);
	if (p->hint_len)
		uie_wbuf_bytes(&w, p->hint, p->hint_len);
	if (p->sig) {
		uie_wbuf_u16(&w, (uint16_t)p->sig_len);
		uie_wbuf_bytes(&w, p->sig, p->sig_len);
	}
	if (w.err != UIE_OK)
		return w.err;
	*outlen = w.len;
	return UIE_OK;
}
