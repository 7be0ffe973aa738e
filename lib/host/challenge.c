/* SPDX-License-Identifier: Apache-2.0 */
/* A credential challenge as the verifier keeps it (challenge.h). */
#include <stdlib.h>
#include <string.h>

#include <jansson.h>
#include <openssl/crypto.h>
#include <openssl/sha.h>

#include "challenge.h"
#include "hex.h"
#include "uie/err.h"

int uie_challenge_of(const TPMT_PUBLIC *ek, const TPMT_PUBLIC *ak, const uint8_t *secret, size_t n,
		     struct uie_challenge *out)
{
	int r;

	memset(out, 0, sizeof(*out));
	if ((r = uie_tpm_public_name(ek, out->ek_name, &out->ek_name_len)) != UIE_OK ||
	    (r = uie_tpm_public_name(ak, out->ak_name, &out->ak_name_len)) != UIE_OK)
		return r;
	SHA256(secret, n, out->secret_sha256);
	return UIE_OK;
}

/* p[0..n) as a new JSON hex string. */
static json_t *hex_json(const uint8_t *p, size_t n)
{
	char h[2 * UIE_TPM_NAME_MAX + 1];

	uie_hex_encode(h, p, n);
	return json_string(h);
}

int uie_challenge_json_alloc(const struct uie_challenge *c, char **text, size_t *len)
{
	json_t *j = json_pack("{s:o, s:o, s:o}", "ek_name", hex_json(c->ek_name, c->ek_name_len), "ak_name",
			      hex_json(c->ak_name, c->ak_name_len), "secret_sha256",
			      hex_json(c->secret_sha256, sizeof(c->secret_sha256)));
	char *s = j ? json_dumps(j, JSON_INDENT(2)) : NULL;

	json_decref(j);
	*text = NULL;
	*len = 0;
	if (!s)
		return UIE_E_NOMEM;
	*len = strlen(s) + 1;
	if (!(*text = malloc(*len + 1))) {
		free(s);
		return UIE_E_NOMEM;
	}
	memcpy(*text, s, *len - 1);
	(*text)[*len - 1] = '\n';
	(*text)[*len] = '\0';
	free(s);
	return UIE_OK;
}

/* Field key of j, hex of 1..cap bytes (exactly cap when exact) into dst. */
static int hex_field(json_t *j, const char *key, uint8_t *dst, size_t cap, bool exact, size_t *len)
{
	const char *s = json_string_value(json_object_get(j, key));
	size_t n = s ? strlen(s) : 0;

	if (!s || n == 0 || n % 2 || n / 2 > cap || (exact && n / 2 != cap) ||
	    uie_hex_decode(s, n, dst, n / 2) != UIE_OK)
		return UIE_E_FORMAT;
	if (len)
		*len = n / 2;
	return UIE_OK;
}

int uie_challenge_parse(const uint8_t *p, size_t n, struct uie_challenge *out, const char **why)
{
	json_t *j = json_loadb((const char *)p, n, JSON_REJECT_DUPLICATES, NULL);
	int r = UIE_E_FORMAT;

	memset(out, 0, sizeof(*out));
	if (!json_is_object(j) || json_object_size(j) != 3)
		*why = "not a challenge (a JSON object of ek_name, ak_name and secret_sha256)";
	else if (hex_field(j, "ek_name", out->ek_name, UIE_TPM_NAME_MAX, false, &out->ek_name_len) != UIE_OK)
		*why = "ek_name: want a TPM object name in hex";
	else if (hex_field(j, "ak_name", out->ak_name, UIE_TPM_NAME_MAX, false, &out->ak_name_len) != UIE_OK)
		*why = "ak_name: want a TPM object name in hex";
	else if (hex_field(j, "secret_sha256", out->secret_sha256, 32, true, NULL) != UIE_OK)
		*why = "secret_sha256: want 64 hex digits";
	else
		r = UIE_OK;
	json_decref(j);
	if (r != UIE_OK)
		memset(out, 0, sizeof(*out));
	return r;
}

/* name of pub equals want[0..n). */
static bool same_name(const TPMT_PUBLIC *pub, const uint8_t *want, size_t n)
{
	uint8_t name[UIE_TPM_NAME_MAX];
	size_t len;

	return uie_tpm_public_name(pub, name, &len) == UIE_OK && len == n && !memcmp(name, want, n);
}

int uie_challenge_check(const struct uie_challenge *c, const TPMT_PUBLIC *ek, const TPMT_PUBLIC *ak,
			const uint8_t *answer, size_t n, const char **why)
{
	uint8_t h[32];

	if (!same_name(ek, c->ek_name, c->ek_name_len)) {
		*why = "the challenge was sealed to another EK than the one the report vouches for";
		return UIE_E_KEY;
	}
	if (!same_name(ak, c->ak_name, c->ak_name_len)) {
		*why = "the challenge was made for another AK than this one";
		return UIE_E_SIGNATURE;
	}
	SHA256(answer, n, h);
	if (CRYPTO_memcmp(h, c->secret_sha256, sizeof(h)) != 0) {
		*why = "the machine's answer is not the challenge's secret: its TPM does not hold both "
		       "that EK and this AK";
		return UIE_E_DENIED;
	}
	*why = "the AK lives in the TPM of the EK the report vouches for";
	return UIE_OK;
}
