/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A real TPM 2.0 through tpm2-tss ESYS (swtpm or a device TCTI).  At open
 * the backend resets PCR 16 (resettable from locality 0 in PC-client TPMs,
 * which is why only the monitor may hold a TCTI to this TPM) so that it
 * matches a log starting at record 0, and creates the attestation key: a
 * primary restricted ECDSA P-256 signing key under the endorsement
 * hierarchy, which the TPM derives again identically at every open.
 */
#include "vtpm_impl.h"

#include <stdlib.h>
#include <string.h>

#include <tss2/tss2_esys.h>
#include <tss2/tss2_mu.h>
#include <tss2/tss2_tctildr.h>

#include "uie/err.h"

struct tss {
	struct uie_vtpm base;
	TSS2_TCTI_CONTEXT *tcti;
	ESYS_CONTEXT *esys;
	ESYS_TR ak;
	uint8_t x[32], y[32];
};

static const TPML_PCR_SELECTION pcr16_sel = {
	.count = 1,
	.pcrSelections = { { .hash = TPM2_ALG_SHA256,
			     .sizeofSelect = 3,
			     .pcrSelect = { 0, 0, 1u << (UIE_LOG_PCR_INDEX % 8) } } },
};

static int create_ak(struct tss *t)
{
	TPM2B_SENSITIVE_CREATE sens = { 0 };
	TPM2B_PUBLIC tmpl = {
		.publicArea = {
			.type = TPM2_ALG_ECC,
			.nameAlg = TPM2_ALG_SHA256,
			.objectAttributes = TPMA_OBJECT_FIXEDTPM | TPMA_OBJECT_FIXEDPARENT |
					    TPMA_OBJECT_SENSITIVEDATAORIGIN | TPMA_OBJECT_USERWITHAUTH |
					    TPMA_OBJECT_RESTRICTED | TPMA_OBJECT_SIGN_ENCRYPT,
			.parameters.eccDetail = {
				.symmetric.algorithm = TPM2_ALG_NULL,
				.scheme = { .scheme = TPM2_ALG_ECDSA,
					    .details.ecdsa.hashAlg = TPM2_ALG_SHA256 },
				.curveID = TPM2_ECC_NIST_P256,
				.kdf.scheme = TPM2_ALG_NULL,
			},
		},
	};
	TPM2B_DATA outside = { 0 };
	TPML_PCR_SELECTION creation_pcr = { 0 };
	TPM2B_PUBLIC *pub = NULL;
	TPM2B_CREATION_DATA *cdata = NULL;
	TPM2B_DIGEST *chash = NULL;
	TPMT_TK_CREATION *ticket = NULL;
	const TPMS_ECC_POINT *pt;
	int r = UIE_E_TPM;

	if (Esys_CreatePrimary(t->esys, ESYS_TR_RH_ENDORSEMENT, ESYS_TR_PASSWORD, ESYS_TR_NONE, ESYS_TR_NONE,
			       &sens, &tmpl, &outside, &creation_pcr, &t->ak, &pub, &cdata, &chash,
			       &ticket) != TSS2_RC_SUCCESS)
		return UIE_E_TPM;
	pt = &pub->publicArea.unique.ecc;
	if (pt->x.size == 32 && pt->y.size == 32) {
		memcpy(t->x, pt->x.buffer, 32);
		memcpy(t->y, pt->y.buffer, 32);
		r = UIE_OK;
	}
	Esys_Free(pub);
	Esys_Free(cdata);
	Esys_Free(chash);
	Esys_Free(ticket);
	return r;
}

static int ts_extend(struct uie_vtpm *vt, const uint8_t lrh[UIE_PCR_LEN])
{
	struct tss *t = (struct tss *)vt;
	TPML_DIGEST_VALUES d = { .count = 1, .digests = { { .hashAlg = TPM2_ALG_SHA256 } } };

	memcpy(d.digests[0].digest.sha256, lrh, UIE_PCR_LEN);
	return Esys_PCR_Extend(t->esys, ESYS_TR_PCR16, ESYS_TR_PASSWORD, ESYS_TR_NONE, ESYS_TR_NONE, &d) ==
			       TSS2_RC_SUCCESS
		       ? UIE_OK
		       : UIE_E_TPM;
}

static int ts_read(struct uie_vtpm *vt, uint8_t pcr[UIE_PCR_LEN])
{
	struct tss *t = (struct tss *)vt;
	UINT32 counter;
	TPML_PCR_SELECTION *sel_out = NULL;
	TPML_DIGEST *vals = NULL;
	int r = UIE_E_TPM;

	if (Esys_PCR_Read(t->esys, ESYS_TR_NONE, ESYS_TR_NONE, ESYS_TR_NONE, &pcr16_sel, &counter, &sel_out,
			  &vals) != TSS2_RC_SUCCESS)
		return UIE_E_TPM;
	if (vals->count == 1 && vals->digests[0].size == UIE_PCR_LEN) {
		memcpy(pcr, vals->digests[0].buffer, UIE_PCR_LEN);
		r = UIE_OK;
	}
	Esys_Free(sel_out);
	Esys_Free(vals);
	return r;
}

static int ts_quote(struct uie_vtpm *vt, const uint8_t *nonce, size_t nonce_len, uint8_t **attest,
		    size_t *attest_len, uint8_t **sig, size_t *sig_len)
{
	struct tss *t = (struct tss *)vt;
	TPM2B_DATA qd = { .size = (UINT16)nonce_len };
	/* cppcheck-suppress legacyUninitvar ; cppcheck 2.10 confuses the member .scheme with the variable */
	TPMT_SIG_SCHEME scheme = { .scheme = TPM2_ALG_NULL }; /* the key's own: ECDSA/SHA-256 */
	TPM2B_ATTEST *quoted = NULL;
	TPMT_SIGNATURE *signature = NULL;
	uint8_t sbuf[sizeof(TPMT_SIGNATURE)];
	size_t off = 0;
	int r = UIE_E_TPM;

	memcpy(qd.buffer, nonce, nonce_len);
	if (Esys_Quote(t->esys, t->ak, ESYS_TR_PASSWORD, ESYS_TR_NONE, ESYS_TR_NONE, &qd, &scheme, &pcr16_sel,
		       &quoted, &signature) != TSS2_RC_SUCCESS)
		return UIE_E_TPM;
	if (Tss2_MU_TPMT_SIGNATURE_Marshal(signature, sbuf, sizeof(sbuf), &off) != TSS2_RC_SUCCESS)
		goto out;
	r = UIE_E_NOMEM;
	if (!(*attest = malloc(quoted->size)) || !(*sig = malloc(off))) {
		free(*attest);
		*attest = NULL;
		goto out;
	}
	memcpy(*attest, quoted->attestationData, quoted->size);
	*attest_len = quoted->size;
	memcpy(*sig, sbuf, off);
	*sig_len = off;
	r = UIE_OK;
out:
	Esys_Free(quoted);
	Esys_Free(signature);
	return r;
}

static int ts_pubkey(struct uie_vtpm *vt, uint8_t **der, size_t *len)
{
	struct tss *t = (struct tss *)vt;

	return uie_vtpm_ecc_spki_alloc(t->x, t->y, der, len);
}

static void ts_free(struct uie_vtpm *vt)
{
	struct tss *t = (struct tss *)vt;

	if (t->esys) {
		if (t->ak != ESYS_TR_NONE)
			Esys_FlushContext(t->esys, t->ak);
		Esys_Finalize(&t->esys);
	}
	if (t->tcti)
		Tss2_TctiLdr_Finalize(&t->tcti);
	free(t);
}

static const struct uie_vtpm_ops tss_ops = {
	.extend = ts_extend,
	.read_pcr16 = ts_read,
	.quote_alloc = ts_quote,
	.pubkey_alloc = ts_pubkey,
	.free = ts_free,
};

int uie_vtpm_tss_open(const char *tcti_conf, struct uie_vtpm **out)
{
	struct tss *t;
	int r = UIE_E_TPM;

	*out = NULL;
	if (!(t = calloc(1, sizeof(*t))))
		return UIE_E_NOMEM;
	t->base.ops = &tss_ops;
	t->ak = ESYS_TR_NONE;
	if (Tss2_TctiLdr_Initialize(tcti_conf, &t->tcti) != TSS2_RC_SUCCESS ||
	    Esys_Initialize(&t->esys, t->tcti, NULL) != TSS2_RC_SUCCESS ||
	    Esys_PCR_Reset(t->esys, ESYS_TR_PCR16, ESYS_TR_PASSWORD, ESYS_TR_NONE, ESYS_TR_NONE) !=
		    TSS2_RC_SUCCESS ||
	    (r = create_ak(t)) != UIE_OK) {
		ts_free(&t->base);
		return r;
	}
	*out = &t->base;
	return UIE_OK;
}
