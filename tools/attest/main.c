/* SPDX-License-Identifier: Apache-2.0 */
/*
 * uie-attest: the fleet verifier's agent as a program of its own, which
 * `uie attest` runs (tools/attest/cmds.c).  Only it links libcurl, whose
 * two dozen libraries `uie run` would otherwise load at every start.
 */
#include "subcmds.h"

int main(int argc, char **argv)
{
	return uie_cmd_attest(argc, argv);
}
