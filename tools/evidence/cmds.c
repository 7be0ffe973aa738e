/* SPDX-License-Identifier: Apache-2.0 */
/* Subcommands of the evidence area. */
#include <stddef.h>

#include "cmd.h"
#include "subcmds.h"

const struct uie_cmd uie_cmds_evidence[] = {
	{ "evidence export", uie_cmd_evidence_export, "ask the monitor for attestation evidence (AE)", NULL },
	{ "evidence checkpoint", uie_cmd_evidence_checkpoint,
	  "acknowledge verified records: the monitor drops them from memory", NULL },
	{ "evidence split", uie_cmd_evidence_split, "an AE's quote as the files tpm2_checkquote takes",
	  NULL },
	{ "ek show", uie_cmd_ek_show,
	  "the monitor's vTPM's endorsement and attestation keys (names, public areas)", NULL },
	{ "credential make", uie_cmd_credential_make,
	  "seal a fresh secret to an EK for an AK's name (verifier)", NULL },
	{ "credential activate", uie_cmd_credential_activate,
	  "have the monitor's vTPM open a credential: proves its AK lives with its EK", NULL },
	{ "verify", uie_cmd_verify, "verify an AE: quote, replay, reference values, policy, clock", NULL },
	{ NULL, NULL, NULL, NULL },
};
