/* SPDX-License-Identifier: Apache-2.0 */
/* Subcommands of the policy area. */
#include <stddef.h>

#include "cmd.h"
#include "subcmds.h"

const struct uie_cmd uie_cmds_policy[] = {
	{ "ref scan", uie_cmd_ref_scan, "measure ELF objects and #! scripts into a reference manifest",
	  "[--package NAME]... [--deb FILE.deb]... [--jit PROGRAM]... [--json] [-o FILE] [PATH...]" },
	{ "policy compile", uie_cmd_policy_compile, "policy text or manifest -> binary table", NULL },
	{ "policy show", uie_cmd_policy_show, "binary table or package -> policy text",
	  "[--key PUB] [--json] [--manifest MANIFEST]... TABLE|PACKAGE" },
	{ "policy check", uie_cmd_policy_check,
	  "compare a policy with the files on disk (stale digests, uncovered files)",
	  "[--key PUB] [--json] [--manifest MANIFEST]... [--package NAME]... TABLE|PACKAGE "
	  "[PATH...]" },
	{ "key gen", uie_cmd_key_gen, "generate an ECDSA P-256 policy-signing key pair",
	  "[--force] -o PRIV.pem --pub PUB.pem" },
	{ "policy sign", uie_cmd_policy_sign, "sign a table into a bound policy package",
	  "--key PRIV.pem --epoch N (--bind-seq S --bind-pcr HEX | --bind-from STATE) "
	  "[--bloom] [--bloom-bits B] TABLE -o PACKAGE" },
	{ "policy install", uie_cmd_policy_install, "send a package to the monitor",
	  "PACKAGE [--socket PATH]" },
	{ "status", uie_cmd_status, "the monitor's mode, epoch, record count and vPCR16",
	  "[--socket PATH] [--json]" },
	{ NULL, NULL, NULL, NULL },
};
