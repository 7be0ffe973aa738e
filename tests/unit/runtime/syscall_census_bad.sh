#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# scripts/syscall-census check fails, naming the call, on a census that
# lost a row, whose action disagrees with the filter, or whose name does
# not match the header's number; the unchanged census passes.
#   syscall_census_bad.sh SCRIPT CENSUS DUMPER
set -u
script=$1 census=$2 dumper=$3
T=$(mktemp -d) || exit 1
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*" >&2; cat "$T/err" >&2; exit 1; }

# expect_bad NAME SED-EXPRESSION MESSAGE: the edited census fails with MESSAGE.
expect_bad() {
	sed "$2" "$census" > "$T/census.md"
	cmp -s "$census" "$T/census.md" && fail "$1: the edit changed nothing"
	if "$script" check "$T/census.md" "$dumper" >/dev/null 2>"$T/err"; then
		fail "$1: accepted"
	fi
	grep -q -- "$3" "$T/err" || fail "$1: no '$3'"
}

"$script" check "$census" "$dumper" >/dev/null 2>"$T/err" || fail "the census itself"
expect_bad "a row removed" '/^| 449 | futex_waitv /d' 'futex_waitv (449) is missing from the census'
expect_bad "an action changed" 's/^| 101 | ptrace | w | EPERM /| 101 | ptrace | w | allow /' \
	'ptrace (101): the census says allow, the filter does EPERM'
expect_bad "a name changed" 's/^| 39 | getpid /| 39 | getpidx /' 'getpidx (39): the header has getpid at 39'
expect_bad "a malformed row" 's/^| 40 | sendfile | w | allow /| 40 | sendfile | w | maybe /' \
	'a census row must read'
echo "syscall census: every bad census refused"
