/* SPDX-License-Identifier: Apache-2.0 */
/* Subcommands of the snp area: AMD SEV-SNP attestation. */
#include <stddef.h>

#include "cmd.h"
#include "subcmds.h"

const struct uie_cmd uie_cmds_snp[] = {
	{ "snp verify", uie_cmd_snp_verify,
	  "verify an SEV-SNP attestation report: AMD chain, signature, VCEK fit, appraisal", NULL },
	{ "snp request", uie_cmd_snp_request,
	  "ask the monitor for the SEV-SNP attestation an SVSM gives the guest (configfs-tsm's files)",
	  NULL },
	{ "snp sim-chain", uie_cmd_snp_sim_chain,
	  "make a simulated ARK, ASK and VCEK (AMD's algorithms; never AMD's roots)", NULL },
	{ "snp sim-attest", uie_cmd_snp_sim_attest,
	  "answer an attestation request as a simulated SVSM would (configfs-tsm's files)", NULL },
	{ NULL, NULL, NULL, NULL },
};
