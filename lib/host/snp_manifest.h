/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The SVSM attestation protocol's binding of services to a report (AMD
 * publication 58019, "Attest Services"; Coconut-SVSM's
 * kernel/src/protocols/attest.rs): REPORT_DATA = SHA-512(nonce ||
 * manifest), the nonce 64 bytes.  Attesting all services, the manifest is
 * a GUID table: a header {GUID 63849ebb-3d92-4670-a1ff-58f9c94b87bb,
 * total length u32, entry count u32}, then one {GUID, offset u32, size
 * u32} per service, offsets from the table's start, then the services'
 * data in entry order.  Attesting one service, the manifest is that
 * service's data alone.  The vTPM's (GUID
 * c476f1eb-0123-45a5-9641-b4e7dde5bfe3) is its endorsement key's
 * TPMT_PUBLIC, marshalled as TPM2_CreatePrimary returns it (without the
 * TPM2B size).  GUIDs travel in the mixed-endian order of EFI_GUID: the
 * first three fields little-endian.  Layout and vectors: docs/FORMATS.md
 * section 7.5.
 */
#ifndef UIE_HOST_SNP_MANIFEST_H
#define UIE_HOST_SNP_MANIFEST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "snp_report.h"
#include "uie/buf.h"

#define UIE_GUID_LEN 16
#define UIE_SNP_NONCE_LEN 64
#define UIE_SNP_MANIFEST_MAX_ENTRIES 16
#define UIE_SNP_MANIFEST_MAX (64u << 10)

#define UIE_SNP_GUID_SERVICES "63849ebb-3d92-4670-a1ff-58f9c94b87bb"
#define UIE_SNP_GUID_VTPM "c476f1eb-0123-45a5-9641-b4e7dde5bfe3"

/* A GUID's text (8-4-4-4-12 hex digits) as its 16 bytes on the wire; UIE_E_FORMAT. */
int uie_guid_parse(const char *text, uint8_t out[UIE_GUID_LEN]);

struct uie_snp_service {
	uint8_t guid[UIE_GUID_LEN];
	const uint8_t *data; /* in the manifest's (or the builder's caller's) storage */
	uint32_t size;
};

struct uie_snp_manifest {
	uint32_t n;
	struct uie_snp_service s[UIE_SNP_MANIFEST_MAX_ENTRIES];
};

/*
 * The GUID table p[0..n) into *out (pointing into p).  Strict: the header
 * GUID, the total length equal to n, at most UIE_SNP_MANIFEST_MAX_ENTRIES
 * entries, each service's data right after the previous one's and the
 * last ending at n, no GUID twice.  UIE_E_FORMAT / UIE_E_RANGE /
 * UIE_E_LIMIT / UIE_E_ORDER / UIE_E_TRUNCATED, why naming the field.
 */
int uie_snp_manifest_parse(const uint8_t *p, size_t n, struct uie_snp_manifest *out, struct uie_snp_why *why);

/* m as its GUID table (what uie_snp_manifest_parse reads back). */
void uie_snp_manifest_put(struct uie_wbuf *w, const struct uie_snp_manifest *m);

/* The data of the service guid; UIE_E_NOTFOUND. */
int uie_snp_manifest_find(const struct uie_snp_manifest *m, const uint8_t guid[UIE_GUID_LEN],
			  const uint8_t **data, size_t *size);

/* SHA-512(nonce || manifest): the REPORT_DATA an SVSM asks the firmware for. */
int uie_snp_binding(const uint8_t nonce[UIE_SNP_NONCE_LEN], const uint8_t *manifest, size_t n,
		    uint8_t out[UIE_SNP_REPORT_DATA_LEN]);

/*
 * The vTPM's endorsement key named by a report: REPORT_DATA must equal
 * SHA-512(nonce || manifest) (UIE_E_NONCE otherwise), and the manifest
 * is the vTPM's data alone (single, as configfs-tsm gives it with
 * service_guid set to the vTPM's) or a GUID table holding it.  *ek
 * points into manifest: a TPMT_PUBLIC that tpm2-tss unmarshals whole
 * (UIE_E_FORMAT otherwise) of a restricted decryption key, as an EK is
 * (UIE_E_KEY otherwise).
 */
int uie_snp_vtpm_ek(const struct uie_snp_report *r, const uint8_t nonce[UIE_SNP_NONCE_LEN],
		    const uint8_t *manifest, size_t n, bool single, const uint8_t **ek, size_t *ek_len,
		    struct uie_snp_why *why);

#endif
