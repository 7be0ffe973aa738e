/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Enrolment by attestation (docs/VERIFIER.md 3.8) against two running
 * uie-verifierd processes on one database (enrol.sh starts them): machines
 * in process, each a built-in vTPM (EK, AK, ActivateCredential) answering
 * as an SVSM would with a report signed by a simulated SEV-SNP chain.  The
 * happy path across both verifiers, then each refusal at the step that
 * catches it: a report for another nonce, a manifest naming another EK,
 * an AK from another TPM, a wrong secret, a fleet without the simulated
 * root, a measurement the fleet does not list, an expired pending
 * enrolment; the fleet's inputs refused; the enrolled AK's evidence
 * accepted by the existing push path.
 *
 *   test_enrol URL-A URL-B TOKEN  (A: --admin-token with TOKEN; B: none, --nonce-ttl 3)
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <openssl/pem.h>
#include <openssl/rand.h>

#include "b64.h"
#include "credential.h"
#include "fleetsim.h"
#include "hex.h"
#include "snp_sim.h"
#include "tcommon.h"
#include "tpem.h"
#include "uie/err.h"
#include "vtpm.h"

#define NONCE_LEN 64

static const char *url_a, *url_b, *token_a;
static struct uie_snp_sim sim;
static uint8_t meas[UIE_SNP_MEASUREMENT_LEN];
static char meas_hex[2 * UIE_SNP_MEASUREMENT_LEN + 1];

static struct uie_http *client(const char *base, const char *bearer)
{
	struct uie_http_opts o = { .base = base, .bearer = bearer };
	struct uie_http *h;

	assert_int_equal(uie_http_open_alloc(&o, &h), UIE_OK);
	return h;
}

/* The error of a reply: status, code, and the reason's start; frees *replyp (read after status was). */
static void expect(long status, json_t **replyp, long want, const char *code, const char *reason)
{
	json_t *reply = *replyp;
	const char *got = json_string_value(json_object_get(reply, "error")),
		   *why = json_string_value(json_object_get(reply, "reason"));

	if (status != want || !got || strcmp(got, code) != 0 || !why ||
	    (reason && strncmp(why, reason, strlen(reason)) != 0))
		fail_msg("want %ld %s \"%s...\", got %ld %s (%s)", want, code, reason ? reason : "", status,
			 got ? got : "-", why ? why : "");
	json_decref(reply);
}

static long put_fleet(struct uie_http *h, const char *name, json_t *body, json_t **reply)
{
	char path[128];
	long status;

	snprintf(path, sizeof(path), "/v1/fleets/%s", name);
	assert_non_null(body);
	assert_int_equal(uie_http_json(h, "PUT", path, body, &status, reply), UIE_OK);
	json_decref(body);
	return status;
}

/* The fleet "sim": the simulated root, VMPL 0, the one measurement. */
static json_t *sim_fleet(const char *measurement)
{
	char *ark = tpem_cert(sim.ark), *ask = tpem_cert(sim.ask);
	json_t *j = json_pack("{s:s, s:s, s:b, s:i, s:s, s:s, s:[s]}", "ark", ark, "ask", ask, "simulated", 1,
			      "vmpl", 0, "min_abi", "1.51", "min_tcb", "0000000000000000", "measurements",
			      measurement);

	free(ark);
	free(ask);
	return j;
}

/* What an SVSM whose vTPM is ek_tpm answers for nonce, as configfs-tsm gives it. */
static void svsm(struct uie_vtpm *ek_tpm, const uint8_t nonce[NONCE_LEN], struct uie_snp_tsm *out)
{
	struct uie_snp_report r;
	uint8_t *ek = NULL;
	size_t ek_len = 0;

	assert_int_equal(uie_snp_sim_template(&sim, meas, &r), UIE_OK);
	assert_int_equal(uie_vtpm_ek_public_alloc(ek_tpm, &ek, &ek_len), UIE_OK);
	/* The manifest holds the TPMT_PUBLIC: the TPM2B_PUBLIC without its size. */
	assert_int_equal(uie_snp_sim_attest(&sim, &r, nonce, ek + 2, ek_len - 2, false, out), UIE_OK);
	free(ek);
}

static char *b64(const uint8_t *p, size_t n)
{
	char *s = uie_b64_encode_alloc(p, n);

	assert_non_null(s);
	return s;
}

/* POST .../enrolment/nonce: the nonce of a 201. */
static void enrol_nonce(struct uie_http *h, const char *id, uint8_t nonce[NONCE_LEN])
{
	char path[128];
	json_t *reply = NULL, *n;
	long status;

	snprintf(path, sizeof(path), "/v1/machines/%s/enrolment/nonce", id);
	assert_int_equal(uie_http_json(h, "POST", path, NULL, &status, &reply), UIE_OK);
	n = json_object_get(reply, "nonce");
	if (status != 201 ||
	    uie_hex_decode(json_string_value(n), json_string_length(n), nonce, NONCE_LEN) != UIE_OK)
		fail_msg("enrolment nonce of %s: %ld %s", id, status, json_dumps(reply, 0));
	json_decref(reply);
}

/*
 * POST .../enrolment/evidence for nonce with what svsm answered report_tpm
 * asked with report_nonce, and the EK of ek_tpm and the AK of ak_tpm.
 */
static long post_evidence(struct uie_http *h, const char *id, const char *fleet,
			  const uint8_t nonce[NONCE_LEN], const struct uie_snp_tsm *tsm,
			  struct uie_vtpm *ek_tpm, struct uie_vtpm *ak_tpm, json_t **reply)
{
	char path[128], hex[2 * NONCE_LEN + 1], *s[5];
	uint8_t *ek = NULL, *ak = NULL;
	size_t ek_len = 0, ak_len = 0;
	json_t *body;
	long status;

	assert_int_equal(uie_vtpm_ek_public_alloc(ek_tpm, &ek, &ek_len), UIE_OK);
	assert_int_equal(uie_vtpm_ak_public_alloc(ak_tpm, &ak, &ak_len), UIE_OK);
	uie_hex_encode(hex, nonce, NONCE_LEN);
	s[0] = b64(tsm->report, tsm->report_len);
	s[1] = b64(tsm->aux, tsm->aux_len);
	s[2] = b64(tsm->manifest, tsm->manifest_len);
	s[3] = b64(ek, ek_len);
	s[4] = b64(ak, ak_len);
	body = json_pack("{s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:i}", "nonce", hex, "fleet", fleet, "report",
			 s[0], "certs", s[1], "manifest", s[2], "ek", s[3], "ak", s[4], "interval", 60);
	assert_non_null(body);
	snprintf(path, sizeof(path), "/v1/machines/%s/enrolment/evidence", id);
	assert_int_equal(uie_http_json(h, "POST", path, body, &status, reply), UIE_OK);
	json_decref(body);
	for (int i = 0; i < 5; i++)
		free(s[i]);
	free(ek);
	free(ak);
	return status;
}

/* The credential of a 201 activated by tpm: UIE_OK with the secret, or its refusal. */
static int activate_in(struct uie_vtpm *tpm, json_t *answer, uint8_t secret[UIE_CRED_MAX], size_t *len)
{
	json_t *c = json_object_get(answer, "credential");
	const uint8_t *blob, *sec;
	uint8_t *file = NULL;
	size_t fl = 0, bl, sl;
	int r;

	assert_int_equal(uie_b64_decode_alloc(json_string_value(c), json_string_length(c), &file, &fl),
			 UIE_OK);
	assert_int_equal(uie_credential_file_parse(file, fl, &blob, &bl, &sec, &sl), UIE_OK);
	r = uie_vtpm_activate_credential(tpm, blob, bl, sec, sl, secret, len);
	free(file);
	return r;
}

static long post_secret(struct uie_http *h, const char *id, const uint8_t nonce[NONCE_LEN],
			const uint8_t *secret, size_t len, json_t **reply)
{
	char path[128], hex[2 * NONCE_LEN + 1], shex[2 * UIE_CRED_MAX + 1];
	json_t *body;
	long status;

	uie_hex_encode(hex, nonce, NONCE_LEN);
	uie_hex_encode(shex, secret, len);
	body = json_pack("{s:s, s:s}", "nonce", hex, "secret", shex);
	snprintf(path, sizeof(path), "/v1/machines/%s/enrolment/activate", id);
	assert_int_equal(uie_http_json(h, "POST", path, body, &status, reply), UIE_OK);
	json_decref(body);
	return status;
}

static long get_status(struct uie_http *h, const char *id, json_t **reply)
{
	char path[128];
	long status;

	snprintf(path, sizeof(path), "/v1/machines/%s", id);
	assert_int_equal(uie_http_raw(h, "GET", path, NULL, 0, NULL, &status, reply), UIE_OK);
	return status;
}

static void not_enrolled(struct uie_http *h, const char *id)
{
	json_t *reply = NULL;

	expect(get_status(h, id, &reply), &reply, 404, "unknown_machine", NULL);
}

/* A machine m enrolling at h, maybe beside another machine, and what its SVSM answered. */
struct scene {
	struct uie_http *h;
	struct fsim_machine m, other;
	bool has_other;
	uint8_t nonce[NONCE_LEN];
	struct uie_snp_tsm tsm;
};

/*
 * m (id) with an enrolment nonce from base, and the SVSM's answer for it
 * over m's EK, or over other's when other_ek (other_id names it).
 */
static void scene_begin(struct scene *s, const char *base, const char *id, const char *other_id,
			bool other_ek)
{
	memset(s, 0, sizeof(*s));
	s->h = client(base, NULL);
	assert_int_equal(fsim_init(&s->m, id), UIE_OK);
	if ((s->has_other = other_id != NULL))
		assert_int_equal(fsim_init(&s->other, other_id), UIE_OK);
	enrol_nonce(s->h, id, s->nonce);
	svsm(other_ek ? s->other.tpm : s->m.tpm, s->nonce, &s->tsm);
}

static void scene_end(struct scene *s)
{
	uie_snp_tsm_free(&s->tsm);
	if (s->has_other)
		fsim_fini(&s->other);
	fsim_fini(&s->m);
	uie_http_free(s->h);
}

/* Nonce from A, evidence to B, the secret activated in m's vTPM to A; then m attests with its AK. */
static void test_happy_path_across_verifiers(void **state)
{
	struct uie_http *b = client(url_b, NULL);
	uint8_t secret[UIE_CRED_MAX], wrong[UIE_CRED_MAX];
	json_t *reply = NULL, *att;
	struct scene sc;
	size_t len = 0;
	long status;

	(void)state;
	scene_begin(&sc, url_a, "e-good", NULL, false);
	status = post_evidence(b, sc.m.id, "sim", sc.nonce, &sc.tsm, sc.m.tpm, sc.m.tpm, &reply);
	if (status != 201)
		fail_msg("evidence: %ld %s", status, json_dumps(reply, 0));
	assert_true(json_is_true(json_object_get(reply, "simulated")));
	assert_string_equal(json_string_value(json_object_get(reply, "report")), "ok (simulated root)");
	assert_int_equal(activate_in(sc.m.tpm, reply, secret, &len), UIE_OK);
	assert_int_equal(len, 32);
	json_decref(reply);
	not_enrolled(sc.h, sc.m.id); /* not before the secret comes back */
	/* A wrong secret is refused and changes nothing: the right one still enrols. */
	memcpy(wrong, secret, len);
	wrong[7] ^= 1;
	status = post_secret(sc.h, sc.m.id, sc.nonce, wrong, len, &reply);
	expect(status, &reply, 403, "attestation", "credential: ");
	not_enrolled(b, sc.m.id);
	status = post_secret(sc.h, sc.m.id, sc.nonce, secret, len, &reply);
	if (status != 201)
		fail_msg("activate: %ld %s", status, json_dumps(reply, 0));
	att = json_object_get(reply, "attestation");
	assert_string_equal(json_string_value(json_object_get(att, "fleet")), "sim");
	assert_string_equal(json_string_value(json_object_get(att, "measurement")), meas_hex);
	assert_true(json_is_true(json_object_get(att, "simulated")));
	assert_string_equal(json_string_value(json_object_get(reply, "status")), "enrolled");
	json_decref(reply);
	/* The answered enrolment is gone: the same secret again enrols nothing. */
	expect(post_secret(b, sc.m.id, sc.nonce, secret, len, &reply), &reply, 409, "bad_nonce",
	       "credential: ");
	/* The existing push path, verified with the activated AK, at either verifier. */
	assert_int_equal(fsim_round(b, &sc.m, &status, &reply), UIE_OK);
	if (status != 200 || !json_is_true(json_object_get(reply, "accepted")))
		fail_msg("round: %ld %s", status, json_dumps(reply, 0));
	assert_true(json_is_true(json_object_get(reply, "simulated"))); /* its AK's trust is simulated */
	json_decref(reply);
	assert_int_equal(get_status(sc.h, sc.m.id, &reply), 200);
	assert_string_equal(json_string_value(json_object_get(reply, "status")), "trusted");
	json_decref(reply);
	/* Enrolled: no second enrolment of that id. */
	assert_int_equal(
		uie_http_json(sc.h, "POST", "/v1/machines/e-good/enrolment/nonce", NULL, &status, &reply),
		UIE_OK);
	expect(status, &reply, 409, "exists", NULL);
	scene_end(&sc);
	uie_http_free(b);
}

/* A report the SVSM made for another nonce: refused at the binding. */
static void test_report_for_another_nonce(void **state)
{
	uint8_t other[NONCE_LEN];
	json_t *reply = NULL;
	struct scene sc;

	(void)state;
	scene_begin(&sc, url_a, "e-nonce", NULL, false);
	enrol_nonce(sc.h, sc.m.id, other); /* issued too, but the report is for the first */
	expect(post_evidence(sc.h, sc.m.id, "sim", other, &sc.tsm, sc.m.tpm, sc.m.tpm, &reply), &reply, 403,
	       "attestation", "binding: REPORT_DATA");
	/* A nonce never issued is refused before anything is judged. */
	RAND_bytes(other, sizeof(other));
	expect(post_evidence(sc.h, sc.m.id, "sim", other, &sc.tsm, sc.m.tpm, sc.m.tpm, &reply), &reply, 409,
	       "bad_nonce", "binding: ");
	not_enrolled(sc.h, sc.m.id);
	scene_end(&sc);
}

/* The report binds another vTPM's EK than the one posted. */
static void test_manifest_names_another_ek(void **state)
{
	json_t *reply = NULL;
	struct scene sc;

	(void)state;
	scene_begin(&sc, url_a, "e-ek", "e-ek-other", true);
	expect(post_evidence(sc.h, sc.m.id, "sim", sc.nonce, &sc.tsm, sc.m.tpm, sc.m.tpm, &reply), &reply,
	       403, "attestation", "manifest: EK differs");
	not_enrolled(sc.h, sc.m.id);
	scene_end(&sc);
}

/* The EK of m's vTPM with the AK of another: neither TPM can answer the credential. */
static void test_ak_from_another_tpm(void **state)
{
	uint8_t secret[UIE_CRED_MAX], guess[32];
	json_t *reply = NULL, *cred;
	struct scene sc;
	size_t len = 0;

	(void)state;
	scene_begin(&sc, url_a, "e-ak", "e-ak-other", false);
	assert_int_equal(
		post_evidence(sc.h, sc.m.id, "sim", sc.nonce, &sc.tsm, sc.m.tpm, sc.other.tpm, &cred), 201);
	assert_int_equal(activate_in(sc.m.tpm, cred, secret, &len), UIE_E_SIGNATURE); /* not its AK's name */
	assert_int_equal(activate_in(sc.other.tpm, cred, secret, &len), UIE_E_KEY);   /* not its EK */
	json_decref(cred);
	RAND_bytes(guess, sizeof(guess));
	expect(post_secret(sc.h, sc.m.id, sc.nonce, guess, sizeof(guess), &reply), &reply, 403, "attestation",
	       "credential: ");
	not_enrolled(sc.h, sc.m.id);
	scene_end(&sc);
}

/* Fleets that do not trust this report: AMD's roots only, another measurement, none. */
static void test_fleet_refuses(void **state)
{
	struct uie_http *adm = client(url_a, token_a);
	char other[2 * UIE_SNP_MEASUREMENT_LEN + 1];
	json_t *reply = NULL;
	struct scene sc;

	(void)state;
	memset(other, 'a', sizeof(other) - 1);
	other[sizeof(other) - 1] = '\0';
	assert_int_equal(
		put_fleet(adm, "amd", json_pack("{s:i, s:s}", "vmpl", 0, "measurements", "any"), &reply),
		201);
	json_decref(reply);
	assert_int_equal(put_fleet(adm, "other", sim_fleet(other), &reply), 201);
	json_decref(reply);
	assert_int_equal(put_fleet(adm, "none", json_pack("{s:i, s:[]}", "vmpl", 0, "measurements"), &reply),
			 201);
	json_decref(reply);
	scene_begin(&sc, url_a, "e-fleet", NULL, false);
#define REFUSED(fleet, status, code, reason)                                                               \
	expect(post_evidence(sc.h, sc.m.id, fleet, sc.nonce, &sc.tsm, sc.m.tpm, sc.m.tpm, &reply), &reply, \
	       status, code, reason)
	REFUSED("amd", 403, "attestation", "report: ");
	REFUSED("other", 403, "attestation", "report: SIMULATED root, MEASUREMENT");
	REFUSED("none", 403, "attestation", "report: fleet \"none\" accepts no launch measurement");
	REFUSED("nosuch", 404, "unknown_fleet", NULL);
#undef REFUSED
	/* The fleet is what decides: the same evidence under "sim" holds. */
	assert_int_equal(post_evidence(sc.h, sc.m.id, "sim", sc.nonce, &sc.tsm, sc.m.tpm, sc.m.tpm, &reply),
			 201);
	json_decref(reply);
	scene_end(&sc);
	uie_http_free(adm);
}

/* B's pending enrolments live 3 s (--nonce-ttl 3): an answer after that is refused at A. */
static void test_expired_pending_enrolment(void **state)
{
	struct uie_http *b = client(url_b, NULL);
	uint8_t secret[UIE_CRED_MAX];
	json_t *reply = NULL;
	struct scene sc;
	size_t len = 0;

	(void)state;
	scene_begin(&sc, url_a, "e-late", NULL, false);
	assert_int_equal(post_evidence(b, sc.m.id, "sim", sc.nonce, &sc.tsm, sc.m.tpm, sc.m.tpm, &reply),
			 201);
	assert_int_equal(activate_in(sc.m.tpm, reply, secret, &len), UIE_OK);
	json_decref(reply);
	sleep(4);
	expect(post_secret(sc.h, sc.m.id, sc.nonce, secret, len, &reply), &reply, 409, "bad_nonce",
	       "credential: ");
	not_enrolled(sc.h, sc.m.id);
	scene_end(&sc);
	uie_http_free(b);
}

/* Fleet bodies that are refused (400, nothing stored), and the administrator's token. */
static void test_fleet_inputs(void **state)
{
	struct uie_http *adm = client(url_a, token_a), *anon = client(url_a, NULL), *b = client(url_b, NULL);
	char *ark = tpem_cert(sim.ark), *ask = tpem_cert(sim.ask);
	json_t *reply = NULL;
	struct {
		json_t *body;
		const char *code;
	} bad[] = {
		{ json_pack("{s:s, s:s, s:i, s:s}", "ark", ark, "ask", ask, "vmpl", 0, "measurements", "any"),
		  "bad_field" }, /* an unpinned root not said to be simulated */
		{ json_pack("{s:b, s:i, s:s}", "simulated", 1, "vmpl", 0, "measurements", "any"),
		  "bad_field" },
		{ json_pack("{s:s, s:b, s:i, s:s}", "ark", ark, "simulated", 1, "vmpl", 0, "measurements",
			    "any"),
		  "bad_field" },
		{ json_pack("{s:s, s:s, s:b, s:i, s:s}", "ark", ask, "ask", ark, "simulated", 1, "vmpl", 0,
			    "measurements", "any"),
		  "bad_field" },
		{ json_pack("{s:i, s:s}", "vmpl", 4, "measurements", "any"), "bad_field" },
		{ json_pack("{s:s}", "measurements", "any"), "bad_json" },
		{ json_pack("{s:i}", "vmpl", 0), "bad_json" },
		{ json_pack("{s:i, s:[s]}", "vmpl", 0, "measurements", "abcd"), "bad_field" },
		{ json_pack("{s:i, s:s}", "vmpl", 0, "measurements", "all"), "bad_json" },
		{ json_pack("{s:i, s:s, s:s}", "vmpl", 0, "measurements", "any", "min_abi", "1.x"),
		  "bad_field" },
		{ json_pack("{s:i, s:s, s:s}", "vmpl", 0, "measurements", "any", "min_tcb", "00"),
		  "bad_field" },
		{ json_pack("{s:i, s:s, s:i}", "vmpl", 0, "measurements", "any", "extra", 1), "bad_json" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		long status = put_fleet(adm, "bad", bad[i].body, &reply);

		expect(status, &reply, 400, bad[i].code, NULL);
	}
	expect(put_fleet(anon, "bad", json_pack("{s:i, s:s}", "vmpl", 0, "measurements", "any"), &reply),
	       &reply, 403, "admin_required", NULL);
	expect(put_fleet(b, "bad", json_pack("{s:i, s:s}", "vmpl", 0, "measurements", "any"), &reply), &reply,
	       403, "admin_disabled", NULL);
	/* None of it stored: evidence naming "bad" finds no fleet (after the nonce is checked). */
	free(ark);
	free(ask);
	uie_http_free(adm);
	uie_http_free(anon);
	uie_http_free(b);
}

static int setup(void **state)
{
	uint8_t chip[UIE_SNP_CHIP_ID_LEN];
	struct uie_http *adm = client(url_a, token_a);
	json_t *reply = NULL;
	long status;

	(void)state;
	RAND_bytes(chip, sizeof(chip));
	RAND_bytes(meas, sizeof(meas));
	uie_hex_encode(meas_hex, meas, sizeof(meas));
	if (uie_snp_sim_roots(UIE_SNP_MILAN, &sim) != UIE_OK ||
	    uie_snp_sim_vcek(&sim, chip, 0x1500000000000403ull, false) != UIE_OK)
		return -1;
	status = put_fleet(adm, "sim", sim_fleet(meas_hex), &reply);
	json_decref(reply);
	uie_http_free(adm);
	return status == 201 ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	uie_snp_sim_free(&sim);
	return 0;
}

TC_MAIN_ARGS("URL-A URL-B TOKEN", (&url_a, &url_b, &token_a), setup, teardown,
	     cmocka_unit_test(test_fleet_inputs), cmocka_unit_test(test_happy_path_across_verifiers),
	     cmocka_unit_test(test_report_for_another_nonce),
	     cmocka_unit_test(test_manifest_names_another_ek), cmocka_unit_test(test_ak_from_another_tpm),
	     cmocka_unit_test(test_fleet_refuses), cmocka_unit_test(test_expired_pending_enrolment))
