#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Every program answers --version with its name and the project's version,
# exit 0 (issue 28): the daemons, uie-init, uie-attest, uie-vm, and the
# command groups of uie (`uie evidence --version`).
#
#   versions.sh VERSION UIE PROGRAM...
set -u
version=$1 uie=$2
shift 2
fails=0
check() { # EXPECTED-NAME COMMAND...
	local want=$1 out rc
	shift
	out=$("$@" --version 2>&1)
	rc=$?
	[ $rc = 0 ] && [ "$out" = "$want $version" ] ||
		{ echo "FAIL: $* --version: exit $rc, '$out' (want '$want $version')"; fails=$((fails + 1)); }
}
check uie "$uie"
for group in evidence policy ref key; do
	check uie "$uie" "$group"
done
for p in "$@"; do
	name=$(basename "$p")
	[ "$name" = uie-attest ] && name="uie attest"
	check "$name" "$p"
done
[ $fails = 0 ] || exit 1
echo "versions: all checks passed"
