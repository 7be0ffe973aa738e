/* SPDX-License-Identifier: Apache-2.0 */
#include "ptest.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <openssl/pem.h>

#include "uie/err.h"
#include "uie/slog.h"

#include "keys.h"
#include "pkgbuild.h"

static int sink_append(void *ctx, const uint8_t rec[UIE_LOG_RECORD_LEN], const uint8_t lrh[UIE_PCR_LEN])
{
	struct pt_core *pc = ctx;
	int r;

	if (pc->n >= PT_MAX_RECS)
		return UIE_E_LIMIT;
	memcpy(pc->recs[pc->n], rec, UIE_LOG_RECORD_LEN);
	memcpy(pc->pcr[pc->n + 1], pc->pcr[pc->n], UIE_PCR_LEN);
	if ((r = uie_pcr_extend(&pc->hp.pl, pc->pcr[pc->n + 1], lrh)) != UIE_OK)
		return r;
	pc->n++;
	return UIE_OK;
}

void pt_core_init(struct pt_core *pc)
{
	struct uie_log_sink sink = { 0 };

	memset(pc, 0, sizeof(*pc));
	assert_int_equal(uie_host_platform_init(&pc->hp), UIE_OK);
	sink.ctx = pc;
	sink.append = sink_append;
	assert_int_equal(uie_core_init(&pc->core, &pc->hp.pl, &sink, UIE_HASH_SHA256), UIE_OK);
	assert_int_equal(pc->n, 1);
}

void pt_core_fini(struct pt_core *pc)
{
	uie_host_platform_fini(&pc->hp);
}

int pt_pcr_at(void *ctx, uint64_t seq, uint8_t pcr[UIE_PCR_LEN])
{
	struct pt_core *pc = ctx;

	if (seq > pc->n)
		return UIE_E_RANGE;
	memcpy(pcr, pc->pcr[seq], UIE_PCR_LEN);
	return UIE_OK;
}

void pt_core_event(struct pt_core *pc, uint8_t fill)
{
	struct uie_req req = { .event = UIE_EV_EXECVE, .role = UIE_ROLE_MAIN, .pid = 42 };
	struct uie_digest d = { .alg = UIE_HASH_SHA256, .len = 32 };
	struct uie_verdict v;

	memset(d.bytes, fill, 32);
	assert_int_equal(uie_core_decide(&pc->core, &req, UIE_OK, &d, UIE_SCOPE_ELF, &v), UIE_OK);
}

EVP_PKEY *pt_key(struct pt_core *pc, bool trust)
{
	EVP_PKEY *pk = EVP_PKEY_Q_keygen(NULL, NULL, "EC", "P-256");
	char path[] = "/tmp/uie-pt-key-XXXXXX";
	FILE *f;
	int fd;

	assert_non_null(pk);
	if (!trust)
		return pk;
	fd = mkstemp(path);
	assert_true(fd >= 0);
	f = fdopen(fd, "w");
	assert_non_null(f);
	assert_int_equal(PEM_write_PUBKEY(f, pk), 1);
	fclose(f);
	assert_int_equal(uie_host_platform_add_key_file(&pc->hp, path, NULL), UIE_OK);
	unlink(path);
	return pk;
}

size_t pt_table(uint8_t *out, size_t cap, uint8_t mode, uint8_t def, const uint8_t (*d)[32], uint32_t n)
{
	struct uie_policy_rule *rules = calloc(n ? n : 1, sizeof(*rules));
	size_t len = 0;

	assert_non_null(rules);
	for (uint32_t i = 0; i < n; i++) {
		rules[i].event = UIE_EV_EXECVE;
		rules[i].role = UIE_ROLE_MAIN;
		rules[i].action = UIE_ALLOW;
		memcpy(rules[i].digest, d[i], 32);
	}
	/* Sort (insertion; tests use few rules) into canonical order. */
	for (uint32_t i = 1; i < n; i++)
		for (uint32_t j = i; j && uie_policy_rule_cmp(&rules[j - 1], &rules[j], 32) > 0; j--) {
			struct uie_policy_rule t = rules[j];

			rules[j] = rules[j - 1];
			rules[j - 1] = t;
		}
	assert_int_equal(uie_policy_encode(mode, def, UIE_HASH_SHA256, rules, n, out, cap, &len), UIE_OK);
	free(rules);
	return len;
}

uint8_t *pt_sign(EVP_PKEY *key, struct uie_package *p, size_t *len)
{
	size_t cap = UIE_PACKAGE_HDR_LEN + p->table_len + p->hint_len + 2 + UIE_PACKAGE_MAX_SIG;
	uint8_t *buf = malloc(cap), sig[UIE_PACKAGE_MAX_SIG];
	size_t blen;

	assert_non_null(buf);
	p->sig = NULL;
	p->sig_len = 0;
	assert_int_equal(uie_package_encode(p, buf, cap, &blen), UIE_OK);
	assert_int_equal(EVP_Digest(buf, blen, p->package_hash, NULL, EVP_sha256(), NULL), 1);
	assert_int_equal(keys_sign_digest(key, p->package_hash, sig, sizeof(sig), &p->sig_len), UIE_OK);
	p->sig = sig;
	assert_int_equal(uie_package_encode(p, buf, cap, len), UIE_OK);
	p->sig = NULL;
	return buf;
}

uint8_t *pt_package(struct pt_core *pc, EVP_PKEY *key, const uint8_t *table, size_t tlen, uint64_t epoch,
		    bool hint, size_t *len)
{
	struct pkg_params pp = { .epoch = epoch, .bind_seq = pc->n, .hint = hint };
	uint8_t *out;

	memcpy(pp.bind_pcr, pc->pcr[pc->n], UIE_PCR_LEN);
	assert_int_equal(pkg_build_alloc(key, table, tlen, &pp, &out, len), UIE_OK);
	return out;
}

void pt_snap(const struct pt_core *pc, struct pt_snap *s)
{
	memset(s, 0, sizeof(*s));
	s->mode = pc->core.mode;
	s->have_policy = pc->core.have_policy;
	s->epoch = pc->core.epoch;
	s->next_seq = pc->core.next_seq;
	s->policy = pc->core.policy;
	memcpy(s->policy_id, pc->core.policy_id, UIE_SHA256_LEN);
	memcpy(s->vpcr, pc->core.vpcr, UIE_PCR_LEN);
}

void pt_assert_rejected(const struct pt_core *pc, const struct pt_snap *s, int err)
{
	struct uie_log_record rec;
	uint8_t pcr[UIE_PCR_LEN];

	assert_int_equal(pc->core.mode, s->mode);
	assert_int_equal(pc->core.have_policy, s->have_policy);
	assert_int_equal(pc->core.epoch, s->epoch);
	assert_ptr_equal(pc->core.policy.rules, s->policy.rules);
	assert_int_equal(pc->core.policy.nrules, s->policy.nrules);
	assert_int_equal(pc->core.policy.rule_len, s->policy.rule_len);
	assert_int_equal(pc->core.policy.hash_alg, s->policy.hash_alg);
	assert_int_equal(pc->core.policy.mode, s->policy.mode);
	assert_int_equal(pc->core.policy.default_action, s->policy.default_action);
	assert_memory_equal(pc->core.policy_id, s->policy_id, UIE_SHA256_LEN);
	/* Exactly one record more, and it is the rejection. */
	assert_int_equal(pc->core.next_seq, s->next_seq + 1);
	assert_int_equal(pc->n, s->next_seq + 1);
	assert_int_equal(uie_log_decode(pc->recs[pc->n - 1], UIE_LOG_RECORD_LEN, &rec), UIE_OK);
	assert_int_equal(rec.event_type, UIE_LOG_POLICY_REJECT);
	assert_int_equal(rec.reason, UIE_R_POLICY_REJECTED);
	assert_int_equal(rec.decision, UIE_DENY);
	assert_int_equal(rec.pid, (uint32_t)-err);
	assert_int_equal(rec.epoch, s->epoch);
	memcpy(pcr, s->vpcr, UIE_PCR_LEN);
	assert_int_equal(uie_pcr_extend(&pc->hp.pl, pcr, pc->recs[pc->n - 1] + UIE_LOG_BODY_LEN), UIE_OK);
	assert_memory_equal(pc->core.vpcr, pcr, UIE_PCR_LEN);
}
