/* SPDX-License-Identifier: Apache-2.0 */
/*
 * libFuzzer target: the fleet verifier's request bodies (verifierd/body.c)
 * (body_enrol.c) and the base64 under them.  The first byte picks the
 * body (modulo 6: an enrolment, an attestation, a re-keying, a fleet, the
 * evidence of an enrolment by attestation, an activated secret), the rest
 * is the body.  What parses must
 * hold only values in range; base64 must round-trip both ways (a text that
 * decodes is the encoding of what it decodes to: one text, one meaning).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "b64.h"
#include "body.h"
#include "fuzz_platform.h"
#include "uie/err.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_b64(const uint8_t *data, size_t size)
{
	char *enc = uie_b64_encode_alloc(data, size), *again;
	uint8_t *dec;
	size_t n;

	if (!enc || uie_b64_decode_alloc(enc, strlen(enc), &dec, &n) != UIE_OK || n != size ||
	    (size && memcmp(dec, data, size) != 0))
		abort();
	free(dec);
	free(enc);
	if (uie_b64_decode_alloc((const char *)data, size, &dec, &n) != UIE_OK)
		return;
	again = uie_b64_encode_alloc(dec, n);
	if (!again || strlen(again) != size || memcmp(again, data, size) != 0)
		abort();
	free(again);
	free(dec);
}

static void check_enrol(const struct uie_platform *pl, const char *body, size_t len)
{
	char why[VD_WHY_LEN];
	struct vd_enrol e;

	if (vd_enrol_parse_alloc(pl, body, len, &e, why) != UIE_OK)
		return;
	if (!uie_machine_id_ok(e.id) || e.interval < 1 || e.interval > 86400 || !e.ak_der || !e.ak_len ||
	    e.npol > VD_MAX_POLICIES)
		abort();
	for (size_t i = 0; i < e.npol; i++)
		for (size_t k = 0; k < i; k++)
			if (e.pol[k].epoch == e.pol[i].epoch)
				abort();
	vd_enrol_free(&e);
}

static void check_attest(const char *body, size_t len)
{
	char why[VD_WHY_LEN];
	struct vd_attest a;

	if (vd_attest_parse_alloc(body, len, &a, why) != UIE_OK)
		return;
	if (!a.ae)
		abort();
	vd_attest_free(&a);
}

static void check_rekey(const char *body, size_t len)
{
	char why[VD_WHY_LEN];
	struct vd_rekey k;

	if (vd_rekey_parse_alloc(body, len, &k, why) != UIE_OK) {
		if (k.ak_der || k.ak_len) /* a refusal owns nothing */
			abort();
		return;
	}
	if (!k.ak_der || !k.ak_len)
		abort();
	vd_rekey_free(&k);
}

static void check_fleet(const char *body, size_t len)
{
	char why[VD_WHY_LEN];
	struct vd_fleet f;

	if (vd_fleet_parse_alloc(body, len, &f, why) != UIE_OK) {
		if (f.ark_pem || f.ask_pem || f.measurements) /* a refusal owns nothing */
			abort();
		return;
	}
	if (f.vmpl > 3 || !f.ark_pem != !f.ask_pem || (f.simulated && !f.ark_pem) ||
	    f.nmeasurements > VD_MAX_MEASUREMENTS || (f.any_measurement && f.nmeasurements))
		abort();
	vd_fleet_free(&f);
}

static void check_enrol_ev(const struct uie_platform *pl, const char *body, size_t len)
{
	char why[VD_WHY_LEN];
	struct vd_enrol_ev v;

	if (vd_enrol_ev_parse_alloc(pl, body, len, &v, why) != UIE_OK) {
		if (v.report || v.certs || v.manifest || v.ek || v.ak)
			abort();
		return;
	}
	if (!vd_fleet_name_ok(v.fleet) || !v.report_len || v.report_len > VD_SNP_BLOB_MAX || !v.certs_len ||
	    !v.manifest_len || !v.ek_len || !v.ak_len || v.e.interval < 1 || v.e.interval > 86400)
		abort();
	vd_enrol_ev_free(&v);
}

static void check_activate(const char *body, size_t len)
{
	char why[VD_WHY_LEN];
	struct vd_activate a;
	static const uint8_t zero[VD_SECRET_LEN];

	if (vd_activate_parse(body, len, &a, why) != UIE_OK && memcmp(a.secret, zero, sizeof(zero)) != 0)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct uie_host_platform *hp = fuzz_platform();

	check_b64(data, size);
	if (size < 1)
		return 0;
	switch (data[0] % 6) {
	case 0: check_enrol(&hp->pl, (const char *)data + 1, size - 1); break;
	case 1: check_attest((const char *)data + 1, size - 1); break;
	case 2: check_rekey((const char *)data + 1, size - 1); break;
	case 3: check_fleet((const char *)data + 1, size - 1); break;
	case 4: check_enrol_ev(&hp->pl, (const char *)data + 1, size - 1); break;
	default: check_activate((const char *)data + 1, size - 1);
	}
	return 0;
}
