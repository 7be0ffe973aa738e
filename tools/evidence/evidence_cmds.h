/* SPDX-License-Identifier: Apache-2.0 */
/* Subcommands of the evidence area, one file each. */
#ifndef UIE_TOOLS_EVIDENCE_CMDS_H
#define UIE_TOOLS_EVIDENCE_CMDS_H

int uie_cmd_evidence_export(int argc, char **argv);
int uie_cmd_verify(int argc, char **argv);
int uie_cmd_evidence_checkpoint(int argc, char **argv);
int uie_cmd_evidence_split(int argc, char **argv);
int uie_cmd_ek_show(int argc, char **argv);
int uie_cmd_credential_make(int argc, char **argv);
int uie_cmd_credential_activate(int argc, char **argv);

#endif
