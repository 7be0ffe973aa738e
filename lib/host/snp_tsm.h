/* SPDX-License-Identifier: Apache-2.0 */
/*
 * What a Linux guest's configfs-tsm report directory
 * (/sys/kernel/config/tsm/report/NAME, service_provider=svsm) gives back,
 * read from that directory or a copy of it: outblob (the report),
 * manifestblob (the SVSM's services manifest), auxblob (the certificate
 * table of the GHCB specification: {GUID, offset u32, length u32} entries
 * ended by an all-zero one, offsets from the table's start), and
 * service_guid (the vTPM's when one service was attested).  Layouts:
 * docs/FORMATS.md section 7.6.
 */
#ifndef UIE_HOST_SNP_TSM_H
#define UIE_HOST_SNP_TSM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "snp_manifest.h"

#define UIE_SNP_AUX_MAX (64u << 10)

/* The certificates an extended report carries, by the GHCB table's GUIDs. */
enum uie_snp_cert_kind {
	UIE_SNP_CERT_VCEK, /* 63da758d-e664-4564-adc5-f4b93be8accd */
	UIE_SNP_CERT_ASK,  /* 4ab7b379-bbac-4fe4-a02f-05aef327c782 */
	UIE_SNP_CERT_ARK,  /* c0b406a4-a803-4952-9743-3fb6014cd0ae */
	UIE_SNP_CERT_VLEK, /* a8074bc2-a25a-483e-aae6-39c045a0b8a1 */
	UIE_SNP_CERT__MAX,
};

struct uie_snp_cert_table {
	const uint8_t *der[UIE_SNP_CERT__MAX]; /* into the table; NULL when absent */
	size_t len[UIE_SNP_CERT__MAX];
};

/*
 * The certificate table p[0..n) into *out.  Entries of unknown GUIDs are
 * skipped; a known GUID twice is UIE_E_ORDER, a certificate outside the
 * table UIE_E_RANGE, a table without its all-zero end UIE_E_TRUNCATED.
 */
int uie_snp_cert_table_parse(const uint8_t *p, size_t n, struct uie_snp_cert_table *out,
			     struct uie_snp_why *why);

/* Appends the table of the certificates t names (what uie_snp_cert_table_parse reads back). */
void uie_snp_cert_table_put(struct uie_wbuf *w, const struct uie_snp_cert_table *t);

struct uie_snp_tsm {
	uint8_t *report, *manifest, *aux; /* malloc'ed; aux NULL when the directory has none */
	size_t report_len, manifest_len, aux_len;
	bool single; /* service_guid names the vTPM: manifestblob is its data alone */
};

/*
 * The directory dir into *out (freed with uie_snp_tsm_free).  The error
 * of the failing file read, naming the file in why; UIE_E_FORMAT for a
 * service_guid that is not a GUID, UIE_E_NOTFOUND for one naming another
 * service than the vTPM.
 */
int uie_snp_tsm_read(const char *dir, struct uie_snp_tsm *out, struct uie_snp_why *why);

void uie_snp_tsm_free(struct uie_snp_tsm *t);

/*
 * t as the files of such a directory in dir (which exists): outblob,
 * manifestblob, auxblob when t has one, and service_guid (the vTPM's
 * when t->single, else all zero).  The error of the failing write.
 */
int uie_snp_tsm_write(const char *dir, const struct uie_snp_tsm *t);

/*
 * t as one buffer (*out, malloc'ed), the layout of docs/FORMATS.md 7.8 in
 * which the monitor's SNP_REPORT answer carries it.  UIE_E_LIMIT when a
 * part exceeds its bound.
 */
int uie_snp_tsm_pack_alloc(const struct uie_snp_tsm *t, uint8_t **out, size_t *len);

/*
 * Such a buffer p[0..n) into *out (freed with uie_snp_tsm_free).
 * UIE_E_FORMAT or UIE_E_VERSION naming what is wrong in why; nothing is
 * left in *out on error.
 */
int uie_snp_tsm_unpack(const uint8_t *p, size_t n, struct uie_snp_tsm *out, struct uie_snp_why *why);

#endif
