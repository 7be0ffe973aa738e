/* SPDX-License-Identifier: Apache-2.0 */
/* Subcommands of the attest area. */
#include <stddef.h>

#include "attest_cmds.h"
#include "cmd.h"

const struct uie_cmd uie_cmds_attest[] = {
	{ "attest", uie_cmd_attest, "attest this machine to a fleet verifier (uie-verifierd)", NULL },
	{ NULL, NULL, NULL, NULL },
};
