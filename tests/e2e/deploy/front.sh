#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# `uie` serves `uie run` itself and executes uie-tool for every other
# command (tools/front.c).  It links nothing but the C library (statically,
# static-pie, where the build allows), since every supervised program's
# start-up pays for what it loads; it passes the
# arguments, output and exit status through unchanged; and when uie-tool
# cannot be executed it says which file and why (127 absent, 126 not
# executable), while `uie run` still works without it.
#
#   front.sh UIE UIE-TOOL
set -u
uie=$1 tool=$2
T=$(mktemp -d /tmp/uie-front.XXXXXX) || exit 1
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

# A sanitizer build adds its runtimes and what they need (gcc: libasan.so,
# libubsan.so; clang links them in and adds libm, libgcc_s): not what a
# user runs, so they are not counted when the program carries a runtime.
sanitizer_libs='^lib(a|ub)san\.so'
readelf --dyn-syms -W "$uie" | grep -Eq ' __(asan|ubsan)_' &&
	sanitizer_libs='^lib((a|ub)san|m|gcc_s|pthread|dl|rt|resolv)\.so'
needed=$(readelf -d "$uie" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | grep -Ev "$sanitizer_libs" | tr '\n' ' ')
# Static-pie: no PT_INTERP, nothing NEEDED; else the C library alone.
if readelf -l "$uie" | grep -q 'INTERP'; then
	[ "$needed" = "libc.so.6 " ] || fail "uie needs more than the C library: $needed"
else
	[ -z "$needed" ] || fail "uie has no loader but needs libraries: $needed"
fi
[ -n "$(readelf -d "$tool" | grep 'NEEDED.*libcrypto')" ] ||
	fail "uie-tool does not link libcrypto: is this the right program?"

# Forwarded: the same output and status as uie-tool's own.
for args in "policy show $T/nonexistent" "key gen" "evidence --help" "help nosuch" "--help"; do
	# shellcheck disable=SC2086
	"$uie" $args > "$T/a.out" 2> "$T/a.err"
	a=$?
	# shellcheck disable=SC2086
	"$tool" $args > "$T/b.out" 2> "$T/b.err"
	b=$?
	[ $a = $b ] && cmp -s "$T/a.out" "$T/b.out" && cmp -s "$T/a.err" "$T/b.err" ||
		fail "uie $args: exit $a, uie-tool $args: exit $b, or their output differs"
done

# Alone: run is served, every other command names the missing uie-tool.
cp "$uie" "$T/uie"
"$T/uie" run --help > /dev/null 2>&1 || fail "uie run --help without uie-tool: exit $?"
"$T/uie" --version | grep -qx 'uie [0-9.]*' || fail "uie --version without uie-tool"
"$T/uie" key gen > /dev/null 2> "$T/err"
rc=$?
[ $rc = 127 ] && grep -q "^uie: cannot execute .*/uie-tool: No such file or directory$" "$T/err" ||
	fail "uie key gen without uie-tool: exit $rc, '$(cat "$T/err")'"
install -m 0644 "$tool" "$T/uie-tool"
"$T/uie" key gen > /dev/null 2> "$T/err"
rc=$?
[ $rc = 126 ] && grep -qxF "uie: cannot execute $T/uie-tool: Permission denied" "$T/err" ||
	fail "uie key gen beside a uie-tool that is not executable: exit $rc, '$(cat "$T/err")'"
echo "front: all checks passed"
