/* SPDX-License-Identifier: Apache-2.0 */
/* Subcommands of the policy area. */
#include <stddef.h>

#include "cmd.h"

const struct uie_cmd uie_cmds_policy[] = {
	{ NULL, NULL, NULL },
};
