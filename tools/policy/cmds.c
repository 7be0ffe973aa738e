/* SPDX-License-Identifier: Apache-2.0 */
/* Subcommands of the policy area. */
#include <stddef.h>

#include "cmd.h"
#include "policy_cmds.h"

const struct uie_cmd uie_cmds_policy[] = {
	{ "ref scan", uie_cmd_ref_scan, "measure ELF objects into a reference manifest" },
	{ "policy compile", uie_cmd_policy_compile, "policy text or manifest -> binary table" },
	{ "policy show", uie_cmd_policy_show, "binary table or package -> policy text" },
	{ "key gen", uie_cmd_key_gen, "generate an ECDSA P-256 policy-signing key pair" },
	{ "policy sign", uie_cmd_policy_sign, "sign a table into a bound policy package" },
	{ "policy install", uie_cmd_policy_install, "send a package to the monitor" },
	{ "status", uie_cmd_status, "the monitor's mode, epoch, record count and vPCR16" },
	{ NULL, NULL, NULL },
};
