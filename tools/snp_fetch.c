/* SPDX-License-Identifier: Apache-2.0 */
/* An SEV-SNP attestation from the monitor (snp_fetch.h). */
#include <stdio.h>
#include <stdlib.h>

#include "uie/bridge.h"
#include "uie/err.h"

#include "conn.h"
#include "snp_fetch.h"

int uie_tool_snp_report(int fd, const uint8_t nonce[UIE_SNP_NONCE_LEN], struct uie_snp_tsm *out,
			struct uie_snp_why *why)
{
	uint8_t *bundle = NULL;
	size_t len = 0;
	int r;

	why->msg[0] = '\0';
	if ((r = uie_bridge_snp_report_alloc(fd, nonce, 0, &bundle, &len)) != UIE_OK)
		return r;
	r = uie_snp_tsm_unpack(bundle, len, out, why);
	free(bundle);
	return r;
}

void uie_tool_snp_report_err(const char *cmd, const char *sock, int r, const struct uie_snp_why *why)
{
	if (why->msg[0])
		fprintf(stderr, "%s: %s: %s\n", cmd, sock, why->msg);
	else if (r == UIE_E_NOTFOUND)
		fprintf(stderr,
			"%s: %s: the monitor has no SEV-SNP report to give (no SVSM; started without "
			"--snp-sim)\n",
			cmd, sock);
	else
		uie_tool_peer_err(cmd, sock, r);
}
