/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The entry points of every subcommand, by area; each area's cmds.c lists
 * its own in a table (cmd.h), and each command is a file of its own.
 */
#ifndef UIE_TOOLS_SUBCMDS_H
#define UIE_TOOLS_SUBCMDS_H

/* runtime */
int uie_cmd_run(int argc, char **argv);

/* evidence */
int uie_cmd_evidence_export(int argc, char **argv);
int uie_cmd_verify(int argc, char **argv);
int uie_cmd_evidence_checkpoint(int argc, char **argv);
int uie_cmd_evidence_split(int argc, char **argv);
int uie_cmd_ek_show(int argc, char **argv);
int uie_cmd_credential_make(int argc, char **argv);
int uie_cmd_credential_activate(int argc, char **argv);

/* policy */
int uie_cmd_ref_scan(int argc, char **argv);
int uie_cmd_policy_compile(int argc, char **argv);
int uie_cmd_policy_show(int argc, char **argv);
int uie_cmd_policy_check(int argc, char **argv);
int uie_cmd_key_gen(int argc, char **argv);
int uie_cmd_policy_sign(int argc, char **argv);
int uie_cmd_policy_install(int argc, char **argv);
int uie_cmd_status(int argc, char **argv);

/* attest: the fleet verifier's agent (the program uie-attest) */
int uie_cmd_attest(int argc, char **argv);

/* snp */
int uie_cmd_snp_verify(int argc, char **argv);
int uie_cmd_snp_sim_chain(int argc, char **argv);
int uie_cmd_snp_sim_attest(int argc, char **argv);
int uie_cmd_snp_request(int argc, char **argv);

#endif
