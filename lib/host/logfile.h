/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The monitor's write-ahead log file (docs/FORMATS.md section 3.6): a
 * header, then the canonical records of one monitor run, appended (and,
 * with sync on, flushed to the device) before the answer that a record
 * justifies is sent.  At start the file a previous run left is parsed
 * whole: any truncation or corruption is an error naming where, never a
 * silently shortened log.
 */
#ifndef UIE_HOST_LOGFILE_H
#define UIE_HOST_LOGFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "uie/platform.h"
#include "uie/slog.h"

#define UIE_LOGFILE_MAGIC "UIELOG01" /* 8 bytes */
#define UIE_LOGFILE_VERSION 1
#define UIE_LOGFILE_HDR_LEN 80

/* Header flags. */
#define UIE_LOGFILE_FIRST_SEEN 0x1u /* repeats of a logged grant were counted, not logged */

struct uie_logfile_hdr {
	uint32_t flags;
	uint64_t boot;                    /* boot number: 1 for the first run, +1 per run */
	uint8_t boot_id[UIE_BOOT_ID_LEN]; /* random, names this run to clients */
	uint64_t first_seq;               /* number of the first record in the file */
	uint8_t start_pcr[UIE_PCR_LEN];   /* vPCR16 before it */
};

/* What a parsed log file says. */
struct uie_logfile_info {
	struct uie_logfile_hdr hdr;
	const uint8_t *records; /* points into the parsed buffer */
	uint64_t nrecords;
	uint8_t end_pcr[UIE_PCR_LEN]; /* vPCR16 after the last record */
	bool have_policy;             /* a POLICY_INSTALL or POLICY_RESTORE is in force at the end */
	uint64_t epoch;
	uint8_t policy_id[UIE_SHA256_LEN];
	uint64_t bad_offset; /* on error: byte offset of the header field or record at fault */
};

/* Encodes hdr (UIE_E_INVAL for unknown flags). */
int uie_logfile_hdr_encode(const struct uie_logfile_hdr *hdr, uint8_t out[UIE_LOGFILE_HDR_LEN]);

/*
 * Parses a whole log file: header, then records that must decode, carry
 * consecutive numbers from first_seq, have correct LRHs and chain from
 * start_pcr.  Clears *out first; on error out->bad_offset names the place.
 * Return: UIE_OK, UIE_E_TRUNCATED (short header, or a partial last
 * record), UIE_E_FORMAT (magic, reserved bytes, a record field),
 * UIE_E_VERSION, UIE_E_REPLAY (numbering or LRH), UIE_E_CRYPTO.
 */
int uie_logfile_parse(const struct uie_platform *pl, const uint8_t *buf, size_t len,
		      struct uie_logfile_info *out);

/* An open log file being appended to. */
struct uie_logfile {
	int fd;
	uint64_t len; /* bytes known to be written whole */
	bool sync;    /* fdatasync after every append */
	bool broken;  /* a failed append could not be cut back: no more appends */
};

/*
 * Creates path (exclusively, mode 0600) with hdr and fsyncs it.
 * Return: UIE_OK, or the errno-derived error (UIE_E_NOSPACE, UIE_E_ACCESS,
 * UIE_E_STATE when it exists, UIE_E_IO).
 */
int uie_logfile_create(const char *path, const struct uie_logfile_hdr *hdr, bool sync,
		       struct uie_logfile *lf);

/*
 * Appends one record; with sync on, it is on the device when this returns
 * UIE_OK.  On failure the file is cut back to its previous length, so it
 * never holds a partial record.  Return: UIE_OK, UIE_E_NOSPACE,
 * UIE_E_ACCESS, UIE_E_IO, UIE_E_STATE (closed).
 */
int uie_logfile_append(struct uie_logfile *lf, const uint8_t rec[UIE_LOG_RECORD_LEN]);

/* fdatasync of what was appended.  Return: UIE_OK or the errno-derived error. */
int uie_logfile_sync(struct uie_logfile *lf);

void uie_logfile_close(struct uie_logfile *lf);

/*
 * The packages file next to a log (docs/FORMATS.md 3.6): header
 * UIE_PKGFILE_MAGIC, u64 boot; then per accepted package u32 length,
 * 4 reserved, the package bytes.
 */
#define UIE_PKGFILE_MAGIC "UIEPKS01"
#define UIE_PKGFILE_HDR_LEN 16
#define UIE_PKGFILE_ENTRY_HDR_LEN 8

/*
 * Finds the last package in a packages file whose SHA-256 package hash is
 * want_hash: *off and *plen locate its bytes in buf.  Every entry must be
 * a well-formed package.  Return: UIE_OK, UIE_E_NOTFOUND, UIE_E_TRUNCATED,
 * UIE_E_FORMAT (magic, reserved bytes, an entry that is no package),
 * UIE_E_LIMIT (an entry over UIE_PACKAGE_MAX_LEN).
 */
int uie_pkgfile_find(const struct uie_platform *pl, const uint8_t *buf, size_t len,
		     const uint8_t want_hash[UIE_SHA256_LEN], size_t *off, size_t *plen);

/* The 16-byte header and the 8-byte entry header of a package of len bytes. */
void uie_pkgfile_hdr(uint64_t boot, uint8_t out[UIE_PKGFILE_HDR_LEN]);
void uie_pkgfile_entry_hdr(uint32_t len, uint8_t out[UIE_PKGFILE_ENTRY_HDR_LEN]);

#endif
