/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The certificates of SEV-SNP: AMD's root key (ARK, self-signed), the
 * signing key it certifies (ASK, or ASVK for VLEKs) and the chip's VCEK
 * (or a VLEK), chained with RSASSA-PSS and SHA-384 (AMD publication
 * 57230).  The VCEK carries the chip and its TCB in AMD extensions under
 * 1.3.6.1.4.1.3704.1; the ARKs of Milan, Genoa and Turin are built in and
 * every ARK, built in or given, must match one of their pinned SHA-256
 * fingerprints unless the caller says explicitly that it is a simulated
 * root.  Every refusal names the certificate (struct uie_snp_why).
 */
#ifndef UIE_HOST_SNP_CERT_H
#define UIE_HOST_SNP_CERT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <openssl/x509.h>

#include "snp_report.h"

#define UIE_SNP_CERT_FILE_MAX (64u << 10)

/* The products whose roots are built in. */
enum uie_snp_product {
	UIE_SNP_MILAN,
	UIE_SNP_GENOA,
	UIE_SNP_TURIN,
	UIE_SNP_PRODUCT__MAX,
};

/* "Milan", "Genoa", "Turin"; NULL past the end. */
const char *uie_snp_product_name(enum uie_snp_product p);

/* The AMD extensions of a VCEK or VLEK (57230, "VCEK Certificate Extensions"). */
struct uie_snp_cert_ext {
	bool vlek;     /* subject CN SEV-VLEK: no hardware ID */
	bool has_hwid; /* 1.3.6.1.4.1.3704.1.4 */
	uint8_t hwid[UIE_SNP_CHIP_ID_LEN];
	char product[32];       /* 1.3.6.1.4.1.3704.1.2, "Milan-B0"; "" when absent */
	struct uie_snp_tcb tcb; /* 1.3.6.1.4.1.3704.1.3.1/.2/.3/.8 (and .9, FMC, on Turin) */
	bool has_bootloader, has_tee, has_snp, has_ucode;
};

/*
 * A certificate from p[0..n), PEM or DER; *out allocated (X509_free).
 * UIE_E_FORMAT when it is neither.
 */
int uie_snp_cert_parse_alloc(const uint8_t *p, size_t n, X509 **out);

/* The same from a file (at most UIE_SNP_CERT_FILE_MAX bytes); errors as uie_file_read_alloc. */
int uie_snp_cert_read_alloc(const char *path, X509 **out);

/*
 * The AMD extensions of c into *out.  UIE_E_FORMAT when one is malformed
 * (a TCB value that is not a DER INTEGER of 0 to 255, a hardware ID that
 * is not 64 bytes, a product name that is not an IA5String) or appears
 * twice; why names it.  Absent extensions are left absent here and
 * required by uie_snp_cert_check_report.
 */
int uie_snp_cert_ext_parse(X509 *c, struct uie_snp_cert_ext *out, struct uie_snp_why *why);

/*
 * That the VCEK's extensions fit the report: the hardware ID equals
 * CHIP_ID (VCEK), each TCB component equals REPORTED_TCB's, and the key
 * kind equals the report's SIGNING_KEY.  UIE_E_BINDING naming the field.
 */
int uie_snp_cert_check_report(const struct uie_snp_cert_ext *e, const struct uie_snp_report *r,
			      struct uie_snp_why *why);

/* The roots a chain ends in: the ASK (or ASVK) and the ARK. */
struct uie_snp_roots {
	X509 *ask, *ark;
	bool simulated; /* the ARK is not one of AMD's: accepted because the caller said so */
};

/* The built-in ASK and ARK of product p (freed with uie_snp_roots_free). */
int uie_snp_roots_builtin(enum uie_snp_product p, struct uie_snp_roots *out);

/* The built-in roots whose ASK issued vcek; UIE_E_NOTFOUND naming the issuer when none did. */
int uie_snp_roots_for(X509 *vcek, struct uie_snp_roots *out, struct uie_snp_why *why);

void uie_snp_roots_free(struct uie_snp_roots *r);

/* Whether ark's SHA-256 fingerprint is one of the pinned AMD ARKs'. */
bool uie_snp_ark_pinned(X509 *ark);

/*
 * The chain vcek -> roots->ask -> roots->ark: the ARK pinned (or
 * roots->simulated, set only when the caller was given a simulated root
 * explicitly), each certificate signed with RSASSA-PSS and SHA-384 (the
 * ARK by itself), within its validity, the ASK not on crl when one is
 * given (the CRL signed by the ARK).  UIE_E_KEY for an unpinned ARK,
 * UIE_E_ALG for another algorithm, UIE_E_SIGNATURE for a chain that does
 * not hold, UIE_E_DENIED for a revoked ASK; why names the certificate.
 */
int uie_snp_chain_verify(X509 *vcek, const struct uie_snp_roots *roots, X509_CRL *crl,
			 struct uie_snp_why *why);

/*
 * The report's signature (ECDSA P-384, SHA-384 over bytes 0x000-0x29F,
 * R and S little-endian) by vcek's key.  UIE_E_SIGNATURE when it does not
 * verify, UIE_E_KEY when vcek's key is not P-384.
 */
int uie_snp_report_verify_sig(const uint8_t report[UIE_SNP_REPORT_LEN], X509 *vcek, struct uie_snp_why *why);

#endif
