/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Signed policy packages (docs/FORMATS.md section 4): header, compiled
 * policy table, optional Bloom hint, ECDSA signature.  Parsing and the
 * monitor-side install checks are freestanding; signing lives in tools/.
 */
#ifndef UIE_PACKAGE_H
#define UIE_PACKAGE_H

#include <stddef.h>
#include <stdint.h>

#include "uie/core.h"
#include "uie/types.h"

#define UIE_PACKAGE_MAX_LEN (64u << 20)
#define UIE_PACKAGE_MAGIC "UIEPKG01" /* 8 bytes */
#define UIE_PACKAGE_VERSION 1
#define UIE_PACKAGE_HDR_LEN 104 /* bytes before the table */
#define UIE_PACKAGE_MAX_SIG 72  /* longest DER ECDSA P-256 signature */
/* Signature algorithm: TPM_ALG_ECDSA, meaning ECDSA on P-256 over SHA-256 here. */
#define UIE_SIG_ECDSA_P256_SHA256 0x0018
/*
 * Highest policy epoch, 2^63-1: signing and installation refuse any above,
 * so that an epoch is a JSON integer everywhere (verifier state, CEL) and a
 * mistyped 2^64-1 cannot end all later installs (docs/FORMATS.md 4).
 */
#define UIE_EPOCH_MAX 0x7fffffffffffffffull

struct uie_package {
	uint16_t version;
	uint16_t sig_alg;  /* signature algorithm identifier */
	uint16_t hash_alg; /* object digest algorithm of the table */
	uint64_t epoch;
	uint64_t bind_seq; /* vPCR16 binding: value after record bind_seq-1 */
	uint8_t bind_pcr[UIE_PCR_LEN];
	uint8_t key_id[UIE_SHA256_LEN]; /* SHA-256 of the signer's SubjectPublicKeyInfo */
	const uint8_t *table;
	size_t table_len;
	const uint8_t *hint; /* Bloom hint, NULL when absent */
	size_t hint_len;
	const uint8_t *sig;
	size_t sig_len;
	uint8_t package_hash[UIE_SHA256_LEN]; /* SHA-256 over the signed bytes */
};

/* Parses a package in place (references buf); clears *out first. */
int uie_package_parse(const struct uie_platform *pl, const uint8_t *buf, size_t len, struct uie_package *out);

/*
 * The monitor-side checks in order: parse, signature (platform verify),
 * epoch strictly greater, vPCR16 binding against the host's log history
 * (pcr_at returns the vPCR16 value after the first `seq` records), table
 * loads.  On success installs into c; on any failure leaves c unchanged
 * except for a POLICY_REJECT record.  `buf` must outlive the installation.
 */
int uie_package_install(struct uie_core *c, const uint8_t *buf, size_t len,
			int (*pcr_at)(void *ctx, uint64_t seq, uint8_t pcr[UIE_PCR_LEN]), void *pcr_ctx);

/*
 * The checks of a package persisted by a previous run of the monitor, at
 * start: parse, package hash and epoch equal to what the previous log says
 * was in force (want_hash, want_epoch), signature, table loads; then
 * uie_core_restore.  The vPCR16 binding is not checked again: it named a
 * prefix of the previous log, which the restart record links to.  Nothing
 * is logged on failure (the monitor refuses to start).
 * Return: UIE_OK, the parse error, UIE_E_BINDING (hash or epoch differ),
 * UIE_E_KEY, UIE_E_SIGNATURE, the table's error, or uie_core_restore's.
 */
int uie_package_restore(struct uie_core *c, const uint8_t *buf, size_t len,
			const uint8_t want_hash[UIE_SHA256_LEN], uint64_t want_epoch);

/*
 * The Bloom hint of the package buf that is installed in c, when it may be
 * published to the guest (lib/core/bloom.h, uie_bloom_check_policy): a
 * missing or unusable hint never affects installation, it only disables
 * the fast path.  Return: UIE_OK with *hint and *hint_len set (pointing into
 * buf), UIE_E_NOTFOUND (no hint), UIE_E_STATE (buf is not the installed
 * package) or the hint's validation error.
 */
int uie_package_hint(const struct uie_core *c, const uint8_t *buf, size_t len, const uint8_t **hint,
		     size_t *hint_len);

/*
 * Encodes p (its table, hint and signature; package_hash is ignored) into
 * out.  With p->sig NULL only the signed bytes are written (what the
 * signer hashes).  Return: UIE_OK, UIE_E_INVAL, UIE_E_LIMIT, UIE_E_OVERFLOW.
 */
int uie_package_encode(const struct uie_package *p, uint8_t *out, size_t cap, size_t *outlen);

#endif
