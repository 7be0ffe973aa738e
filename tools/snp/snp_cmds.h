/* SPDX-License-Identifier: Apache-2.0 */
/* Subcommands of the snp area, one file each. */
#ifndef UIE_TOOLS_SNP_CMDS_H
#define UIE_TOOLS_SNP_CMDS_H

int uie_cmd_snp_verify(int argc, char **argv);
int uie_cmd_snp_sim_chain(int argc, char **argv);
int uie_cmd_snp_sim_attest(int argc, char **argv);
int uie_cmd_snp_request(int argc, char **argv);

#endif
