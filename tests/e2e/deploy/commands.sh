# SPDX-License-Identifier: Apache-2.0
# uie_commands UIE: the commands `UIE --help` lists, one a line, a group's
# subcommand joined with a dash as its manual page is named (policy-sign,
# snp-sim-chain).  Sourced by man_pages.sh and install_tree.sh.
uie_commands() {
	"$1" --help | awk '/^commands:/ { on = 1; next }
		on && /^  [a-z]/ { w = $1; if ($2 ~ /^[a-z][a-z-]*$/ && index($0, "  " $1 " " $2 "  ")) w = w "-" $2; print w }'
}
