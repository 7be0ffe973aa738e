/* SPDX-License-Identifier: Apache-2.0 */
/*
 * An SEV-SNP attestation from the monitor (SNP_REPORT, docs/BRIDGE.md):
 * what an SVSM answers the guest for a verifier's nonce, in the struct
 * that configfs-tsm's directory is read into.  Shared by `uie snp
 * request` and `uie attest --enrol`.
 */
#ifndef UIE_TOOLS_SNP_FETCH_H
#define UIE_TOOLS_SNP_FETCH_H

#include <stdint.h>

#include "snp_tsm.h"

/*
 * The answer of the monitor at fd for nonce into *out (uie_snp_tsm_free):
 * the bridge's error (UIE_E_NOTFOUND: the monitor has no SEV-SNP report to
 * give), or UIE_E_FORMAT/UIE_E_VERSION for an answer that is no bundle,
 * said in why.
 */
int uie_tool_snp_report(int fd, const uint8_t nonce[UIE_SNP_NONCE_LEN], struct uie_snp_tsm *out,
			struct uie_snp_why *why);

/* What r from uie_tool_snp_report means for a user of cmd, on stderr, naming the socket. */
void uie_tool_snp_report_err(const char *cmd, const char *sock, int r, const struct uie_snp_why *why);

#endif
