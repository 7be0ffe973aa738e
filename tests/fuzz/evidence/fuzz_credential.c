/* SPDX-License-Identifier: Apache-2.0 */
/*
 * libFuzzer target: the EK -> AK parsers (docs/FORMATS.md 5.8).  The
 * input is read as a credential file, as a TPM2B_PUBLIC and as a
 * credential blob.  An accepted credential file must re-encode to the
 * same bytes; an accepted public area must re-marshal to the same bytes
 * and get a name; a blob that unwraps (for the fixed EK template, AK name
 * and seed of vector C1) must be exactly the blob wrap makes of its
 * credential.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "credential.h"
#include "tpm_public.h"
#include "uie/err.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_file(const uint8_t *data, size_t size)
{
	uint8_t out[UIE_CRED_FILE_MAX];
	const uint8_t *blob, *secret;
	size_t bl, sl;
	struct uie_wbuf w;

	if (uie_credential_file_parse(data, size, &blob, &bl, &secret, &sl) != UIE_OK)
		return;
	uie_wbuf_init(&w, out, sizeof(out));
	uie_credential_file_put(&w, blob, bl, secret, sl);
	if (w.err != UIE_OK || w.len != size || memcmp(out, data, size))
		abort();
}

static void check_public(const uint8_t *data, size_t size)
{
	uint8_t name[UIE_TPM_NAME_MAX], *out;
	const char *why;
	TPMT_PUBLIC pub;
	size_t len;

	if (uie_tpm_public_parse(data, size, &pub) != UIE_OK)
		return;
	if (uie_tpm_public_alloc(&pub, &out, &len) != UIE_OK || len != size || memcmp(out, data, size))
		abort();
	free(out);
	(void)uie_tpm_public_name(&pub, name, &len);
	(void)uie_tpm_ek_check(&pub, &why);
	(void)uie_tpm_ak_check(&pub, &why);
}

static void check_blob(const uint8_t *data, size_t size)
{
	/* The AK name of vector V10. */
	static const uint8_t name[34] = { 0x00, 0x0b, 0xe2, 0x59, 0xc1, 0xf4, 0x70, 0x1f, 0x1a,
					  0x58, 0x25, 0xcb, 0xa5, 0x6e, 0x4f, 0x0d, 0x2e, 0x3b,
					  0x74, 0x30, 0xfc, 0xb9, 0x6e, 0x0e, 0xe0, 0xd8, 0xcc,
					  0xdd, 0x5a, 0xe8, 0x6b, 0xe3, 0x5e, 0x2c };
	uint8_t seed[32], cred[UIE_CRED_MAX], again[sizeof(TPM2B_ID_OBJECT)];
	size_t cl, al;
	TPMT_PUBLIC ek;

	for (size_t i = 0; i < sizeof(seed); i++)
		seed[i] = (uint8_t)(i + 1);
	uie_tpm_ek_template(&ek, NULL);
	if (uie_credential_unwrap(&ek, name, sizeof(name), seed, sizeof(seed), data, size, cred, &cl) !=
	    UIE_OK)
		return;
	if (uie_credential_wrap(&ek, name, sizeof(name), seed, sizeof(seed), cred, cl, again, sizeof(again),
				&al) != UIE_OK ||
	    al != size || memcmp(again, data, size))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	check_file(data, size);
	check_public(data, size);
	check_blob(data, size);
	return 0;
}
