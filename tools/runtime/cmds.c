/* SPDX-License-Identifier: Apache-2.0 */
/* Subcommands of the runtime area. */
#include <stddef.h>

#include "cmd.h"

const struct uie_cmd uie_cmds_runtime[] = {
	{ NULL, NULL, NULL },
};
