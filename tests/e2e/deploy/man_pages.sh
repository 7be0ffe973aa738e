#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# Every command has a manual page, and every page says what its command's
# --help says: a command (or option) added without its page fails here.
#   man_pages.sh UIE UIE_MONITORD MANDIR [UIE_VMRELAY UIE_INIT]
# For each command in `uie --help`: MANDIR/uie-WORDS.1.scd exists, is listed
# in MANDIR/meson.build (so it is built and installed) and named in uie.1;
# each --option of its --help appears in its page.  The same for
# uie-monitord(8).  No page in MANDIR is left out of meson.build.
set -u
uie=$1 monitord=$2 mandir=$3 vmrelay=${4:-} init=${5:-}
fails=0
bad() { echo "FAIL: $*" >&2; fails=$((fails + 1)); }

. "$(dirname "$0")/commands.sh"
commands=$(uie_commands "$uie")
[ "$(echo "$commands" | wc -l)" -ge 10 ] || bad "could not read the command list of uie --help"

# options_in PAGE HELP-COMMAND...: each --option the help text shows must be in PAGE.
options_in() {
	local page=$1 o
	shift
	for o in $("$@" 2>&1 | grep -oE -- '--[a-z][a-z0-9-]*' | sort -u); do
		case $o in --help | --version) continue ;; esac
		grep -qF -- "$o" "$page" || bad "$(basename "$page") does not describe $o (from: $*)"
	done
}

for c in $commands; do
	page=$mandir/uie-$c.1.scd
	if [ ! -f "$page" ]; then
		bad "no manual page for 'uie ${c/-/ }': write $page and list it in $mandir/meson.build"
		continue
	fi
	grep -q "'uie-$c.1'" "$mandir/meson.build" || bad "uie-$c.1 is not listed in $mandir/meson.build"
	grep -q "uie-$c\*(1)" "$mandir/uie.1.scd" || bad "uie.1 does not point to uie-$c(1)"
	# shellcheck disable=SC2086
	options_in "$page" "$uie" ${c/-/ } --help
done
[ -f "$mandir/uie-monitord.8.scd" ] || bad "no manual page for uie-monitord"
options_in "$mandir/uie-monitord.8.scd" "$monitord" --help
# The guest's VM-mode programs, and the policy language and manifest format (section 5).
for p in uie-vmrelay.8 uie-init.8 uie-policy.5; do
	[ -f "$mandir/$p.scd" ] || bad "no manual page $p"
	grep -q "${p%.*}\*(${p##*.})" "$mandir/uie.1.scd" || bad "uie.1 does not point to ${p%.*}(${p##*.})"
done
[ -z "$vmrelay" ] || options_in "$mandir/uie-vmrelay.8.scd" "$vmrelay" --help
[ -z "$init" ] || options_in "$mandir/uie-init.8.scd" "$init" --help
grep -q "127" "$mandir/uie-run.1.scd" || bad "uie-run.1 does not document exit 127 (program not found)"
for page in "$mandir"/*.scd; do
	name=$(basename "$page" .scd)
	grep -q "'$name'" "$mandir/meson.build" || bad "$name is not listed in $mandir/meson.build"
done
[ "$fails" = 0 ] || exit 1
echo "PASS: $(echo "$commands" | wc -l) commands and uie-monitord have their pages"
