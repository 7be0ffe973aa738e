/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A simulated SEV-SNP chain: an ARK, an ASK and VCEKs made here with AMD's
 * algorithms, names and extensions (RSA-4096 roots, RSASSA-PSS with
 * SHA-384, ECDSA P-384 VCEKs with the hwID and TCB extensions of AMD
 * publication 57230), and a signer of reports with a VCEK's key.  For
 * tests and for the monitor standing in for an SVSM on machines without
 * SEV-SNP.  A simulated ARK is never one of the pinned ones, so nothing
 * made here verifies against AMD's roots; a verifier accepts it only when
 * given it explicitly, and then says "simulated" (docs/ATTESTATION.md).
 */
#ifndef UIE_HOST_SNP_SIM_H
#define UIE_HOST_SNP_SIM_H

#include <stdbool.h>
#include <stdint.h>

#include <openssl/evp.h>
#include <openssl/x509.h>

#include "snp_cert.h"
#include "snp_tsm.h"

struct uie_snp_sim {
	enum uie_snp_product product;
	EVP_PKEY *ark_key, *ask_key, *vcek_key;
	X509 *ark, *ask, *vcek;
};

/*
 * A new ARK and ASK for product p's names (ARK-Milan, SEV-Milan, ...)
 * into *out; UIE_E_CRYPTO when OpenSSL fails.  Free with uie_snp_sim_free.
 */
int uie_snp_sim_roots(enum uie_snp_product p, struct uie_snp_sim *out);

/*
 * A new VCEK (and its key) under s's ASK for chip_id, its TCB extensions
 * the components of tcb (a TCB_VERSION in the Turin layout when turin),
 * replacing s's VCEK.  UIE_E_CRYPTO when OpenSSL fails.
 */
int uie_snp_sim_vcek(struct uie_snp_sim *s, const uint8_t chip_id[UIE_SNP_CHIP_ID_LEN], uint64_t tcb,
		     bool turin);

/* The same for a VLEK (subject CN SEV-VLEK, no hwID), which takes the VCEK's place in s. */
int uie_snp_sim_vlek(struct uie_snp_sim *s, uint64_t tcb, bool turin);

/* Signs report's bytes 0x000-0x29F with key (P-384) into its SIGNATURE field. */
int uie_snp_sim_sign(uint8_t report[UIE_SNP_REPORT_LEN], EVP_PKEY *key);

void uie_snp_sim_free(struct uie_snp_sim *s);

/*
 * A report to sign for s's VCEK: its CHIP_ID and REPORTED_TCB (and the
 * other TCBs) the VCEK's extensions, version 3, a policy without debugging
 * or migration agent, firmware 1.55, MEASUREMENT the 48 bytes of
 * measurement (zero when NULL).  UIE_E_FORMAT when the VCEK has no hwID
 * (a VLEK).
 */
int uie_snp_sim_template(const struct uie_snp_sim *s, const uint8_t *measurement, struct uie_snp_report *r);

/*
 * What an SVSM whose vTPM has the endorsement key ek[0..ek_len) (a
 * TPMT_PUBLIC) answers a guest asking with nonce, as configfs-tsm gives it
 * (snp_tsm.h): the manifest (the vTPM's data alone when single, else a
 * GUID table holding it), a report made from tmpl with REPORT_DATA =
 * SHA-512(nonce || manifest) and SIGNING_KEY that of s's VCEK (or VLEK), signed by it,
 * and an auxblob with s's VCEK, ASK and ARK.  tmpl's CHIP_ID and
 * REPORTED_TCB are the caller's to match to the VCEK.  *out is freed with
 * uie_snp_tsm_free.
 */
int uie_snp_sim_attest(const struct uie_snp_sim *s, const struct uie_snp_report *tmpl,
		       const uint8_t nonce[UIE_SNP_NONCE_LEN], const uint8_t *ek, size_t ek_len, bool single,
		       struct uie_snp_tsm *out);

#endif
