/* SPDX-License-Identifier: Apache-2.0 */
/* The bodies of enrolment by attestation: a fleet, the evidence, the activated secret (body.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/x509v3.h>

#include "b64.h"
#include "body.h"
#include "body_json.h"
#include "hex.h"
#include "snp_cert.h"
#include "uie/err.h"

bool vd_fleet_name_ok(const char *s)
{
	return uie_machine_id_ok(s);
}

/* A hex member of exactly n bytes. */
static int get_hex(json_t *o, const char *key, uint8_t *out, size_t n, char why[VD_WHY_LEN])
{
	const char *s;
	size_t len;
	int r;

	if ((r = vd_get_string(o, key, true, &s, &len, why)) != UIE_OK)
		return r;
	if (uie_hex_decode(s, len, out, n) != UIE_OK)
		return vd_why(why, UIE_E_RANGE, "\"%s\" must be %zu hex digits", key, 2 * n);
	return UIE_OK;
}

/* A base64 member of 1..max bytes, malloc'ed. */
static int get_b64(json_t *o, const char *key, size_t max, uint8_t **out, size_t *n, char why[VD_WHY_LEN])
{
	const char *s;
	size_t len;
	int r;

	if ((r = vd_get_string(o, key, true, &s, &len, why)) != UIE_OK)
		return r;
	if ((r = uie_b64_decode_alloc(s, len, out, n)) != UIE_OK)
		return r == UIE_E_NOMEM ? r : vd_why(why, UIE_E_RANGE, "\"%s\" is not base64", key);
	if (*n == 0 || *n > max)
		return vd_why(why, UIE_E_RANGE, "\"%s\" must hold 1..%zu bytes", key, max);
	return UIE_OK;
}

/* An optional boolean member. */
static int get_bool(json_t *o, const char *key, bool *out, char why[VD_WHY_LEN])
{
	json_t *v = json_object_get(o, key);

	if (v && !json_is_boolean(v))
		return vd_why(why, UIE_E_FORMAT, "\"%s\" must be true or false", key);
	*out = json_is_true(v);
	return UIE_OK;
}

/* An optional certificate member (PEM), kept as text; *cert parsed for the caller (X509_free). */
static int get_cert(json_t *o, const char *key, char **pem, X509 **cert, char why[VD_WHY_LEN])
{
	const char *s;
	size_t n;
	int r;

	*cert = NULL;
	if ((r = vd_get_string(o, key, false, &s, &n, why)) != UIE_OK || !s)
		return r;
	if (n > VD_PEM_MAX || n != strlen(s) || strncmp(s, "-----BEGIN CERTIFICATE-----", 27) != 0 ||
	    uie_snp_cert_parse_alloc((const uint8_t *)s, n, cert) != UIE_OK)
		return vd_why(why, UIE_E_RANGE, "\"%s\" is not an X.509 certificate in PEM", key);
	return (*pem = strdup(s)) ? UIE_OK : UIE_E_NOMEM;
}

static int fleet_roots(json_t *o, struct vd_fleet *f, char why[VD_WHY_LEN])
{
	X509 *ark = NULL, *ask = NULL;
	int r;

	if ((r = get_bool(o, "simulated", &f->simulated, why)) != UIE_OK ||
	    (r = get_cert(o, "ark", &f->ark_pem, &ark, why)) != UIE_OK ||
	    (r = get_cert(o, "ask", &f->ask_pem, &ask, why)) != UIE_OK)
		goto out;
	if (!ark != !ask)
		r = vd_why(why, UIE_E_RANGE,
			   "\"ark\" and \"ask\" go together (neither: AMD's built-in roots)");
	else if (f->simulated && !ark)
		r = vd_why(why, UIE_E_RANGE, "\"simulated\" needs the simulated root as \"ark\" and \"ask\"");
	else if (ark && f->simulated && uie_snp_ark_pinned(ark))
		r = vd_why(why, UIE_E_RANGE, "\"ark\" is one of AMD's pinned roots, not a simulated one");
	else if (ark && !f->simulated && !uie_snp_ark_pinned(ark))
		r = vd_why(why, UIE_E_RANGE,
			   "\"ark\" is not one of AMD's pinned roots (a simulated root needs "
			   "\"simulated\": true)");
	else if (ark && X509_check_issued(ark, ask) != X509_V_OK)
		r = vd_why(why, UIE_E_RANGE, "\"ask\" is not issued by \"ark\"");
out:
	X509_free(ark);
	X509_free(ask);
	return r;
}

/* "MAJOR.MINOR", each 0..255. */
static int get_abi(json_t *o, struct vd_fleet *f, char why[VD_WHY_LEN])
{
	unsigned major, minor;
	const char *s;
	size_t n;
	int r, used = 0;

	if ((r = vd_get_string(o, "min_abi", false, &s, &n, why)) != UIE_OK || !s)
		return r;
	if (n > 7 || strspn(s, "0123456789.") != n || sscanf(s, "%3u.%3u%n", &major, &minor, &used) != 2 ||
	    (size_t)used != n || major > 255 || minor > 255)
		return vd_why(why, UIE_E_RANGE, "\"min_abi\" must be MAJOR.MINOR, each 0..255");
	f->min_abi_major = (uint8_t)major;
	f->min_abi_minor = (uint8_t)minor;
	return UIE_OK;
}

static int get_measurements(json_t *o, struct vd_fleet *f, char why[VD_WHY_LEN])
{
	json_t *a = json_object_get(o, "measurements"), *v;
	size_t i;

	if (json_is_string(a) && strcmp(json_string_value(a), "any") == 0) {
		f->any_measurement = true;
		return UIE_OK;
	}
	if (!json_is_array(a))
		return vd_why(why, UIE_E_FORMAT,
			      "\"measurements\" must be an array of hex digests or \"any\"");
	if (json_array_size(a) > VD_MAX_MEASUREMENTS)
		return vd_why(why, UIE_E_RANGE, "at most %d measurements", VD_MAX_MEASUREMENTS);
	if (json_array_size(a) && !(f->measurements = calloc(json_array_size(a), VD_MEASUREMENT_LEN)))
		return UIE_E_NOMEM;
	json_array_foreach(a, i, v)
	{
		if (!json_is_string(v) || uie_hex_decode(json_string_value(v), json_string_length(v),
							 f->measurements[i], VD_MEASUREMENT_LEN) != UIE_OK)
			return vd_why(why, UIE_E_RANGE, "\"measurements\"[%zu] must be %d hex digits", i,
				      2 * VD_MEASUREMENT_LEN);
		f->nmeasurements++;
	}
	return UIE_OK;
}

static int fleet_fields(const struct uie_platform *pl, json_t *o, void *out, char why[VD_WHY_LEN])
{
	struct vd_fleet *f = out;
	json_int_t vmpl;
	uint8_t tcb[8];
	int r;

	if ((r = fleet_roots(o, f, why)) != UIE_OK ||
	    (r = vd_get_int(o, "vmpl", 0, 3, " (0 for an SVSM)", &vmpl, why)) != UIE_OK)
		return r;
	f->vmpl = (uint32_t)vmpl;
	if (json_object_get(o, "min_tcb")) {
		if ((r = get_hex(o, "min_tcb", tcb, sizeof(tcb), why)) != UIE_OK)
			return r;
		f->has_min_tcb = true;
		f->min_tcb = uie_le64(tcb);
	}
	if ((r = get_abi(o, f, why)) != UIE_OK)
		return r;
	return get_measurements(o, f, why);
}

void vd_fleet_free(struct vd_fleet *f)
{
	free(f->ark_pem);
	free(f->ask_pem);
	free(f->measurements);
	memset(f, 0, sizeof(*f));
}

static void fleet_release(void *f)
{
	vd_fleet_free(f);
}

static const char *const fleet_members[] = { "ark",     "ask",  "simulated",    "min_tcb",
					     "min_abi", "vmpl", "measurements", NULL };
const struct vd_body_kind vd_fleet_body = { fleet_members, sizeof(struct vd_fleet), fleet_fields,
					    fleet_release };

int vd_fleet_parse_alloc(const char *body, size_t len, struct vd_fleet *out, char why[VD_WHY_LEN])
{
	return vd_body_read(&vd_fleet_body, NULL, body, len, out, why);
}

static int ev_fields(const struct uie_platform *pl, json_t *o, void *out, char why[VD_WHY_LEN])
{
	struct vd_enrol_ev *v = out;
	const char *s;
	size_t n;
	int r;

	if ((r = get_hex(o, "nonce", v->nonce, sizeof(v->nonce), why)) != UIE_OK ||
	    (r = vd_get_string(o, "fleet", true, &s, &n, why)) != UIE_OK)
		return r;
	if (n != strlen(s) || !vd_fleet_name_ok(s))
		return vd_why(why, UIE_E_RANGE, "\"fleet\" must be 1-%d characters of A-Z a-z 0-9 . _ -",
			      VD_FLEET_MAX);
	memcpy(v->fleet, s, n + 1);
	if ((r = get_b64(o, "report", VD_SNP_BLOB_MAX, &v->report, &v->report_len, why)) != UIE_OK ||
	    (r = get_b64(o, "certs", VD_SNP_BLOB_MAX, &v->certs, &v->certs_len, why)) != UIE_OK ||
	    (r = get_b64(o, "manifest", VD_SNP_BLOB_MAX, &v->manifest, &v->manifest_len, why)) != UIE_OK ||
	    (r = get_bool(o, "single", &v->single, why)) != UIE_OK ||
	    (r = get_b64(o, "ek", VD_SNP_BLOB_MAX, &v->ek, &v->ek_len, why)) != UIE_OK ||
	    (r = get_b64(o, "ak", VD_SNP_BLOB_MAX, &v->ak, &v->ak_len, why)) != UIE_OK)
		return r;
	return vd_usual_fields(pl, o, &v->e, why);
}

void vd_enrol_ev_free(struct vd_enrol_ev *v)
{
	free(v->report);
	free(v->certs);
	free(v->manifest);
	free(v->ek);
	free(v->ak);
	vd_enrol_free(&v->e);
	memset(v, 0, sizeof(*v));
}

static void ev_release(void *v)
{
	vd_enrol_ev_free(v);
}

static const char *const enrol_ev_members[] = { "nonce",    "fleet",     "report",   "certs",
						"manifest", "single",    "ek",       "ak",
						"interval", "reference", "policies", NULL };
const struct vd_body_kind vd_enrol_ev_body = { enrol_ev_members, sizeof(struct vd_enrol_ev), ev_fields,
					       ev_release };

int vd_enrol_ev_parse_alloc(const struct uie_platform *pl, const char *body, size_t len,
			    struct vd_enrol_ev *out, char why[VD_WHY_LEN])
{
	return vd_body_read(&vd_enrol_ev_body, pl, body, len, out, why);
}

static int activate_fields(const struct uie_platform *pl, json_t *o, void *out, char why[VD_WHY_LEN])
{
	struct vd_activate *a = out;
	int r;

	if ((r = get_hex(o, "nonce", a->nonce, sizeof(a->nonce), why)) != UIE_OK)
		return r;
	return get_hex(o, "secret", a->secret, sizeof(a->secret), why);
}

static const char *const activate_members[] = { "nonce", "secret", NULL };
const struct vd_body_kind vd_activate_body = { activate_members, sizeof(struct vd_activate), activate_fields,
					       NULL };

int vd_activate_parse(const char *body, size_t len, struct vd_activate *out, char why[VD_WHY_LEN])
{
	return vd_body_read(&vd_activate_body, NULL, body, len, out, why);
}
