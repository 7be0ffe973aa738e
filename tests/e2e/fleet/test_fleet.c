/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The fleet verifier's API against two running uie-verifierd processes on
 * one database (fleet.sh starts them): enrolment, nonces issued by one and
 * answered at the other, incremental posts, concurrent posts for one
 * machine, restarts, tampered, skipped, reordered and replayed records
 * (refused, the next genuine post accepted),
 * every bad input with its 4xx and nothing stored, silent machines, and
 * the administrator's calls refused without A's --admin-token.
 *
 *   test_fleet URL-A URL-B TOKEN  (A: --admin-token with TOKEN; B: none,
 *                                  --silent-after 1 --nonce-ttl 3)
 */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "fleetsim.h"
#include "hex.h"
#include "tcommon.h"
#include "uie/err.h"

static const char *url_a, *url_b, *token_a;

/* A client of base sending bearer (NULL: no Authorization). */
static struct uie_http *client_as(const char *base, const char *bearer)
{
	struct uie_http_opts o = { .base = base, .bearer = bearer };
	struct uie_http *h;

	assert_int_equal(uie_http_open_alloc(&o, &h), UIE_OK);
	return h;
}

/* The administrator's client: A's token at A, nothing at B (which has none). */
static struct uie_http *client(const char *base)
{
	return client_as(base, base == url_a ? token_a : NULL);
}

/* method path with a text body (NULL: none); the status, *reply owned (may be NULL). */
static long call(struct uie_http *h, const char *method, const char *path, const char *body, const char *ct,
		 json_t **reply)
{
	long status;
	json_t *r = NULL;

	assert_int_equal(uie_http_raw(h, method, path, body, body ? strlen(body) : 0, ct, &status, &r),
			 UIE_OK);
	if (reply)
		*reply = r;
	else
		json_decref(r);
	return status;
}

/* The error code of a 4xx reply, which also must carry a reason; frees reply. */
static void expect_error(long status, json_t *reply, long want_status, const char *code)
{
	const char *got = json_string_value(json_object_get(reply, "error"));

	if (status != want_status || !got || strcmp(got, code) != 0)
		fail_msg("want %ld %s, got %ld %s (%s)", want_status, code, status, got ? got : "-",
			 json_string_value(json_object_get(reply, "reason")) ?: "");
	assert_non_null(json_string_value(json_object_get(reply, "reason")));
	json_decref(reply);
}

/* call, and expect_error of its answer. */
static void expect_call(struct uie_http *h, const char *method, const char *path, const char *body,
			const char *ct, long want_status, const char *code)
{
	json_t *reply;
	long status = call(h, method, path, body, ct, &reply);

	expect_error(status, reply, want_status, code);
}

static void machine(struct fsim_machine *m, const char *id)
{
	assert_int_equal(fsim_init(m, id), UIE_OK);
}

static long enrol(struct uie_http *h, const struct fsim_machine *m, unsigned interval)
{
	json_t *body = fsim_enrol_body(m, interval, "ABCD"), *reply = NULL;
	long status;

	assert_non_null(body);
	assert_int_equal(uie_http_json(h, "POST", "/v1/machines", body, &status, &reply), UIE_OK);
	json_decref(body);
	json_decref(reply);
	return status;
}

static json_t *get_machine(struct uie_http *h, const char *id)
{
	char path[128];
	json_t *reply;

	snprintf(path, sizeof(path), "/v1/machines/%s", id);
	assert_int_equal(call(h, "GET", path, NULL, NULL, &reply), 200);
	return reply;
}

static json_int_t machine_int(struct uie_http *h, const char *id, const char *key)
{
	json_t *m = get_machine(h, id);
	json_int_t v = json_integer_value(json_object_get(m, key));

	json_decref(m);
	return v;
}

static size_t verdict_count(struct uie_http *h, const char *id)
{
	char path[128];
	json_t *reply;
	size_t n;

	snprintf(path, sizeof(path), "/v1/machines/%s/verdicts?limit=1000", id);
	assert_int_equal(call(h, "GET", path, NULL, NULL, &reply), 200);
	n = json_array_size(json_object_get(reply, "verdicts"));
	json_decref(reply);
	return n;
}

static json_int_t jint(json_t *o, const char *key)
{
	assert_true(json_is_integer(json_object_get(o, key)));
	return json_integer_value(json_object_get(o, key));
}

/* One accepted round at h; returns the verdict (owned). */
static json_t *accepted_round(struct uie_http *h, struct fsim_machine *m)
{
	json_t *reply;
	long status;

	assert_int_equal(fsim_round(h, m, &status, &reply), UIE_OK);
	if (status != 200 || !json_is_true(json_object_get(reply, "accepted")))
		fail_msg("round of %s: %ld %s", m->id, status, json_dumps(reply, 0));
	return reply;
}

/* A machine enrolled at h (interval 60) whose first round was accepted. */
static void trusted_machine(struct uie_http *h, struct fsim_machine *m, const char *id)
{
	machine(m, id);
	assert_int_equal(enrol(h, m, 60), 201);
	json_decref(accepted_round(h, m));
}

/* Evidence of m from since, answering a nonce issued by h. */
static uint8_t *evidence(struct uie_http *h, struct fsim_machine *m, const char *for_id, bool from_since,
			 uint64_t since, uint8_t nonce[FSIM_NONCE_LEN], size_t *len)
{
	uint64_t issued_since;
	uint8_t *ae;
	long status;

	assert_int_equal(fsim_nonce(h, for_id, nonce, &issued_since, &status), UIE_OK);
	assert_int_equal(status, 201);
	assert_int_equal(ev_export(&m->log, m->tpm, nonce, FSIM_NONCE_LEN, from_since ? since : issued_since,
				   &ae, len),
			 UIE_OK);
	return ae;
}

static void test_enrol_and_nonce_across_verifiers(void **state)
{
	struct uie_http *a = client(url_a), *b = client(url_b);
	struct fsim_machine m, quiet;
	uint8_t nonce[FSIM_NONCE_LEN], *ae;
	json_t *v;
	long status;
	size_t len;
	uint64_t n0;

	(void)state;
	machine(&m, "m-basic");
	machine(&quiet, "m-quiet");
	assert_int_equal(enrol(a, &m, 60), 201);
	assert_int_equal(enrol(b, &m, 60), 409);
	assert_int_equal(enrol(b, &quiet, 1), 201); /* never attests: silent in the last test */
	/* A nonce from A, answered at B. */
	ae = evidence(a, &m, m.id, false, 0, nonce, &len);
	assert_int_equal(fsim_post(b, m.id, nonce, ae, len, &status, &v), UIE_OK);
	assert_int_equal(status, 200);
	assert_true(json_is_true(json_object_get(v, "accepted")));
	assert_int_equal(jint(v, "next_seq"), m.log.n);
	assert_int_equal(jint(v, "new_records"), m.log.n);
	assert_true(json_is_false(json_object_get(v, "simulated"))); /* an AK given by hand */
	json_decref(v);
	/* The same nonce again, at A: used. */
	assert_int_equal(fsim_post(a, m.id, nonce, ae, len, &status, &v), UIE_OK);
	expect_error(status, v, 409, "bad_nonce");
	free(ae);
	/* Incremental: only the two new records travel. */
	n0 = m.log.n;
	assert_int_equal(ev_log_mmap(&m.log, 'C'), UIE_OK);
	assert_int_equal(ev_log_mmap(&m.log, 'A'), UIE_OK);
	v = accepted_round(b, &m);
	assert_int_equal(jint(v, "first_seq"), n0);
	assert_int_equal(jint(v, "nrecords"), 2);
	assert_int_equal(jint(v, "new_records"), 2);
	json_decref(v);
	v = get_machine(a, m.id);
	assert_string_equal(json_string_value(json_object_get(v, "status")), "trusted");
	assert_int_equal(jint(v, "next_seq"), m.log.n);
	assert_false(json_is_true(json_object_get(v, "silent")));
	/* The scenario's log installs an ENFORCE policy: named, as every JSON output names modes. */
	assert_string_equal(json_string_value(json_object_get(v, "mode")), "ENFORCE");
	json_decref(v);
	assert_int_equal(verdict_count(a, m.id), 2);
	fsim_fini(&m);
	fsim_fini(&quiet);
	uie_http_free(a);
	uie_http_free(b);
}

#define CONCURRENT 8

struct poster {
	const char *url, *id;
	uint8_t nonce[FSIM_NONCE_LEN];
	uint8_t *ae;
	size_t len;
	pthread_barrier_t *start;
	long status;
	json_t *reply;
};

static void *post_thread(void *arg)
{
	struct poster *p = arg;
	struct uie_http_opts o = { .base = p->url };
	struct uie_http *h;

	if (uie_http_open_alloc(&o, &h) != UIE_OK)
		return NULL;
	pthread_barrier_wait(p->start);
	if (fsim_post(h, p->id, p->nonce, p->ae, p->len, &p->status, &p->reply) != UIE_OK)
		p->status = -1;
	uie_http_free(h);
	return NULL;
}

/* Posts p[0..n) at once from n threads. */
static void post_together(struct poster *p, size_t n)
{
	pthread_t t[CONCURRENT];
	pthread_barrier_t start;

	pthread_barrier_init(&start, NULL, (unsigned)n);
	for (size_t i = 0; i < n; i++) {
		p[i].start = &start;
		assert_int_equal(pthread_create(&t[i], NULL, post_thread, &p[i]), 0);
	}
	for (size_t i = 0; i < n; i++)
		pthread_join(t[i], NULL);
	pthread_barrier_destroy(&start);
}

static void test_concurrent_posts(void **state)
{
	struct uie_http *a = client(url_a);
	struct poster p[CONCURRENT];
	struct fsim_machine m;
	json_t *v;
	json_int_t counted = 0;
	size_t accepted = 0, before;

	(void)state;
	trusted_machine(a, &m, "m-conc");
	for (int i = 0; i < 3; i++)
		assert_int_equal(ev_log_mmap(&m.log, 'C'), UIE_OK);
	before = verdict_count(a, m.id);
	memset(p, 0, sizeof(p));
	for (size_t i = 0; i < CONCURRENT; i++) {
		p[i].url = i % 2 ? url_b : url_a;
		p[i].id = m.id;
		p[i].ae = evidence(a, &m, m.id, false, 0, p[i].nonce, &p[i].len);
	}
	post_together(p, CONCURRENT);
	for (size_t i = 0; i < CONCURRENT; i++) {
		const char *err = json_string_value(json_object_get(p[i].reply, "error"));

		if (p[i].status == 200 && json_is_true(json_object_get(p[i].reply, "accepted"))) {
			accepted++;
			counted += jint(p[i].reply, "new_records");
		} else if (p[i].status != 409 || !err || strcmp(err, "superseded") != 0) {
			fail_msg("post %zu: %ld %s", i, p[i].status, json_dumps(p[i].reply, 0));
		}
		json_decref(p[i].reply);
		free(p[i].ae);
	}
	assert_true(accepted >= 1);
	assert_int_equal(counted, 3); /* the three records counted once, whoever won */
	assert_int_equal(machine_int(a, m.id, "next_seq"), m.log.n);
	assert_int_equal(verdict_count(a, m.id), before + accepted);
	/* One nonce posted twice at once, to A and to B: one verdict, one refusal. */
	assert_int_equal(ev_log_mmap(&m.log, 'C'), UIE_OK);
	memset(p, 0, 2 * sizeof(p[0]));
	p[0].url = url_a;
	p[1].url = url_b;
	p[0].id = p[1].id = m.id;
	p[0].ae = evidence(a, &m, m.id, false, 0, p[0].nonce, &p[0].len);
	memcpy(p[1].nonce, p[0].nonce, FSIM_NONCE_LEN);
	p[1].ae = p[0].ae;
	p[1].len = p[0].len;
	post_together(p, 2);
	assert_true((p[0].status == 200) != (p[1].status == 200));
	v = p[0].status == 200 ? p[1].reply : p[0].reply;
	expect_error(p[0].status == 200 ? p[1].status : p[0].status, json_incref(v), 409, "bad_nonce");
	json_decref(p[0].reply);
	json_decref(p[1].reply);
	free(p[0].ae);
	assert_int_equal(verdict_count(a, m.id), before + accepted + 1);
	fsim_fini(&m);
	uie_http_free(a);
}

static void test_restart(void **state)
{
	struct uie_http *a = client(url_a), *b = client(url_b);
	struct fsim_machine m;
	uint8_t nonce[FSIM_NONCE_LEN], *ae;
	json_int_t reset;
	json_t *v;
	long status;
	size_t len, before;

	(void)state;
	trusted_machine(a, &m, "m-restart");
	reset = machine_int(a, m.id, "reset_count");
	assert_int_equal(fsim_restart(&m), UIE_OK);
	before = verdict_count(a, m.id);
	/* From a later record of the new run: the verifier asks for the whole log. */
	ae = evidence(a, &m, m.id, true, 1, nonce, &len);
	assert_int_equal(fsim_post(b, m.id, nonce, ae, len, &status, &v), UIE_OK);
	expect_error(status, v, 409, "full_log_needed");
	free(ae);
	assert_int_equal(verdict_count(a, m.id), before);
	ae = evidence(b, &m, m.id, true, 0, nonce, &len);
	assert_int_equal(fsim_post(a, m.id, nonce, ae, len, &status, &v), UIE_OK);
	assert_int_equal(status, 200);
	assert_true(json_is_true(json_object_get(v, "accepted")));
	assert_true(json_is_true(json_object_get(v, "restarted")));
	assert_int_equal(jint(v, "next_seq"), m.log.n);
	assert_int_equal(jint(v, "new_records"), m.log.n);
	json_decref(v);
	free(ae);
	assert_int_equal(machine_int(b, m.id, "reset_count"), reset + 1);
	/* And the new run goes on incrementally. */
	assert_int_equal(ev_log_mmap(&m.log, 'A'), UIE_OK);
	v = accepted_round(b, &m);
	assert_int_equal(jint(v, "new_records"), 1);
	json_decref(v);
	fsim_fini(&m);
	uie_http_free(a);
	uie_http_free(b);
}

enum mutation {
	TAMPER,
	SKIP,
	REORDER,
	REPLAY
};

/* The AE with its records changed by mut at position k (rebuilt: the quote stays). */
static uint8_t *mutate(const uint8_t *ae, size_t len, enum mutation mut, uint64_t k, size_t *out_len)
{
	struct uie_ae a;
	uint8_t *recs, *out;
	size_t rl = UIE_LOG_RECORD_LEN;

	assert_int_equal(uie_ae_parse(ae, len, &a), UIE_OK);
	assert_true(k + 2 < a.nrecords);
	assert_non_null(recs = malloc((a.nrecords + 1) * rl));
	memcpy(recs, a.records, a.nrecords * rl);
	switch (mut) {
	case TAMPER: recs[k * rl + 100] ^= 1; break;
	case SKIP:
		memmove(recs + k * rl, recs + (k + 1) * rl, (a.nrecords - k - 1) * rl);
		a.nrecords--;
		break;
	case REORDER:
		memcpy(recs + a.nrecords * rl, recs + k * rl, rl);
		memcpy(recs + k * rl, recs + (k + 1) * rl, rl);
		memcpy(recs + (k + 1) * rl, recs + a.nrecords * rl, rl);
		break;
	case REPLAY:
		memmove(recs + (k + 1) * rl, recs + k * rl, (a.nrecords - k) * rl);
		a.nrecords++;
		break;
	}
	a.records = recs;
	assert_int_equal(uie_ae_build_alloc(&a, &out, out_len), UIE_OK);
	free(recs);
	return out;
}

/* Posts ae (changed on the way) for m: refused as not the machine's, naming the record. */
static void refused_changed(struct uie_http *h, const struct fsim_machine *m,
			    const uint8_t nonce[FSIM_NONCE_LEN], const uint8_t *ae, size_t len, uint64_t bad)
{
	const char *reason;
	char want[64];
	json_t *v;
	long status;

	assert_int_equal(fsim_post(h, m->id, nonce, ae, len, &status, &v), UIE_OK);
	reason = json_string_value(json_object_get(v, "reason"));
	snprintf(want, sizeof(want), "replay: record %llu:", (unsigned long long)bad);
	if (status != 400 || !reason || strncmp(reason, want, strlen(want)) != 0)
		fail_msg("%s: want 400 \"%s ...\", got %ld %s", m->id, want, status, json_dumps(v, 0));
	expect_error(status, v, 400, "bad_evidence");
}

/*
 * A machine's post changed on the way by mut at record 3 (its first post,
 * then an increment overlapping what was verified): refused, nothing
 * stored, and the genuine evidence sent again with the same nonce is
 * accepted (docs/VERIFIER.md 3.3, "Refused, not failed").
 */
static void bad_records(const char *id, enum mutation mut, uint64_t bad)
{
	struct uie_http *a = client(url_a), *b = client(url_b);
	struct fsim_machine m;
	uint8_t nonce[FSIM_NONCE_LEN], *ae, *changed;
	json_t *v;
	size_t len, clen, verdicts;
	uint64_t next;
	long status;

	machine(&m, id);
	assert_int_equal(enrol(a, &m, 60), 201);
	ae = evidence(b, &m, m.id, false, 0, nonce, &len);
	changed = mutate(ae, len, mut, 3, &clen);
	refused_changed(a, &m, nonce, changed, clen, bad);
	free(changed);
	v = get_machine(b, m.id);
	assert_string_equal(json_string_value(json_object_get(v, "status")), "enrolled");
	assert_int_equal(jint(v, "next_seq"), 0);
	assert_true(json_is_null(json_object_get(v, "first_bad")));
	json_decref(v);
	assert_int_equal(verdict_count(a, m.id), 0);
	/* The genuine evidence, sent again with the same nonce: accepted. */
	assert_int_equal(fsim_post(b, m.id, nonce, ae, len, &status, &v), UIE_OK);
	if (status != 200 || !json_is_true(json_object_get(v, "accepted")))
		fail_msg("%s: genuine evidence after a changed copy: %ld %s", m.id, status, json_dumps(v, 0));
	json_decref(v);
	free(ae);
	/* Changed inside the overlap with what was verified: a refused replay, not a continuity failure. */
	next = (uint64_t)machine_int(a, m.id, "next_seq");
	assert_int_equal(ev_log_mmap(&m.log, 'C'), UIE_OK);
	ae = evidence(a, &m, m.id, true, 0, nonce, &len);
	changed = mutate(ae, len, mut, 3, &clen);
	refused_changed(b, &m, nonce, changed, clen, bad);
	free(changed);
	assert_int_equal(machine_int(a, m.id, "next_seq"), next);
	verdicts = verdict_count(a, m.id);
	json_decref(accepted_round(b, &m));
	assert_int_equal(verdict_count(a, m.id), verdicts + 1);
	v = get_machine(a, m.id);
	assert_string_equal(json_string_value(json_object_get(v, "status")), "trusted");
	json_decref(v);
	free(ae);
	fsim_fini(&m);
	uie_http_free(a);
	uie_http_free(b);
}

struct bad_case {
	const char *id;
	enum mutation mut;
	uint64_t bad;
};

static const struct bad_case tampered = { "m-tamper", TAMPER, 3 }, skipped = { "m-skip", SKIP, 3 },
			     reordered = { "m-reorder", REORDER, 3 }, replayed = { "m-replay", REPLAY, 4 };

static void test_bad_records(void **state)
{
	const struct bad_case *c = *state;

	bad_records(c->id, c->mut, c->bad);
}

/* An increment that skips a record: continuity, naming the first record missing. */
static void test_incremental_gap(void **state)
{
	struct uie_http *a = client(url_a);
	struct fsim_machine m;
	uint8_t nonce[FSIM_NONCE_LEN], *ae;
	json_t *v;
	long status;
	size_t len;
	uint64_t n0;

	(void)state;
	trusted_machine(a, &m, "m-gap");
	n0 = m.log.n;
	assert_int_equal(ev_log_mmap(&m.log, 'C'), UIE_OK);
	assert_int_equal(ev_log_mmap(&m.log, 'C'), UIE_OK);
	ae = evidence(a, &m, m.id, true, n0 + 1, nonce, &len);
	assert_int_equal(fsim_post(a, m.id, nonce, ae, len, &status, &v), UIE_OK);
	assert_int_equal(status, 200);
	assert_string_equal(json_string_value(json_object_get(v, "result")), "continuity");
	assert_int_equal(jint(v, "bad_record"), n0);
	json_decref(v);
	free(ae);
	assert_int_equal(machine_int(a, m.id, "next_seq"), n0);
	fsim_fini(&m);
	uie_http_free(a);
}

/* The body of an attestation post with a nonce and evidence as given. */
static char *attest_body(const uint8_t nonce[FSIM_NONCE_LEN], const char *evidence_text)
{
	char hex[2 * FSIM_NONCE_LEN + 1], *s;

	uie_hex_encode(hex, nonce, FSIM_NONCE_LEN);
	assert_true(asprintf(&s, "{\"nonce\":\"%s\",\"evidence\":\"%s\"}", hex, evidence_text) > 0);
	return s;
}

static void bad_bodies(struct uie_http *a, const char *path, const uint8_t nonce[FSIM_NONCE_LEN])
{
	static const char json[] = "application/json";
	size_t big = 2u << 20;
	char *s, *huge = malloc(big + 1);

	expect_call(a, "POST", path, "{", json, 400, "bad_json");
	expect_call(a, "POST", path, "[1]", json, 400, "bad_json");
	expect_call(a, "POST", path, "{\"nonce\":1,\"evidence\":\"\"}", json, 400, "bad_json");
	s = attest_body(nonce, "AAAA\",\"more\":\"1"); /* an unknown field */
	expect_call(a, "POST", path, s, json, 400, "bad_json");
	free(s);
	expect_call(a, "POST", path, "{\"nonce\":\"zz\",\"evidence\":\"AAAA\"}", json, 400, "bad_field");
	s = attest_body(nonce, "not base64!");
	expect_call(a, "POST", path, s, json, 400, "bad_field");
	free(s);
	s = attest_body(nonce, "VUlFQQEAAAA="); /* "UIEA", version 1, then nothing */
	expect_call(a, "POST", path, s, json, 400, "bad_evidence");
	expect_call(a, "POST", path, s, "text/plain", 415, "content_type");
	free(s);
	assert_non_null(huge);
	memset(huge, ' ', big);
	huge[big] = '\0';
	expect_call(a, "POST", path, huge, json, 413, "too_large");
	free(huge);
}

static void test_bad_input(void **state)
{
	struct uie_http *a = client(url_a), *b = client(url_b);
	struct fsim_machine m, other, wrong;
	uint8_t nonce[FSIM_NONCE_LEN], *ae;
	const char *path = "/v1/machines/m-bad/attestations";
	json_t *r, *body;
	json_int_t next;
	long status;
	size_t len, verdicts;
	uint64_t since;

	(void)state;
	machine(&m, "m-bad");
	machine(&other, "m-other");
	machine(&wrong, "m-wrongak");
	assert_int_equal(enrol(a, &m, 60), 201);
	assert_int_equal(enrol(a, &other, 60), 201);
	json_decref(accepted_round(a, &m));
	assert_int_equal(ev_log_mmap(&m.log, 'C'), UIE_OK);
	verdicts = verdict_count(a, m.id);
	next = machine_int(a, m.id, "next_seq");

	assert_int_equal(fsim_nonce(a, m.id, nonce, &since, &status), UIE_OK);
	bad_bodies(a, path, nonce);
	/* Unknown machine, unknown path, wrong method. */
	expect_call(a, "POST", "/v1/machines/nobody/nonce", NULL, NULL, 404, "unknown_machine");
	expect_call(a, "GET", "/v1/machines/nobody", NULL, NULL, 404, "unknown_machine");
	expect_call(a, "GET", "/v1/machines/nobody/verdicts", NULL, NULL, 404, "unknown_machine");
	ae = evidence(a, &m, m.id, false, 0, nonce, &len);
	assert_int_equal(fsim_post(a, "nobody", nonce, ae, len, &status, &r), UIE_OK);
	expect_error(status, r, 404, "unknown_machine");
	expect_call(a, "GET", "/v1/other", NULL, NULL, 404, "not_found");
	expect_call(a, "DELETE", "/v1/machines", NULL, NULL, 405, "method");
	expect_call(a, "GET", "/v1/machines/m-bad/verdicts?limit=0", NULL, NULL, 400, "bad_field");
	free(ae);
	/* A nonce issued for another machine. */
	ae = evidence(a, &m, other.id, false, 0, nonce, &len);
	assert_int_equal(fsim_post(a, m.id, nonce, ae, len, &status, &r), UIE_OK);
	expect_error(status, r, 409, "bad_nonce");
	free(ae);
	/* Another machine's evidence answering this machine's nonce. */
	ae = evidence(a, &other, m.id, true, 0, nonce, &len);
	assert_int_equal(fsim_post(b, m.id, nonce, ae, len, &status, &r), UIE_OK);
	expect_error(status, r, 403, "wrong_ak");
	free(ae);
	/* A machine enrolled with another's AK posting its own evidence. */
	free(wrong.ak_pem);
	wrong.ak_pem = strdup(other.ak_pem);
	assert_int_equal(enrol(a, &wrong, 60), 201);
	assert_int_equal(fsim_round(b, &wrong, &status, &r), UIE_OK);
	expect_error(status, r, 403, "wrong_ak");
	assert_int_equal(verdict_count(a, wrong.id), 0);
	/* A stale nonce: B's expire after 3 s. */
	ae = evidence(b, &m, m.id, false, 0, nonce, &len);
	sleep(4);
	assert_int_equal(fsim_post(a, m.id, nonce, ae, len, &status, &r), UIE_OK);
	expect_error(status, r, 409, "bad_nonce");
	free(ae);
	/* Enrolment errors. */
	body = fsim_enrol_body(&other, 60, NULL);
	json_object_set_new(body, "id", json_string("bad id!"));
	assert_int_equal(uie_http_json(a, "POST", "/v1/machines", body, &status, &r), UIE_OK);
	expect_error(status, r, 400, "bad_field");
	json_object_set_new(body, "id", json_string("m-x"));
	json_object_set_new(body, "interval", json_integer(0));
	assert_int_equal(uie_http_json(a, "POST", "/v1/machines", body, &status, &r), UIE_OK);
	expect_error(status, r, 400, "bad_field");
	json_object_set_new(body, "interval", json_integer(5));
	json_object_set_new(body, "ak_pub", json_string("-----BEGIN PUBLIC KEY-----\nAAAA\n"));
	assert_int_equal(uie_http_json(a, "POST", "/v1/machines", body, &status, &r), UIE_OK);
	expect_error(status, r, 400, "bad_field");
	json_object_set_new(body, "ak_pub", json_string(other.ak_pem));
	json_object_set_new(body, "policies", json_string("x"));
	assert_int_equal(uie_http_json(a, "POST", "/v1/machines", body, &status, &r), UIE_OK);
	expect_error(status, r, 400, "bad_json");
	json_object_set_new(body, "policies", json_pack("[s]", "AAAA"));
	assert_int_equal(uie_http_json(a, "POST", "/v1/machines", body, &status, &r), UIE_OK);
	expect_error(status, r, 400, "bad_field");
	json_decref(body);
	expect_call(a, "GET", "/v1/machines/m-x", NULL, NULL, 404, "unknown_machine");
	/* Nothing of all that was stored. */
	assert_int_equal(verdict_count(a, m.id), verdicts);
	assert_int_equal(machine_int(b, m.id, "next_seq"), next);
	r = get_machine(a, m.id);
	assert_string_equal(json_string_value(json_object_get(r, "status")), "trusted");
	json_decref(r);
	/* The machine is fine: its next genuine round is accepted. */
	json_decref(accepted_round(a, &m));
	fsim_fini(&m);
	fsim_fini(&other);
	fsim_fini(&wrong);
	uie_http_free(a);
	uie_http_free(b);
}

static void test_nonce_limit(void **state)
{
	struct uie_http *a = client(url_a);
	struct fsim_machine m;
	uint8_t nonce[FSIM_NONCE_LEN];
	uint64_t since;
	long status;

	(void)state;
	machine(&m, "m-nonces");
	assert_int_equal(enrol(a, &m, 60), 201);
	for (int i = 0; i < 8; i++) {
		assert_int_equal(fsim_nonce(a, m.id, nonce, &since, &status), UIE_OK);
		assert_int_equal(status, 201);
	}
	expect_call(a, "POST", "/v1/machines/m-nonces/nonce", NULL, NULL, 429, "too_many_nonces");
	fsim_fini(&m);
	uie_http_free(a);
}

/* PUT .../ak with {"ak_pub": pem}: the status and *reply (owned). */
static long put_ak(struct uie_http *h, const char *id, const char *pem, json_t **reply)
{
	char path[128];
	json_t *body = json_pack("{s:s}", "ak_pub", pem);
	long status;

	snprintf(path, sizeof(path), "/v1/machines/%s/ak", id);
	assert_int_equal(uie_http_json(h, "PUT", path, body, &status, reply), UIE_OK);
	json_decref(body);
	return status;
}

static void test_delete(void **state)
{
	struct uie_http *a = client(url_a), *b = client(url_b);
	struct fsim_machine m;
	uint8_t nonce[FSIM_NONCE_LEN], *ae;
	json_t *r;
	long status;
	size_t len;

	(void)state;
	trusted_machine(a, &m, "m-delete");
	ae = evidence(a, &m, m.id, false, 0, nonce, &len); /* outstanding when it goes */
	assert_int_equal(call(a, "DELETE", "/v1/machines/m-delete", NULL, NULL, &r), 204);
	assert_null(r);
	expect_call(a, "GET", "/v1/machines/m-delete", NULL, NULL, 404, "unknown_machine");
	expect_call(a, "GET", "/v1/machines/m-delete/verdicts", NULL, NULL, 404, "unknown_machine");
	expect_call(a, "DELETE", "/v1/machines/m-delete", NULL, NULL, 404, "unknown_machine");
	assert_int_equal(fsim_post(a, m.id, nonce, ae, len, &status, &r), UIE_OK);
	expect_error(status, r, 404, "unknown_machine");
	free(ae);
	expect_call(a, "DELETE", "/v1/machines/bad%20id", NULL, NULL, 404, "not_found");
	expect_call(a, "DELETE", "/v1/machines/m-basic/nonce", NULL, NULL, 405, "method");
	/* Enrolled again: a machine with no past. */
	assert_int_equal(enrol(b, &m, 60), 201);
	assert_int_equal(verdict_count(a, m.id), 0);
	assert_int_equal(machine_int(a, m.id, "next_seq"), 0);
	json_decref(accepted_round(b, &m));
	fsim_fini(&m);
	uie_http_free(a);
	uie_http_free(b);
}

static void test_rekey(void **state)
{
	struct uie_http *a = client(url_a), *b = client(url_b);
	struct fsim_machine m, fresh;
	uint8_t nonce[FSIM_NONCE_LEN], *ae;
	json_t *r;
	long status;
	size_t len, before;

	(void)state;
	trusted_machine(a, &m, "m-rekey");
	machine(&fresh, "m-rekey-new"); /* the machine's new key and log, posted under m's id */
	/* Bad re-keyings change nothing. */
	expect_call(a, "PUT", "/v1/machines/m-rekey/ak", "{", "application/json", 400, "bad_json");
	expect_call(a, "PUT", "/v1/machines/m-rekey/ak", "{\"ak_pub\":\"x\",\"id\":\"y\"}",
		    "application/json", 400, "bad_json");
	expect_call(a, "PUT", "/v1/machines/m-rekey/ak",
		    "{\"ak_pub\":\"-----BEGIN PUBLIC KEY-----\\nAAAA\\n\"}", "application/json", 400,
		    "bad_field");
	expect_call(a, "PUT", "/v1/machines/m-rekey/ak", NULL, NULL, 400, "bad_json");
	expect_call(a, "PUT", "/v1/machines/m-rekey", NULL, NULL, 405, "method");
	assert_int_equal(put_ak(a, "nobody", fresh.ak_pem, &r), 404);
	expect_error(404, r, 404, "unknown_machine");
	assert_int_equal(machine_int(b, m.id, "next_seq"), m.log.n);
	before = verdict_count(a, m.id);
	/* A nonce outstanding across the re-keying is void after it. */
	ae = evidence(a, &m, m.id, false, 0, nonce, &len);
	assert_int_equal(put_ak(a, m.id, fresh.ak_pem, &r), 200);
	assert_string_equal(json_string_value(json_object_get(r, "status")), "enrolled");
	assert_int_equal(jint(r, "next_seq"), 0);
	assert_string_equal(json_string_value(json_object_get(r, "mode")), "BOOTSTRAP");
	assert_true(json_is_null(json_object_get(r, "first_bad")));
	json_decref(r);
	assert_int_equal(fsim_post(a, m.id, nonce, ae, len, &status, &r), UIE_OK);
	expect_error(status, r, 409, "bad_nonce");
	free(ae);
	/* The old key no longer speaks for the machine. */
	assert_int_equal(fsim_round(a, &m, &status, &r), UIE_OK);
	expect_error(status, r, 403, "wrong_ak");
	/* The new one does, from record 0 of its log: replay starts over. */
	ae = evidence(b, &fresh, m.id, true, 0, nonce, &len);
	assert_int_equal(fsim_post(a, m.id, nonce, ae, len, &status, &r), UIE_OK);
	assert_int_equal(status, 200);
	assert_true(json_is_true(json_object_get(r, "accepted")));
	assert_int_equal(jint(r, "new_records"), fresh.log.n);
	json_decref(r);
	free(ae);
	/* The history stays. */
	assert_int_equal(verdict_count(a, m.id), before + 1);
	fsim_fini(&m);
	fsim_fini(&fresh);
	uie_http_free(a);
	uie_http_free(b);
}

/* The re-keying and deletion an attacker would make, refused: m keeps its key and its state. */
static void admin_refused(struct uie_http *h, struct fsim_machine *m, const struct fsim_machine *attacker,
			  const char *code)
{
	char path[128], ak_path[160];
	json_t *r;
	long status;

	snprintf(path, sizeof(path), "/v1/machines/%s", m->id);
	snprintf(ak_path, sizeof(ak_path), "%s/ak", path);
	status = put_ak(h, m->id, attacker->ak_pem, &r);
	expect_error(status, r, 403, code);
	/* Refused before the body is looked at. */
	expect_call(h, "PUT", ak_path, "{", "application/json", 403, code);
	expect_call(h, "DELETE", path, NULL, NULL, 403, code);
}

static void test_admin(void **state)
{
	struct uie_http *a = client(url_a), *b = client(url_b), *none = client_as(url_a, NULL),
			*wrong = client_as(url_a, "not-the-admin-token-of-a"),
			*a_at_b = client_as(url_b, token_a);
	struct fsim_machine m, attacker;
	uint8_t nonce[FSIM_NONCE_LEN], *ae;
	json_t *r;
	long status;
	size_t len, verdicts;

	(void)state;
	trusted_machine(a, &m, "m-admin");
	machine(&attacker, "m-admin-attacker");
	verdicts = verdict_count(a, m.id);
	/* A without the token or with another; B, which has no --admin-token, even with A's. */
	admin_refused(none, &m, &attacker, "admin_required");
	admin_refused(wrong, &m, &attacker, "admin_required");
	admin_refused(b, &m, &attacker, "admin_disabled");
	admin_refused(a_at_b, &m, &attacker, "admin_disabled");
	/* A requires the token for enrolment too; B enrols anyone (compatibility, docs/VERIFIER.md 7). */
	assert_int_equal(enrol(none, &attacker, 60), 403);
	assert_int_equal(enrol(wrong, &attacker, 60), 403);
	expect_call(a, "GET", "/v1/machines/m-admin-attacker", NULL, NULL, 404, "unknown_machine");
	/* Nothing changed: the attacker's evidence is not the machine's ... */
	ae = evidence(none, &attacker, m.id, true, 0, nonce, &len);
	assert_int_equal(fsim_post(none, m.id, nonce, ae, len, &status, &r), UIE_OK);
	expect_error(status, r, 403, "wrong_ak");
	free(ae);
	/* ... and the machine attests with its old key, an agent needing no token. */
	json_decref(accepted_round(none, &m));
	json_decref(accepted_round(b, &m));
	assert_int_equal(verdict_count(a, m.id), verdicts + 2);
	assert_int_equal(machine_int(none, m.id, "next_seq"), m.log.n);
	/* The right token: re-keyed, then deleted. */
	assert_int_equal(put_ak(a, m.id, attacker.ak_pem, &r), 200);
	json_decref(r);
	assert_int_equal(fsim_round(none, &m, &status, &r), UIE_OK);
	expect_error(status, r, 403, "wrong_ak");
	assert_int_equal(call(a, "DELETE", "/v1/machines/m-admin", NULL, NULL, &r), 204);
	expect_call(none, "GET", "/v1/machines/m-admin", NULL, NULL, 404, "unknown_machine");
	fsim_fini(&m);
	fsim_fini(&attacker);
	uie_http_free(a);
	uie_http_free(b);
	uie_http_free(none);
	uie_http_free(wrong);
	uie_http_free(a_at_b);
}

static void test_silent(void **state)
{
	struct uie_http *b = client(url_b);
	json_t *r, *list, *e;
	size_t i;
	int seen = 0;

	(void)state;
	r = get_machine(b, "m-quiet");
	assert_true(json_is_true(json_object_get(r, "silent")));
	assert_string_equal(json_string_value(json_object_get(r, "status")), "enrolled");
	json_decref(r);
	r = get_machine(b, "m-basic");
	assert_false(json_is_true(json_object_get(r, "silent")));
	json_decref(r);
	assert_int_equal(call(b, "GET", "/v1/machines", NULL, NULL, &r), 200);
	list = json_object_get(r, "machines");
	json_array_foreach(list, i, e) if (!strcmp(json_string_value(json_object_get(e, "id")), "m-quiet") &&
					   json_is_true(json_object_get(e, "silent"))) seen++;
	assert_int_equal(seen, 1);
	json_decref(r);
	uie_http_free(b);
}

TC_MAIN_ARGS("URL-A URL-B TOKEN", (&url_a, &url_b, &token_a), NULL, NULL,
	     cmocka_unit_test(test_enrol_and_nonce_across_verifiers), cmocka_unit_test(test_concurrent_posts),
	     cmocka_unit_test(test_restart), cmocka_unit_test_prestate(test_bad_records, (void *)&tampered),
	     cmocka_unit_test_prestate(test_bad_records, (void *)&skipped),
	     cmocka_unit_test_prestate(test_bad_records, (void *)&reordered),
	     cmocka_unit_test_prestate(test_bad_records, (void *)&replayed),
	     cmocka_unit_test(test_incremental_gap), cmocka_unit_test(test_bad_input),
	     cmocka_unit_test(test_nonce_limit), cmocka_unit_test(test_delete), cmocka_unit_test(test_rekey),
	     cmocka_unit_test(test_admin), cmocka_unit_test(test_silent))
