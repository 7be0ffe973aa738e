/* SPDX-License-Identifier: Apache-2.0 */
#include "body.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>
#include <openssl/x509.h>

#include "b64.h"
#include "body_json.h"
#include "hex.h"
#include "pubkey.h"
#include "uie/err.h"
#include "uie/package.h"
#include "verify.h"

int vd_why(char why[VD_WHY_LEN], int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	/* NOLINTNEXTLINE(clang-analyzer-valist.Uninitialized): va_start is the line above; clang 14 loses it on the path through get_ak from rekey_fields */
	vsnprintf(why, VD_WHY_LEN, fmt, ap);
	va_end(ap);
	return err;
}

/* The body as one JSON object whose members are all in allowed (NULL-terminated). */
static int load_object(const char *body, size_t len, const char *const *allowed, json_t **out,
		       char why[VD_WHY_LEN])
{
	json_error_t jerr;
	const char *key;
	json_t *v, *o = json_loadb(body, len, JSON_REJECT_DUPLICATES, &jerr);

	*out = NULL;
	if (!o && len == 0)
		return vd_why(why, UIE_E_FORMAT, "empty body: a JSON object is needed");
	if (!o)
		return vd_why(why, UIE_E_FORMAT, "body is not JSON: %s at byte %d", jerr.text, jerr.position);
	if (!json_is_object(o)) {
		json_decref(o);
		return vd_why(why, UIE_E_FORMAT, "body is not a JSON object");
	}
	json_object_foreach(o, key, v)
	{
		size_t i = 0;

		while (allowed[i] && strcmp(allowed[i], key) != 0)
			i++;
		if (!allowed[i]) {
			vd_why(why, UIE_E_FORMAT, "unknown field \"%.64s\"", key); /* key dies with o */
			json_decref(o);
			return UIE_E_FORMAT;
		}
	}
	*out = o;
	return UIE_OK;
}

int vd_body_read(const struct vd_body_kind *k, const struct uie_platform *pl, const char *body, size_t len,
		 void *out, char why[VD_WHY_LEN])
{
	json_t *o;
	int r;

	memset(out, 0, k->size);
	if ((r = load_object(body, len, k->members, &o, why)) != UIE_OK)
		return r;
	r = k->read(pl, o, out, why);
	json_decref(o);
	if (r != UIE_OK && k->release)
		k->release(out);
	if (r != UIE_OK)
		memset(out, 0, k->size);
	return r;
}

int vd_get_string(json_t *o, const char *key, bool required, const char **s, size_t *n, char why[VD_WHY_LEN])
{
	json_t *v = json_object_get(o, key);

	*s = NULL;
	*n = 0;
	if (!v && !required)
		return UIE_OK;
	if (!json_is_string(v))
		return vd_why(why, UIE_E_FORMAT, "\"%s\" must be a string", key);
	*s = json_string_value(v);
	*n = json_string_length(v);
	return UIE_OK;
}

int vd_get_int(json_t *o, const char *key, json_int_t lo, json_int_t hi, const char *unit, json_int_t *v,
	       char why[VD_WHY_LEN])
{
	json_t *j = json_object_get(o, key);

	*v = json_integer_value(j); /* 0 for what is not an integer */
	if (!json_is_integer(j))
		return vd_why(why, UIE_E_FORMAT, "\"%s\" must be an integer", key);
	if (*v < lo || *v > hi)
		return vd_why(why, UIE_E_RANGE, "\"%s\" must be %lld..%lld%s", key, (long long)lo,
			      (long long)hi, unit);
	return UIE_OK;
}

/* "ak_pub" as DER, *der owned by the caller (OPENSSL_free). */
static int get_ak(json_t *o, uint8_t **der_out, size_t *der_len, char why[VD_WHY_LEN])
{
	EVP_PKEY *pk = NULL;
	unsigned char *der = NULL;
	const char *s;
	size_t n;
	int r, len;

	if ((r = vd_get_string(o, "ak_pub", true, &s, &n, why)) != UIE_OK)
		return r;
	if (uie_pubkey_parse_alloc((const uint8_t *)s, n, &pk) != UIE_OK ||
	    EVP_PKEY_get_base_id(pk) != EVP_PKEY_EC) {
		EVP_PKEY_free(pk);
		return vd_why(why, UIE_E_RANGE, "\"ak_pub\" is not an EC public key (PEM)");
	}
	len = i2d_PUBKEY(pk, &der);
	EVP_PKEY_free(pk);
	if (len <= 0)
		return UIE_E_NOMEM;
	*der_out = der;
	*der_len = (size_t)len;
	return UIE_OK;
}

int vd_policy_parse(const struct uie_platform *pl, const uint8_t *buf, size_t len,
		    struct uie_verify_policy *out)
{
	struct uie_package pkg;
	int r;

	if ((r = uie_package_parse(pl, buf, len, &pkg)) != UIE_OK ||
	    (r = uie_policy_load(pkg.table, pkg.table_len, &out->table)) != UIE_OK)
		return r;
	out->epoch = pkg.epoch;
	memcpy(out->package_hash, pkg.package_hash, sizeof(out->package_hash));
	return UIE_OK;
}

static int get_policy(const struct uie_platform *pl, json_t *v, size_t i, struct vd_enrol *e,
		      char why[VD_WHY_LEN])
{
	struct vd_policy_pkg *p = &e->pol[e->npol];
	struct uie_verify_policy pol;
	int r;

	if (!json_is_string(v))
		return vd_why(why, UIE_E_FORMAT, "\"policies\"[%zu] must be a string", i);
	if ((r = uie_b64_decode_alloc(json_string_value(v), json_string_length(v), &p->bytes, &p->len)) !=
	    UIE_OK)
		return r == UIE_E_NOMEM ? r : vd_why(why, UIE_E_RANGE, "\"policies\"[%zu] is not base64", i);
	e->npol++;
	if ((r = vd_policy_parse(pl, p->bytes, p->len, &pol)) != UIE_OK)
		return vd_why(why, UIE_E_RANGE, "\"policies\"[%zu] is not a policy package: %s", i,
			      uie_err_str(r));
	p->epoch = pol.epoch;
	for (size_t k = 0; k + 1 < e->npol; k++)
		if (e->pol[k].epoch == p->epoch)
			return vd_why(why, UIE_E_RANGE, "two policy packages for epoch %llu",
				      (unsigned long long)p->epoch);
	return UIE_OK;
}

static int get_policies(const struct uie_platform *pl, json_t *o, struct vd_enrol *e, char why[VD_WHY_LEN])
{
	json_t *a = json_object_get(o, "policies"), *v;
	size_t i;
	int r;

	if (!a)
		return UIE_OK;
	if (!json_is_array(a))
		return vd_why(why, UIE_E_FORMAT, "\"policies\" must be an array");
	if (json_array_size(a) > VD_MAX_POLICIES)
		return vd_why(why, UIE_E_RANGE, "at most %d policies", VD_MAX_POLICIES);
	json_array_foreach(a, i, v) if ((r = get_policy(pl, v, i, e, why)) != UIE_OK) return r;
	return UIE_OK;
}

/* The reference values as an attestation will read them: a line that does not parse is named. */
static int check_reference(const char *text, size_t len, char why[VD_WHY_LEN])
{
	struct uie_refset ref;
	size_t line = 0;
	int r = uie_refset_parse(text, len, &ref, &line);

	if (r == UIE_OK)
		uie_refset_fini(&ref);
	else if (r != UIE_E_NOMEM)
		r = vd_why(why, UIE_E_RANGE, "\"reference\" line %zu: %s", line, uie_err_str(r));
	return r;
}

/* The fields every enrolment has: "interval", "reference"?, "policies"?. */
int vd_usual_fields(const struct uie_platform *pl, json_t *o, struct vd_enrol *e, char why[VD_WHY_LEN])
{
	json_int_t interval;
	const char *s;
	size_t n;
	int r;

	if ((r = vd_get_int(o, "interval", 1, 86400, " seconds", &interval, why)) != UIE_OK)
		return r;
	e->interval = (uint32_t)interval;
	if ((r = vd_get_string(o, "reference", false, &s, &n, why)) != UIE_OK)
		return r;
	if (s && (n != strlen(s) || n > VD_REFERENCE_MAX))
		return vd_why(why, UIE_E_RANGE, "\"reference\" holds a NUL byte or is over %u bytes",
			      VD_REFERENCE_MAX);
	if (s && (r = check_reference(s, n, why)) != UIE_OK)
		return r;
	if (s && !(e->reference = strdup(s)))
		return UIE_E_NOMEM;
	return get_policies(pl, o, e, why);
}

static int enrol_fields(const struct uie_platform *pl, json_t *o, void *out, char why[VD_WHY_LEN])
{
	struct vd_enrol *e = out;
	const char *s;
	size_t n;
	int r;

	if ((r = vd_get_string(o, "id", true, &s, &n, why)) != UIE_OK)
		return r;
	if (!s || n != strlen(s) || !uie_machine_id_ok(s))
		return vd_why(why, UIE_E_RANGE, "\"id\" must be 1-%d characters of A-Z a-z 0-9 . _ -",
			      VD_ID_MAX);
	memcpy(e->id, s, n + 1);
	if ((r = get_ak(o, &e->ak_der, &e->ak_len, why)) != UIE_OK)
		return r;
	return vd_usual_fields(pl, o, e, why);
}

static void enrol_release(void *e)
{
	vd_enrol_free(e);
}

static const char *const enrol_members[] = { "id", "ak_pub", "interval", "reference", "policies", NULL };
const struct vd_body_kind vd_enrol_body = { enrol_members, sizeof(struct vd_enrol), enrol_fields,
					    enrol_release };

int vd_enrol_parse_alloc(const struct uie_platform *pl, const char *body, size_t len, struct vd_enrol *out,
			 char why[VD_WHY_LEN])
{
	return vd_body_read(&vd_enrol_body, pl, body, len, out, why);
}

void vd_enrol_free(struct vd_enrol *e)
{
	OPENSSL_free(e->ak_der);
	free(e->reference);
	for (size_t i = 0; i < e->npol; i++)
		free(e->pol[i].bytes);
	memset(e, 0, sizeof(*e));
}

static int rekey_fields(const struct uie_platform *pl, json_t *o, void *out, char why[VD_WHY_LEN])
{
	struct vd_rekey *k = out;

	return get_ak(o, &k->ak_der, &k->ak_len, why);
}

static const char *const rekey_members[] = { "ak_pub", NULL };
const struct vd_body_kind vd_rekey_body = { rekey_members, sizeof(struct vd_rekey), rekey_fields, NULL };

int vd_rekey_parse_alloc(const char *body, size_t len, struct vd_rekey *out, char why[VD_WHY_LEN])
{
	return vd_body_read(&vd_rekey_body, NULL, body, len, out, why);
}

void vd_rekey_free(struct vd_rekey *k)
{
	OPENSSL_free(k->ak_der);
	memset(k, 0, sizeof(*k));
}

static int attest_fields(const struct uie_platform *pl, json_t *o, void *out, char why[VD_WHY_LEN])
{
	struct vd_attest *a = out;
	const char *nonce, *ev;
	size_t nlen, elen;
	int r;

	if ((r = vd_get_string(o, "nonce", true, &nonce, &nlen, why)) != UIE_OK ||
	    (r = vd_get_string(o, "evidence", true, &ev, &elen, why)) != UIE_OK)
		return r;
	if (uie_hex_decode(nonce, nlen, a->nonce, VD_NONCE_LEN) != UIE_OK)
		return vd_why(why, UIE_E_RANGE, "\"nonce\" must be %d hex digits", 2 * VD_NONCE_LEN);
	if ((r = uie_b64_decode_alloc(ev, elen, &a->ae, &a->ae_len)) != UIE_OK && r != UIE_E_NOMEM)
		r = vd_why(why, UIE_E_RANGE, "\"evidence\" is not base64");
	return r;
}

static void attest_release(void *a)
{
	vd_attest_free(a);
}

static const char *const attest_members[] = { "nonce", "evidence", NULL };
const struct vd_body_kind vd_attest_body = { attest_members, sizeof(struct vd_attest), attest_fields,
					     attest_release };

int vd_attest_parse_alloc(const char *body, size_t len, struct vd_attest *out, char why[VD_WHY_LEN])
{
	return vd_body_read(&vd_attest_body, NULL, body, len, out, why);
}

void vd_attest_free(struct vd_attest *a)
{
	free(a->ae);
	memset(a, 0, sizeof(*a));
}
