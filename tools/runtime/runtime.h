/* SPDX-License-Identifier: Apache-2.0 */
/* Subcommands of the runtime area, one file each. */
#ifndef UIE_TOOLS_RUNTIME_H
#define UIE_TOOLS_RUNTIME_H

int uie_cmd_run(int argc, char **argv);

#endif
