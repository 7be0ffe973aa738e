/* SPDX-License-Identifier: Apache-2.0 */
/* Subcommands of the evidence area. */
#include <stddef.h>

#include "cmd.h"

const struct uie_cmd uie_cmds_evidence[] = {
	{ NULL, NULL, NULL },
};
