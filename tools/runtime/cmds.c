/* SPDX-License-Identifier: Apache-2.0 */
/* Subcommands of the runtime area. */
#include <stddef.h>

#include "cmd.h"
#include "subcmds.h"

const struct uie_cmd uie_cmds_runtime[] = {
	{ "run", uie_cmd_run, "run a program under the execute-permission interceptor", NULL },
	{ NULL, NULL, NULL, NULL },
};
