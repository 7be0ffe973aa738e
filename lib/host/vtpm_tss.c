/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A real TPM 2.0 through tpm2-tss ESYS (swtpm or a device TCTI).  At open
 * the backend resets PCR 16 (resettable from locality 0 in PC-client TPMs,
 * which is why only the monitor may hold a TCTI to this TPM) so that it
 * matches a log starting at record 0, and creates the attestation key: a
 * primary restricted ECDSA P-256 signing key under the endorsement
 * hierarchy, which the TPM derives again identically at every open.  It
 * also creates the endorsement key from the TCG EK profile's template L-1
 * (RSA 2048) in the endorsement hierarchy, as the EK profile and
 * Coconut-SVSM's vTPM do, and activates credentials with the two
 * (TPM2_ActivateCredential, the EK authorized by PolicySecret(endorsement)).
 */
#include "vtpm_impl.h"

#include <stdlib.h>
#include <string.h>

#include <tss2/tss2_esys.h>
#include <tss2/tss2_mu.h>
#include <tss2/tss2_tctildr.h>

#include "tpm_public.h"
#include "uie/err.h"

struct tss {
	struct uie_vtpm base;
	TSS2_TCTI_CONTEXT *tcti;
	ESYS_CONTEXT *esys;
	ESYS_TR ak; /* the EK is made when needed and flushed at once (ek_load) */
};

static const TPML_PCR_SELECTION pcr16_sel = {
	.count = 1,
	.pcrSelections = { { .hash = TPM2_ALG_SHA256,
			     .sizeofSelect = 3,
			     .pcrSelect = { 0, 0, 1u << (UIE_LOG_PCR_INDEX % 8) } } },
};

/* A primary key of the endorsement hierarchy from tmpl: its handle and public area. */
static int create_primary(struct tss *t, const TPMT_PUBLIC *tmpl, ESYS_TR *handle, TPMT_PUBLIC *out)
{
	TPM2B_SENSITIVE_CREATE sens = { 0 };
	TPM2B_PUBLIC in = { .publicArea = *tmpl };
	TPM2B_DATA outside = { 0 };
	TPML_PCR_SELECTION creation_pcr = { 0 };
	TPM2B_PUBLIC *pub = NULL;
	TPM2B_CREATION_DATA *cdata = NULL;
	TPM2B_DIGEST *chash = NULL;
	TPMT_TK_CREATION *ticket = NULL;

	if (Esys_CreatePrimary(t->esys, ESYS_TR_RH_ENDORSEMENT, ESYS_TR_PASSWORD, ESYS_TR_NONE, ESYS_TR_NONE,
			       &sens, &in, &outside, &creation_pcr, handle, &pub, &cdata, &chash,
			       &ticket) != TSS2_RC_SUCCESS)
		return UIE_E_TPM;
	*out = pub->publicArea;
	Esys_Free(pub);
	Esys_Free(cdata);
	Esys_Free(chash);
	Esys_Free(ticket);
	return UIE_OK;
}

/*
 * The EK (template L-1: the same key each time from the endorsement seed):
 * its public area, and its handle in *ek for the caller to flush, or none
 * (ek NULL: flushed here).  Kept loaded, it would hold one of the TPM's
 * few transient object slots for good, and a monitor that was killed
 * leaves its objects behind (swtpm has three: the restart after a killed
 * monitor would then find none free).
 */
static int ek_load(struct tss *t, ESYS_TR *ek)
{
	TPMT_PUBLIC tmpl;
	ESYS_TR h = ESYS_TR_NONE;
	int r;

	uie_tpm_ek_template(&tmpl, NULL);
	if ((r = create_primary(t, &tmpl, &h, &t->base.ek_pub)) != UIE_OK)
		return r;
	if (ek)
		*ek = h;
	else
		Esys_FlushContext(t->esys, h);
	return UIE_OK;
}

static int create_keys(struct tss *t)
{
	TPMT_PUBLIC tmpl;
	const TPMS_ECC_POINT *pt = &t->base.ak_pub.unique.ecc;
	int r;

	uie_tpm_ak_template(&tmpl, NULL, NULL);
	if ((r = create_primary(t, &tmpl, &t->ak, &t->base.ak_pub)) != UIE_OK)
		return r;
	if (pt->x.size != 32 || pt->y.size != 32)
		return UIE_E_TPM;
	memcpy(t->base.x, pt->x.buffer, 32);
	memcpy(t->base.y, pt->y.buffer, 32);
	return ek_load(t, NULL);
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

/*
 * A refusal of TPM2_ActivateCredential as credential.h names it: the
 * secret (parameter 2) not opening is another EK, the blob's (parameter 1)
 * integrity failing another AK.  libtpms (swtpm) answers a secret that
 * does not decrypt with TPM_RC_FAILURE and no parameter number, where the
 * reference code says TPM_RC_VALUE on parameter 2: it is that refusal when
 * the TPM still answers a PCR read, a TPM in failure mode otherwise.
 */
static int activate_err(struct uie_vtpm *vt, TSS2_RC rc)
{
	TSS2_RC code = rc & (TPM2_RC_FMT1 | 0x3f), param = rc & TPM2_RC_N_MASK;
	uint8_t pcr[UIE_PCR_LEN];

	if (rc == TPM2_RC_FAILURE)
		return ts_read(vt, pcr) == UIE_OK ? UIE_E_KEY : UIE_E_TPM;
	if ((rc & TSS2_RC_LAYER_MASK) != TSS2_TPM_RC_LAYER || !(rc & TPM2_RC_FMT1) || !(rc & TPM2_RC_P))
		return UIE_E_TPM;
	if (param == TPM2_RC_2)
		return UIE_E_KEY;
	if (param == TPM2_RC_1)
		return code == TPM2_RC_INTEGRITY ? UIE_E_SIGNATURE : UIE_E_FORMAT;
	return UIE_E_TPM;
}

static int ts_activate(struct uie_vtpm *vt, const uint8_t *blob, size_t blob_len, const uint8_t *secret,
		       size_t secret_len, uint8_t cred[UIE_CRED_MAX], size_t *cred_len)
{
	struct tss *t = (struct tss *)vt;
	TPMT_SYM_DEF sym = { .algorithm = TPM2_ALG_NULL };
	TPM2B_ID_OBJECT id = { 0 };
	TPM2B_ENCRYPTED_SECRET es = { 0 };
	TPM2B_DIGEST *out = NULL;
	ESYS_TR sess = ESYS_TR_NONE, ek = ESYS_TR_NONE;
	size_t off = 0, soff = 0;
	TSS2_RC rc;
	int r;

	if (Tss2_MU_TPM2B_ID_OBJECT_Unmarshal(blob, blob_len, &off, &id) != TSS2_RC_SUCCESS ||
	    off != blob_len ||
	    Tss2_MU_TPM2B_ENCRYPTED_SECRET_Unmarshal(secret, secret_len, &soff, &es) != TSS2_RC_SUCCESS ||
	    soff != secret_len)
		return UIE_E_FORMAT;
	if ((r = ek_load(t, &ek)) != UIE_OK)
		return r;
	/* The EK's authPolicy: PolicySecret(TPM_RH_ENDORSEMENT) in a policy session. */
	if (Esys_StartAuthSession(t->esys, ESYS_TR_NONE, ESYS_TR_NONE, ESYS_TR_NONE, ESYS_TR_NONE,
				  ESYS_TR_NONE, NULL, TPM2_SE_POLICY, &sym, TPM2_ALG_SHA256,
				  &sess) != TSS2_RC_SUCCESS) {
		Esys_FlushContext(t->esys, ek);
		return UIE_E_TPM;
	}
	r = UIE_E_TPM;
	if (Esys_TRSess_SetAttributes(t->esys, sess, TPMA_SESSION_CONTINUESESSION,
				      TPMA_SESSION_CONTINUESESSION) != TSS2_RC_SUCCESS ||
	    Esys_PolicySecret(t->esys, ESYS_TR_RH_ENDORSEMENT, sess, ESYS_TR_PASSWORD, ESYS_TR_NONE,
			      ESYS_TR_NONE, NULL, NULL, NULL, 0, NULL, NULL) != TSS2_RC_SUCCESS)
		goto out;
	rc = Esys_ActivateCredential(t->esys, t->ak, ek, ESYS_TR_PASSWORD, sess, ESYS_TR_NONE, &id, &es,
				     &out);
	if (rc != TSS2_RC_SUCCESS) {
		r = activate_err(vt, rc);
		goto out;
	}
	if (out->size == 0 || out->size > UIE_CRED_MAX)
		goto out;
	memcpy(cred, out->buffer, out->size);
	*cred_len = out->size;
	r = UIE_OK;
out:
	Esys_Free(out);
	Esys_FlushContext(t->esys, sess);
	Esys_FlushContext(t->esys, ek);
	return r;
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
	.activate = ts_activate,
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
	    (r = create_keys(t)) != UIE_OK) {
		ts_free(&t->base);
		return r;
	}
	*out = &t->base;
	return UIE_OK;
}
