/* SPDX-License-Identifier: Apache-2.0 */
/* Subcommands of the attest area: the fleet verifier's agent. */
#ifndef UIE_TOOLS_ATTEST_CMDS_H
#define UIE_TOOLS_ATTEST_CMDS_H

int uie_cmd_attest(int argc, char **argv);

#endif
