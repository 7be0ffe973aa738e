/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Signed packages against a real core: installation, updates, and every
 * rejection leaving the core as it was apart from its POLICY_REJECT record.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "uie/buf.h"
#include "uie/err.h"
#include "uie/package.h"

#include "bloom.h"
#include "keys.h"
#include "pubkey.h"
#include "ptest.h"
#include "tcommon.h"

static const uint8_t digests[3][32] = { { 0x11, 0x22 }, { 0x33, 0x44 }, { 0x55, 0x66 } };

struct fx {
	struct pt_core pc;
	EVP_PKEY *key, *stranger;
	uint8_t table[512];
	size_t tlen;
};

static int setup(void **state)
{
	struct fx *f = calloc(1, sizeof(*f));

	pt_core_init(&f->pc);
	f->key = pt_key(&f->pc, true);
	f->stranger = pt_key(&f->pc, false);
	f->tlen = pt_table(f->table, sizeof(f->table), UIE_MODE_ENFORCE, UIE_DENY, digests, 2);
	pt_core_event(&f->pc, 0xaa);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fx *f = *state;

	EVP_PKEY_free(f->key);
	EVP_PKEY_free(f->stranger);
	pt_core_fini(&f->pc);
	free(f);
	return 0;
}

static int install(struct fx *f, const uint8_t *pkg, size_t len)
{
	return uie_package_install(&f->pc.core, pkg, len, pt_pcr_at, &f->pc);
}

/* Installs pkg expecting err and checks the core did not change otherwise. */
static void expect_reject(struct fx *f, const uint8_t *pkg, size_t len, int err)
{
	struct pt_snap s;

	pt_snap(&f->pc, &s);
	assert_int_equal(install(f, pkg, len), err);
	pt_assert_rejected(&f->pc, &s, err);
}

static void test_install_then_update(void **state)
{
	struct fx *f = *state;
	struct uie_package p;
	uint8_t t2[512];
	size_t len, l2, t2len;
	uint8_t *pkg = pt_package(&f->pc, f->key, f->table, f->tlen, 1, false, &len), *pkg2;

	assert_int_equal(install(f, pkg, len), UIE_OK);
	assert_int_equal(f->pc.core.mode, UIE_MODE_ENFORCE);
	assert_int_equal(f->pc.core.epoch, 1);
	assert_true(f->pc.core.have_policy);
	assert_int_equal(uie_package_parse(&f->pc.hp.pl, pkg, len, &p), UIE_OK);
	assert_memory_equal(f->pc.core.policy_id, p.package_hash, 32);
	pt_core_event(&f->pc, 0xbb);
	/* An update with a third program, bound to an older prefix of the log. */
	t2len = pt_table(t2, sizeof(t2), UIE_MODE_ENFORCE, UIE_DENY, digests, 3);
	pkg2 = pt_package(&f->pc, f->key, t2, t2len, 7, false, &l2);
	assert_int_equal(install(f, pkg2, l2), UIE_OK);
	assert_int_equal(f->pc.core.epoch, 7);
	assert_int_equal(f->pc.core.policy.nrules, 3);
	free(pkg);
	free(pkg2);
}

static void test_reject_signature(void **state)
{
	struct fx *f = *state;
	size_t len;
	uint8_t *pkg = pt_package(&f->pc, f->key, f->table, f->tlen, 1, false, &len);

	/* A table byte changed after signing: the digest no longer matches. */
	pkg[UIE_PACKAGE_HDR_LEN + 30] ^= 1;
	expect_reject(f, pkg, len, UIE_E_SIGNATURE);
	pkg[UIE_PACKAGE_HDR_LEN + 30] ^= 1;
	/* The signature itself damaged (last byte of the DER). */
	pkg[len - 1] ^= 0x40;
	expect_reject(f, pkg, len, UIE_E_SIGNATURE);
	free(pkg);
}

static void test_reject_unknown_key(void **state)
{
	struct fx *f = *state;
	size_t len;
	uint8_t *pkg = pt_package(&f->pc, f->stranger, f->table, f->tlen, 1, false, &len);

	expect_reject(f, pkg, len, UIE_E_KEY);
	free(pkg);
}

static void test_reject_epoch(void **state)
{
	struct fx *f = *state;
	size_t l1, l2, l3;
	uint8_t *p1 = pt_package(&f->pc, f->key, f->table, f->tlen, 5, false, &l1), *p2, *p3;

	assert_int_equal(install(f, p1, l1), UIE_OK);
	p2 = pt_package(&f->pc, f->key, f->table, f->tlen, 5, false, &l2); /* equal */
	expect_reject(f, p2, l2, UIE_E_EPOCH);
	p3 = pt_package(&f->pc, f->key, f->table, f->tlen, 4, false, &l3); /* rollback */
	expect_reject(f, p3, l3, UIE_E_EPOCH);
	/* Replaying the installed package itself is a rollback too. */
	expect_reject(f, p1, l1, UIE_E_EPOCH);
	free(p1);
	free(p2);
	free(p3);
}

static void test_reject_epoch_zero_in_bootstrap(void **state)
{
	struct fx *f = *state;
	size_t len;
	uint8_t *pkg = pt_package(&f->pc, f->key, f->table, f->tlen, 1, false, &len);
	struct uie_package p;

	uint8_t *zero;

	assert_int_equal(uie_package_parse(&f->pc.hp.pl, pkg, len, &p), UIE_OK);
	p.epoch = 0;
	zero = pt_sign(f->key, &p, &len); /* p still points into pkg */
	expect_reject(f, zero, len, UIE_E_EPOCH);
	free(zero);
	free(pkg);
}

/* Epochs above UIE_EPOCH_MAX (2^63-1) are refused; the ceiling itself installs. */
static void test_reject_epoch_above_ceiling(void **state)
{
	struct fx *f = *state;
	size_t l1, l2, l3;
	uint8_t *max = pt_package(&f->pc, f->key, f->table, f->tlen, UINT64_MAX, false, &l1);
	uint8_t *over = pt_package(&f->pc, f->key, f->table, f->tlen, UIE_EPOCH_MAX + 1, false, &l2);
	uint8_t *top = pt_package(&f->pc, f->key, f->table, f->tlen, UIE_EPOCH_MAX, false, &l3);

	expect_reject(f, max, l1, UIE_E_EPOCH);
	expect_reject(f, over, l2, UIE_E_EPOCH);
	assert_int_equal(install(f, top, l3), UIE_OK);
	assert_true(f->pc.core.epoch == UIE_EPOCH_MAX);
	free(max);
	free(over);
	free(top);
}

/* Re-signs a parsed package after edit() so only the edited field is wrong. */
static uint8_t *resign(struct fx *f, uint64_t epoch, void (*edit)(struct uie_package *, struct fx *),
		       size_t *len)
{
	size_t l0;
	uint8_t *p0 = pt_package(&f->pc, f->key, f->table, f->tlen, epoch, false, &l0), *out;
	struct uie_package p;

	assert_int_equal(uie_package_parse(&f->pc.hp.pl, p0, l0, &p), UIE_OK);
	edit(&p, f);
	out = pt_sign(f->key, &p, len);
	free(p0);
	return out;
}

static void edit_pcr(struct uie_package *p, struct fx *f)
{
	(void)f;
	p->bind_pcr[0] ^= 1;
}

static void edit_seq_zero(struct uie_package *p, struct fx *f)
{
	(void)f;
	p->bind_seq = 0;
	memset(p->bind_pcr, 0, sizeof(p->bind_pcr)); /* the true value of the empty prefix */
}

static void edit_seq_future(struct uie_package *p, struct fx *f)
{
	p->bind_seq = f->pc.n + 1;
}

static void edit_seq_older(struct uie_package *p, struct fx *f)
{
	/* The value of the 1-record prefix under the 2-record claim. */
	p->bind_seq = 2;
	memcpy(p->bind_pcr, f->pc.pcr[1], 32);
}

static void edit_version(struct uie_package *p, struct fx *f)
{
	(void)f;
	p->version = 2;
}

static void edit_sig_alg(struct uie_package *p, struct fx *f)
{
	(void)f;
	p->sig_alg = 0x0014; /* TPM_ALG_RSASSA */
}

static void edit_hash_alg(struct uie_package *p, struct fx *f)
{
	(void)f;
	p->hash_alg = 0x0004; /* TPM_ALG_SHA1 */
}

static void edit_hash_mismatch(struct uie_package *p, struct fx *f)
{
	(void)f;
	p->hash_alg = UIE_HASH_SHA384; /* the table is SHA-256 */
}

static uint8_t bad_table[64];

static void edit_table(struct uie_package *p, struct fx *f)
{
	memcpy(bad_table, f->table, 24);
	bad_table[8] = 9; /* table version */
	p->table = bad_table;
	p->table_len = 24;
}

static void test_reject_binding(void **state)
{
	struct fx *f = *state;
	void (*edits[])(struct uie_package *, struct fx *) = { edit_pcr, edit_seq_zero, edit_seq_future,
							       edit_seq_older };

	for (size_t i = 0; i < sizeof(edits) / sizeof(edits[0]); i++) {
		size_t len;
		uint8_t *pkg = resign(f, 1, edits[i], &len);

		expect_reject(f, pkg, len, UIE_E_BINDING);
		free(pkg);
	}
}

static void test_binding_to_older_prefix(void **state)
{
	struct fx *f = *state;
	size_t len;
	uint8_t *pkg = pt_package(&f->pc, f->key, f->table, f->tlen, 1, false, &len);
	struct uie_package p;

	/* Events logged between the TTP's export and installation do not break the binding. */
	pt_core_event(&f->pc, 0x01);
	pt_core_event(&f->pc, 0x02);
	assert_int_equal(uie_package_parse(&f->pc.hp.pl, pkg, len, &p), UIE_OK);
	assert_true(p.bind_seq < f->pc.core.next_seq);
	assert_int_equal(install(f, pkg, len), UIE_OK);
	free(pkg);
}

static void test_reject_format(void **state)
{
	struct fx *f = *state;
	static const struct {
		void (*edit)(struct uie_package *, struct fx *);
		int err;
	} cases[] = {
		{ edit_version, UIE_E_VERSION }, { edit_sig_alg, UIE_E_ALG },
		{ edit_hash_alg, UIE_E_ALG },    { edit_hash_mismatch, UIE_E_ALG },
		{ edit_table, UIE_E_VERSION },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		size_t len;
		uint8_t *pkg = resign(f, 1, cases[i].edit, &len);

		expect_reject(f, pkg, len, cases[i].err);
		free(pkg);
	}
}

static void test_reject_truncated_and_trailing(void **state)
{
	struct fx *f = *state;
	size_t len;
	uint8_t *pkg = pt_package(&f->pc, f->key, f->table, f->tlen, 1, false, &len), *big;
	size_t cuts[] = { 0, 1, 8, 50, UIE_PACKAGE_HDR_LEN, UIE_PACKAGE_HDR_LEN + 10, len - 3, len - 1 };

	for (size_t i = 0; i < sizeof(cuts) / sizeof(cuts[0]); i++)
		expect_reject(f, pkg, cuts[i], UIE_E_TRUNCATED);
	big = calloc(1, len + 1);
	memcpy(big, pkg, len);
	expect_reject(f, big, len + 1, UIE_E_FORMAT);
	/* A table length that runs past the end. */
	memcpy(big, pkg, len);
	big[96] = 0xff;
	expect_reject(f, big, len, UIE_E_TRUNCATED);
	free(big);
	free(pkg);
}

static void test_reject_oversized(void **state)
{
	struct fx *f = *state;
	size_t len;
	uint8_t *pkg = pt_package(&f->pc, f->key, f->table, f->tlen, 1, false, &len);
	uint8_t *big = calloc(1, (size_t)UIE_PACKAGE_MAX_LEN + 1);

	assert_non_null(big);
	memcpy(big, pkg, len);
	expect_reject(f, big, (size_t)UIE_PACKAGE_MAX_LEN + 1, UIE_E_LIMIT);
	free(big);
	free(pkg);
}

static void test_reject_bad_magic_and_sig_len(void **state)
{
	struct fx *f = *state;
	size_t len;
	uint8_t *pkg = pt_package(&f->pc, f->key, f->table, f->tlen, 1, false, &len);
	size_t sl_off;

	pkg[0] = 'X';
	expect_reject(f, pkg, len, UIE_E_FORMAT);
	pkg[0] = 'U';
	pkg[14] = 1; /* reserved */
	expect_reject(f, pkg, len, UIE_E_FORMAT);
	pkg[14] = 0;
	sl_off = UIE_PACKAGE_HDR_LEN + f->tlen;
	pkg[sl_off] = 0;
	pkg[sl_off + 1] = 0; /* empty signature */
	expect_reject(f, pkg, sl_off + 2, UIE_E_FORMAT);
	free(pkg);
}

static void test_parse_fields(void **state)
{
	struct fx *f = *state;
	size_t len;
	uint8_t *pkg = pt_package(&f->pc, f->key, f->table, f->tlen, 3, true, &len);
	struct uie_package p;

	assert_int_equal(uie_package_parse(&f->pc.hp.pl, pkg, len, &p), UIE_OK);
	assert_int_equal(p.version, 1);
	assert_int_equal(p.sig_alg, UIE_SIG_ECDSA_P256_SHA256);
	assert_int_equal(p.hash_alg, UIE_HASH_SHA256);
	assert_int_equal(p.epoch, 3);
	assert_int_equal(p.bind_seq, f->pc.n);
	assert_memory_equal(p.bind_pcr, f->pc.pcr[f->pc.n], 32);
	assert_int_equal(p.table_len, f->tlen);
	assert_memory_equal(p.table, f->table, f->tlen);
	assert_non_null(p.hint);
	assert_int_equal(p.sig_len + 2 + UIE_PACKAGE_HDR_LEN + p.table_len + p.hint_len, len);
	assert_int_equal(uie_package_parse(&f->pc.hp.pl, pkg, len, NULL), UIE_E_INVAL);
	assert_int_equal(uie_package_parse(&f->pc.hp.pl, NULL, len, &p), UIE_E_INVAL);
	free(pkg);
}

static void test_hint_published_only_when_valid(void **state)
{
	struct fx *f = *state;
	const uint8_t *h;
	size_t len, hl, l2, l3;
	uint8_t *pkg = pt_package(&f->pc, f->key, f->table, f->tlen, 1, true, &len), *nohint, *other;

	/* Not installed yet: nothing to publish. */
	assert_int_equal(uie_package_hint(&f->pc.core, pkg, len, &h, &hl), UIE_E_STATE);
	assert_null(h);
	assert_int_equal(install(f, pkg, len), UIE_OK);
	assert_int_equal(uie_package_hint(&f->pc.core, pkg, len, &h, &hl), UIE_OK);
	assert_non_null(h);
	assert_true(hl > UIE_BLOOM_HDR_LEN);
	nohint = pt_package(&f->pc, f->key, f->table, f->tlen, 2, false, &l2);
	assert_int_equal(install(f, nohint, l2), UIE_OK);
	assert_int_equal(uie_package_hint(&f->pc.core, nohint, l2, &h, &hl), UIE_E_NOTFOUND);
	/* The old package's hint is stale now. */
	assert_int_equal(uie_package_hint(&f->pc.core, pkg, len, &h, &hl), UIE_E_STATE);
	other = pt_package(&f->pc, f->key, f->table, f->tlen, 3, true, &l3);
	assert_int_equal(install(f, other, l3), UIE_OK);
	assert_int_equal(uie_package_hint(&f->pc.core, other, l3, &h, &hl), UIE_OK);
	free(pkg);
	free(nohint);
	free(other);
}

/* A signed hint that omits an ALLOW digest installs the policy but is never published. */
static void test_hint_incomplete_not_published(void **state)
{
	struct fx *f = *state;
	uint8_t hint[UIE_BLOOM_HDR_LEN + 8];
	uint64_t salt[2] = { 1, 2 };
	struct uie_bloom b;
	const uint8_t *h;
	size_t len, hl;
	struct uie_package p = {
		.version = 1, .sig_alg = UIE_SIG_ECDSA_P256_SHA256, .hash_alg = UIE_HASH_SHA256, .epoch = 1
	};
	uint8_t *pkg;

	/* A filter over the first digest only, for a table allowing two. */
	assert_int_equal(uie_bloom_init(hint, sizeof(hint), UIE_HASH_SHA256, 3, 1, salt, 64), UIE_OK);
	assert_int_equal(uie_bloom_add(hint, sizeof(hint), digests[0], 32), UIE_OK);
	assert_int_equal(uie_bloom_parse(hint, sizeof(hint), &b), UIE_OK);
	assert_false(uie_bloom_maybe_contains(&b, digests[1], 32)); /* holds for this salt */
	p.bind_seq = f->pc.n;
	memcpy(p.bind_pcr, f->pc.pcr[f->pc.n], 32);
	assert_int_equal(uie_pubkey_id(f->key, p.key_id), UIE_OK);
	p.table = f->table;
	p.table_len = f->tlen;
	p.hint = hint;
	p.hint_len = sizeof(hint);
	pkg = pt_sign(f->key, &p, &len);
	assert_int_equal(install(f, pkg, len), UIE_OK);
	assert_int_equal(uie_package_hint(&f->pc.core, pkg, len, &h, &hl), UIE_E_FORMAT);
	assert_null(h);
	free(pkg);
	/* A complete hint claiming another epoch is not published either. */
	assert_int_equal(uie_bloom_add(hint, sizeof(hint), digests[1], 32), UIE_OK);
	uie_put_le64(hint + 16, 9);
	p.epoch = 2;
	pkg = pt_sign(f->key, &p, &len);
	assert_int_equal(install(f, pkg, len), UIE_OK);
	assert_int_equal(uie_package_hint(&f->pc.core, pkg, len, &h, &hl), UIE_E_EPOCH);
	free(pkg);
	/* The same hint with the right epoch is. */
	uie_put_le64(hint + 16, 3);
	p.epoch = 3;
	pkg = pt_sign(f->key, &p, &len);
	assert_int_equal(install(f, pkg, len), UIE_OK);
	assert_int_equal(uie_package_hint(&f->pc.core, pkg, len, &h, &hl), UIE_OK);
	free(pkg);
	/* Garbage in the hint never blocks the policy. */
	memset(hint, 0xee, sizeof(hint));
	p.epoch = 4;
	pkg = pt_sign(f->key, &p, &len);
	assert_int_equal(install(f, pkg, len), UIE_OK);
	assert_int_equal(f->pc.core.epoch, 4);
	assert_int_equal(uie_package_hint(&f->pc.core, pkg, len, &h, &hl), UIE_E_FORMAT);
	free(pkg);
}

/* A hint under a MEASURE policy or a default-ALLOW policy proves nothing: not published. */
static void test_hint_needs_enforce_deny(void **state)
{
	struct fx *f = *state;
	uint8_t t[512], hint[UIE_BLOOM_HDR_LEN + 8];
	uint64_t salt[2] = { 3, 4 };
	const uint8_t modes[2][2] = { { UIE_MODE_MEASURE, UIE_DENY }, { UIE_MODE_ENFORCE, UIE_ALLOW } };
	struct uie_package p = { .version = 1,
				 .sig_alg = UIE_SIG_ECDSA_P256_SHA256,
				 .hash_alg = UIE_HASH_SHA256 };
	const uint8_t *h;
	size_t len, hl;
	uint8_t *pkg;

	assert_int_equal(uie_pubkey_id(f->key, p.key_id), UIE_OK);
	for (int i = 0; i < 2; i++) {
		p.epoch = (uint64_t)i + 1;
		p.table_len = pt_table(t, sizeof(t), modes[i][0], modes[i][1], digests, 2);
		p.table = t;
		assert_int_equal(uie_bloom_init(hint, sizeof(hint), UIE_HASH_SHA256, 3, p.epoch, salt, 64),
				 UIE_OK);
		for (int d = 0; d < 2; d++)
			assert_int_equal(uie_bloom_add(hint, sizeof(hint), digests[d], 32), UIE_OK);
		p.hint = hint;
		p.hint_len = sizeof(hint);
		p.bind_seq = f->pc.n;
		memcpy(p.bind_pcr, f->pc.pcr[f->pc.n], 32);
		pkg = pt_sign(f->key, &p, &len);
		assert_int_equal(install(f, pkg, len), UIE_OK);
		assert_int_equal(uie_package_hint(&f->pc.core, pkg, len, &h, &hl), UIE_E_STATE);
		free(pkg);
	}
}

TC_MAIN_EACH(setup, teardown, test_install_then_update, test_reject_signature, test_reject_unknown_key,
	     test_reject_epoch, test_reject_epoch_zero_in_bootstrap, test_reject_epoch_above_ceiling,
	     test_reject_binding, test_binding_to_older_prefix, test_reject_format,
	     test_reject_truncated_and_trailing, test_reject_oversized, test_reject_bad_magic_and_sig_len,
	     test_parse_fields, test_hint_published_only_when_valid, test_hint_incomplete_not_published,
	     test_hint_needs_enforce_deny)
