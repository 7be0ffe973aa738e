/* SPDX-License-Identifier: Apache-2.0 */
/*
 * libFuzzer target: the fleet verifier's request bodies (verifierd/body.c)
 * (body_enrol.c) and the base64 under them.  The first byte picks the
 * body (modulo 6: an enrolment, an attestation, a re-keying, a fleet, the
 * evidence of an enrolment by attestation, an activated secret), the rest
 * is the body.  What parses must hold only values in range, what does not
 * must leave its struct all zero; base64 must round-trip both ways (a text
 * that decodes is the encoding of what it decodes to: one text, one
 * meaning).
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "b64.h"
#include "body.h"
#include "body_json.h"
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

/*
 * body by kind k into out (size bytes): whether it parsed.  A refusal must
 * own nothing: out is left all zero (vd_body_read).
 */
static bool parsed(const struct vd_body_kind *k, const struct uie_platform *pl, const char *body, size_t len,
		   void *out, size_t size)
{
	char why[VD_WHY_LEN];
	const uint8_t *o = out;

	if (vd_body_read(k, pl, body, len, out, why) == UIE_OK)
		return true;
	for (size_t i = 0; i < size; i++)
		if (o[i])
			abort();
	return false;
}

static void check_enrol(const struct uie_platform *pl, const char *body, size_t len)
{
	struct vd_enrol e;

	if (!parsed(&vd_enrol_body, pl, body, len, &e, sizeof(e)))
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
	struct vd_attest a;

	if (!parsed(&vd_attest_body, NULL, body, len, &a, sizeof(a)))
		return;
	if (!a.ae)
		abort();
	vd_attest_free(&a);
}

static void check_rekey(const char *body, size_t len)
{
	struct vd_rekey k;

	if (!parsed(&vd_rekey_body, NULL, body, len, &k, sizeof(k)))
		return;
	if (!k.ak_der || !k.ak_len)
		abort();
	vd_rekey_free(&k);
}

static void check_fleet(const char *body, size_t len)
{
	struct vd_fleet f;

	if (!parsed(&vd_fleet_body, NULL, body, len, &f, sizeof(f)))
		return;
	if (f.vmpl > 3 || !f.ark_pem != !f.ask_pem || (f.simulated && !f.ark_pem) ||
	    f.nmeasurements > VD_MAX_MEASUREMENTS || (f.any_measurement && f.nmeasurements))
		abort();
	vd_fleet_free(&f);
}

static void check_enrol_ev(const struct uie_platform *pl, const char *body, size_t len)
{
	struct vd_enrol_ev v;

	if (!parsed(&vd_enrol_ev_body, pl, body, len, &v, sizeof(v)))
		return;
	if (!vd_fleet_name_ok(v.fleet) || !v.report_len || v.report_len > VD_SNP_BLOB_MAX || !v.certs_len ||
	    !v.manifest_len || !v.ek_len || !v.ak_len || v.e.interval < 1 || v.e.interval > 86400)
		abort();
	vd_enrol_ev_free(&v);
}

/* Any secret of the right length parses; a refused one must not stay behind (parsed checks). */
static void check_activate(const char *body, size_t len)
{
	struct vd_activate a;

	parsed(&vd_activate_body, NULL, body, len, &a, sizeof(a));
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
