/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Compiled policy table (docs/FORMATS.md section 2): validation in place,
 * allocation-free O(log n) lookup, and the encoder the tools use.
 *
 * Rules are stored sorted by (digest, event, role, action) so a lookup is
 * one binary search for the digest followed by a scan of the few rules
 * that share it.  Because DENY (0) sorts before ALLOW (1), and the loader
 * refuses tables out of order, "deny before allow" does not depend on the
 * order in which a policy author wrote the rules.
 */
#include "uie/policy.h"

#include "uie/buf.h"
#include "uie/err.h"

#include "mem.h"

#define HDR_LEN 24
#define RULE_FIXED 4 /* event, role, action, reserved; the digest follows */

static bool mode_ok(uint8_t m)
{
	return m == UIE_MODE_MEASURE || m == UIE_MODE_ENFORCE;
}

static bool action_ok(uint8_t a)
{
	return a == UIE_DENY || a == UIE_ALLOW;
}

/* Rules name an object: role NONE never occurs in a request. */
static bool rule_fields_ok(uint8_t event, uint8_t role, uint8_t action)
{
	return uie_event_role_valid(event, role) && action_ok(action);
}

/* Canonical order of two encoded rules. */
static int raw_cmp(const uint8_t *a, const uint8_t *b, size_t dlen)
{
	int c = uie_memcmp(a + RULE_FIXED, b + RULE_FIXED, dlen);

	for (int i = 0; c == 0 && i < 3; i++)
		c = (int)a[i] - (int)b[i];
	return c;
}

int uie_policy_rule_cmp(const struct uie_policy_rule *a, const struct uie_policy_rule *b, size_t dlen)
{
	int c = uie_memcmp(a->digest, b->digest, dlen);

	if (c == 0)
		c = (int)a->event - (int)b->event;
	if (c == 0)
		c = (int)a->role - (int)b->role;
	if (c == 0)
		c = (int)a->action - (int)b->action;
	return c;
}

size_t uie_policy_encoded_len(uint16_t hash_alg, uint32_t n)
{
	size_t dlen = uie_hash_len(hash_alg);

	if (!dlen || n > UIE_POLICY_MAX_RULES)
		return 0;
	return HDR_LEN + (size_t)n * (RULE_FIXED + dlen);
}

static int header_parse(struct uie_rbuf *b, struct uie_policy *p)
{
	int r;

	if ((r = uie_rbuf_magic_version(b, UIE_POLICY_MAGIC, 8, UIE_POLICY_VERSION)) != UIE_OK)
		return r;
	if ((r = uie_rbuf_u16(b, &p->hash_alg)) != UIE_OK || (r = uie_rbuf_u8(b, &p->mode)) != UIE_OK ||
	    (r = uie_rbuf_u8(b, &p->default_action)) != UIE_OK)
		return r;
	if (!uie_hash_len(p->hash_alg))
		return UIE_E_ALG;
	if (!mode_ok(p->mode) || !action_ok(p->default_action))
		return UIE_E_FORMAT;
	if ((r = uie_rbuf_u16(b, &p->flags)) != UIE_OK || (r = uie_rbuf_u32(b, &p->nrules)) != UIE_OK ||
	    (r = uie_rbuf_u32(b, &p->trusted_fs)) != UIE_OK)
		return r;
	if ((p->flags & ~UIE_POLICY_FLAGS_ALL) || (p->trusted_fs & ~UIE_POLICY_FS_ALL))
		return UIE_E_FORMAT;
	if (p->nrules > UIE_POLICY_MAX_RULES)
		return UIE_E_LIMIT;
	return UIE_OK;
}

static int policy_load(const void *buf, size_t len, struct uie_policy *p)
{
	struct uie_rbuf b;
	size_t need;
	int r;

	uie_rbuf_init(&b, buf, len);
	if ((r = header_parse(&b, p)) != UIE_OK)
		return r;
	p->rule_len = RULE_FIXED + (uint32_t)uie_hash_len(p->hash_alg);
	need = (size_t)p->nrules * p->rule_len;
	if (uie_rbuf_left(&b) < need)
		return UIE_E_TRUNCATED;
	if (uie_rbuf_left(&b) > need)
		return UIE_E_FORMAT;
	p->rules = uie_rbuf_cur(&b);
	for (uint32_t i = 0; i < p->nrules; i++) {
		const uint8_t *q = p->rules + (size_t)i * p->rule_len;

		if (!rule_fields_ok(q[0], q[1], q[2]) || q[3] != 0)
			return UIE_E_FORMAT;
		if (i && raw_cmp(q - p->rule_len, q, p->rule_len - RULE_FIXED) >= 0)
			return UIE_E_ORDER;
	}
	return UIE_OK;
}

int uie_policy_load(const void *buf, size_t len, struct uie_policy *out)
{
	int r = uie_out_begin(out, sizeof(*out), buf != NULL);

	return r != UIE_OK ? r : uie_out_end(out, sizeof(*out), policy_load(buf, len, out));
}

void uie_policy_lookup(const struct uie_policy *pol, uint8_t event, uint8_t role, const uint8_t *digest,
		       uint8_t *decision, uint16_t *reason)
{
	size_t lo = 0, hi, dlen;
	bool allow = false;

	/* Fail closed on a missing table or digest. */
	*decision = UIE_DENY;
	*reason = UIE_R_DEFAULT;
	if (!pol || !digest || pol->rule_len <= RULE_FIXED)
		return;
	dlen = pol->rule_len - RULE_FIXED;
	/* Lower bound: the first rule whose digest is not below the key. */
	hi = pol->nrules;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (uie_memcmp(pol->rules + mid * pol->rule_len + RULE_FIXED, digest, dlen) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < pol->nrules; lo++) {
		const uint8_t *q = pol->rules + lo * pol->rule_len;

		if (uie_memcmp(q + RULE_FIXED, digest, dlen) != 0)
			break;
		if (q[0] != event || q[1] != role)
			continue;
		if (q[2] == UIE_DENY) {
			*reason = UIE_R_RULE_DENY;
			return;
		}
		allow = true;
	}
	if (allow) {
		*decision = UIE_ALLOW;
		*reason = UIE_R_RULE_ALLOW;
	} else {
		*decision = pol->default_action;
	}
}

int uie_policy_encode(uint8_t mode, uint8_t default_action, uint16_t hash_alg,
		      const struct uie_policy_rule *rules, uint32_t n, uint8_t *out, size_t cap,
		      size_t *outlen)
{
	return uie_policy_encode_sources(mode, default_action, hash_alg, NULL, rules, n, out, cap, outlen);
}

int uie_policy_encode_sources(uint8_t mode, uint8_t default_action, uint16_t hash_alg,
			      const struct uie_policy_sources *src, const struct uie_policy_rule *rules,
			      uint32_t n, uint8_t *out, size_t cap, size_t *outlen)
{
	static const struct uie_policy_sources none = { 0 };
	size_t dlen = uie_hash_len(hash_alg);
	struct uie_wbuf w;

	if (!src)
		src = &none;

	if (outlen)
		*outlen = 0;
	if (!out || !outlen || (n && !rules))
		return UIE_E_INVAL;
	if (!dlen)
		return UIE_E_ALG;
	if (!mode_ok(mode) || !action_ok(default_action) || (src->flags & ~UIE_POLICY_FLAGS_ALL) ||
	    (src->trusted_fs & ~UIE_POLICY_FS_ALL))
		return UIE_E_INVAL;
	if (n > UIE_POLICY_MAX_RULES)
		return UIE_E_LIMIT;
	if (uie_policy_encoded_len(hash_alg, n) > cap)
		return UIE_E_OVERFLOW;
	for (uint32_t i = 0; i < n; i++) {
		if (!rule_fields_ok(rules[i].event, rules[i].role, rules[i].action))
			return UIE_E_INVAL;
		if (i && uie_policy_rule_cmp(&rules[i - 1], &rules[i], dlen) >= 0)
			return UIE_E_ORDER;
	}
	uie_wbuf_init(&w, out, cap);
	uie_wbuf_bytes(&w, UIE_POLICY_MAGIC, 8);
	uie_wbuf_u16(&w, UIE_POLICY_VERSION);
	uie_wbuf_u16(&w, hash_alg);
	uie_wbuf_u8(&w, mode);
	uie_wbuf_u8(&w, default_action);
	uie_wbuf_u16(&w, src->flags);
	uie_wbuf_u32(&w, n);
	uie_wbuf_u32(&w, src->trusted_fs);
	for (uint32_t i = 0; i < n; i++) {
		uie_wbuf_u8(&w, rules[i].event);
		uie_wbuf_u8(&w, rules[i].role);
		uie_wbuf_u8(&w, rules[i].action);
		uie_wbuf_zero(&w, 1);
		uie_wbuf_bytes(&w, rules[i].digest, dlen);
	}
	if (w.err != UIE_OK)
		return w.err;
	*outlen = w.len;
	return UIE_OK;
}
