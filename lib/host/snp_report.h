/* SPDX-License-Identifier: Apache-2.0 */
/*
 * AMD SEV-SNP's ATTESTATION_REPORT (SEV Secure Nested Paging Firmware ABI
 * Specification, publication 56860, "ATTESTATION_REPORT Structure"),
 * versions 2, 3 and 5: 1,184 bytes, little-endian, signed over bytes
 * 0x000-0x29F by the chip's VCEK (or a VLEK) with ECDSA P-384 and SHA-384.
 * The decoder is strict: every reserved byte must be zero, the version and
 * the signature algorithm known; a refusal names the field (struct
 * uie_snp_why).  Layout and test vectors: docs/FORMATS.md section 7.
 */
#ifndef UIE_HOST_SNP_REPORT_H
#define UIE_HOST_SNP_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "uie/buf.h"

#define UIE_SNP_REPORT_LEN 0x4A0 /* 1,184 */
#define UIE_SNP_SIGNED_LEN 0x2A0 /* bytes the signature covers */
#define UIE_SNP_SIG_COMPONENT 72 /* R and S fields, little-endian */
#define UIE_SNP_P384_LEN 48      /* bytes of a P-384 scalar; the rest of the field is zero */
#define UIE_SNP_SIG_ALGO_ECDSA_P384_SHA384 1
#define UIE_SNP_CHIP_ID_LEN 64
#define UIE_SNP_MEASUREMENT_LEN 48
#define UIE_SNP_REPORT_DATA_LEN 64

/* POLICY bits (56860, "Guest Policy Structure"). */
#define UIE_SNP_POLICY_MIGRATE_MA (1ull << 18)
#define UIE_SNP_POLICY_DEBUG (1ull << 19)

/* The key that signed (the report's SIGNING_KEY field). */
enum uie_snp_signing_key {
	UIE_SNP_KEY_VCEK = 0,
	UIE_SNP_KEY_VLEK = 1,
	UIE_SNP_KEY_NONE = 7,
};

/* Why a step refused: the field, certificate or check, in words. */
struct uie_snp_why {
	char msg[256];
};

/* Sets why (when not NULL) from fmt and returns err. */
int uie_snp_fail(struct uie_snp_why *why, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

struct uie_snp_report {
	uint32_t version;
	uint32_t guest_svn;
	uint64_t policy;
	uint8_t family_id[16];
	uint8_t image_id[16];
	uint32_t vmpl;
	uint32_t sig_algo;
	uint64_t current_tcb;
	uint64_t platform_info;
	uint32_t key_info; /* AUTHOR_KEY_EN bit 0, MASK_CHIP_KEY bit 1, SIGNING_KEY bits 4:2 */
	uint8_t report_data[UIE_SNP_REPORT_DATA_LEN];
	uint8_t measurement[UIE_SNP_MEASUREMENT_LEN];
	uint8_t host_data[32];
	uint8_t id_key_digest[48];
	uint8_t author_key_digest[48];
	uint8_t report_id[32];
	uint8_t report_id_ma[32];
	uint64_t reported_tcb;
	uint8_t cpuid_fam_id, cpuid_mod_id, cpuid_step; /* version 3 and later; 0 before */
	uint8_t chip_id[UIE_SNP_CHIP_ID_LEN];
	uint64_t committed_tcb;
	uint8_t current_build, current_minor, current_major;
	uint8_t committed_build, committed_minor, committed_major;
	uint64_t launch_tcb;
	uint64_t launch_mit_vector, current_mit_vector; /* version 5 and later; 0 before */
	uint8_t sig_r[UIE_SNP_SIG_COMPONENT];           /* little-endian */
	uint8_t sig_s[UIE_SNP_SIG_COMPONENT];
};

/*
 * p[0..n) as a report into *out (zeroed on error).  UIE_E_TRUNCATED for a
 * length other than UIE_SNP_REPORT_LEN, UIE_E_VERSION for a version other
 * than 2, 3 or 5, UIE_E_ALG for a signature algorithm other than ECDSA
 * P-384 with SHA-384, UIE_E_FORMAT for a reserved byte or bit that is not
 * zero (R and S above 48 bytes included); why names the field.
 */
int uie_snp_report_parse(const uint8_t *p, size_t n, struct uie_snp_report *out, struct uie_snp_why *why);

/* r as its 1,184 bytes (what uie_snp_report_parse reads back to r). */
void uie_snp_report_put(struct uie_wbuf *w, const struct uie_snp_report *r);

/* The signing key the report names (SIGNING_KEY). */
enum uie_snp_signing_key uie_snp_report_signing_key(const struct uie_snp_report *r);

/*
 * A TCB_VERSION's components.  The byte layout depends on the product:
 * Milan and Genoa put BOOT_LOADER, TEE, SNP and MICROCODE at bytes 0, 1,
 * 6 and 7; Turin (CPUID family 0x1A, reports of version 3 and later) puts
 * FMC, BOOT_LOADER, TEE, SNP at bytes 0-3 and MICROCODE at byte 7.
 */
struct uie_snp_tcb {
	uint8_t bootloader, tee, snp, ucode, fmc;
	bool has_fmc;
};

/* Whether r comes from a Turin-layout chip (its TCB fields have an FMC byte). */
bool uie_snp_report_turin(const struct uie_snp_report *r);

void uie_snp_tcb_decode(uint64_t tcb, bool turin, struct uie_snp_tcb *out);

/* The TCB_VERSION of t's components (the inverse of uie_snp_tcb_decode; FMC only when turin). */
uint64_t uie_snp_tcb_encode(const struct uie_snp_tcb *t, bool turin);

#endif
