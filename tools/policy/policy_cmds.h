/* SPDX-License-Identifier: Apache-2.0 */
/* Entry points of the policy area's subcommands (tools/policy/cmds.c lists them). */
#ifndef UIE_TOOLS_POLICY_CMDS_H
#define UIE_TOOLS_POLICY_CMDS_H

int uie_cmd_ref_scan(int argc, char **argv);
int uie_cmd_policy_compile(int argc, char **argv);
int uie_cmd_policy_show(int argc, char **argv);
int uie_cmd_policy_check(int argc, char **argv);
int uie_cmd_key_gen(int argc, char **argv);
int uie_cmd_policy_sign(int argc, char **argv);
int uie_cmd_policy_install(int argc, char **argv);
int uie_cmd_status(int argc, char **argv);

#endif
