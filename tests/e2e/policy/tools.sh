#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The TTP tools as a user meets them (issue 12): every subcommand answers
# --help and --version; `uie ref scan` names each unreadable path and fails
# (also for a missing package), lists executable #! scripts and not other
# ones; `uie evidence split` gives tpm2_checkquote what it takes.
# Environment from meson: UIE, UIE_MONITORD.
set -u

. "$(dirname "$0")/../common.sh"
e2e_start uie-tools UIE UIE_MONITORD

note "--help and --version everywhere"
for c in "run" "ref scan" "policy compile" "policy show" "policy check" "key gen" "policy sign" \
	"policy install" "status" "evidence export" "evidence split" "verify"; do
	# shellcheck disable=SC2086
	out=$("$UIE" $c --help 2>&1) || fail "uie $c --help exits $?"
	echo "$out" | grep -q "^usage: uie $c" || fail "uie $c --help prints no usage: $out"
	# shellcheck disable=SC2086
	[ "$("$UIE" $c --version)" = "$("$UIE" --version)" ] || fail "uie $c --version"
done
"$UIE" --version | grep -Eq '^uie [0-9]+\.[0-9]+\.[0-9]+$' || fail "uie --version"
# After --, and after run's PROGRAM, options belong to the program.
out=$("$UIE" run --socket "$T/none" -- /bin/echo --version 2>&1)
echo "$out" | grep -q "^uie " && fail "uie run took the program's --version"

note "ref scan: scripts, unreadable paths, packages"
mkdir -p "$T/tree/sub"
printf '#!/bin/sh\necho hi\n' > "$T/tree/run.sh"
printf '#!/bin/sh\necho data\n' > "$T/tree/notexec.sh"
cp /usr/bin/true "$T/tree/sub/true"
printf 'secret\n' > "$T/tree/sub/locked"
chmod 755 "$T/tree/run.sh" "$T/tree/sub"
chmod 644 "$T/tree/notexec.sh"
chmod 000 "$T/tree/sub/locked"
chown -R nobody "$T/tree"
"$UIE" ref scan "$T/tree" > "$T/m" || fail "ref scan of a readable tree"
grep -q "^role=SCRIPT digest=sha256:[0-9a-f]\{64\} path=$T/tree/run.sh$" "$T/m" || fail "script not listed"
grep -q "notexec.sh" "$T/m" && fail "a script without an execute bit is listed"
grep -q "^role=MAIN .* path=$T/tree/sub/true$" "$T/m" || fail "program not listed"
# As an unprivileged user the locked file cannot be read.
setpriv --reuid=nobody --regid=nogroup --clear-groups "$UIE" ref scan "$T/tree" >"$T/out" 2>"$T/err"
rc=$?
[ "$rc" = 1 ] || fail "ref scan with an unreadable file exits $rc"
grep -q "uie ref scan: $T/tree/sub/locked: Permission denied" "$T/err" || { cat "$T/err" >&2; fail "unreadable file not named"; }
chmod 000 "$T/tree/sub"
mkdir "$T/w" && chown nobody "$T/w"
setpriv --reuid=nobody --regid=nogroup --clear-groups "$UIE" ref scan "$T/tree" -o "$T/w/m2" 2>"$T/err"
rc=$?
[ "$rc" = 1 ] && [ -z "$(ls "$T/w")" ] ||
	fail "ref scan with an unreadable directory: exit $rc, or it left a file: $(ls "$T/w")"
grep -q "$T/tree/sub: Permission denied" "$T/err" || { cat "$T/err" >&2; fail "unreadable directory not named"; }
"$UIE" ref scan --package no-such-package-uie >/dev/null 2>"$T/err" && fail "a missing package scans"
grep -q "no installed package 'no-such-package-uie'" "$T/err" || fail "missing package not named"
"$UIE" ref scan --package libc-bin > "$T/libc-bin" 2>/dev/null || fail "ref scan --package libc-bin"
grep -q "^role=SCRIPT .* path=/usr/bin/ldd$" "$T/libc-bin" || fail "ldd (a #! script of libc-bin) not listed"
# ldconfig is static-pie on Debian (ET_DYN without PT_INTERP, like a library): a program all the same.
if ldd /sbin/ldconfig 2>&1 | grep -q 'statically linked'; then
	grep -q "^role=MAIN .* path=/sbin/ldconfig$" "$T/libc-bin" ||
		fail "ldconfig (static-pie) not listed as a program: $(grep ldconfig "$T/libc-bin")"
fi

note "policy check against packages and paths"
"$UIE" ref scan --package dash -o "$T/dash.m" 2>/dev/null || fail "ref scan --package dash"
"$UIE" policy compile "$T/dash.m" -o "$T/dash.t" 2>/dev/null || fail "compile"
"$UIE" policy check --package dash "$T/dash.t" >"$T/out" 2>/dev/null || { cat "$T/out" >&2; fail "policy check of a fresh policy"; }
"$UIE" policy check --package dash "$T/dash.t" "$T/tree/run.sh" >"$T/out" 2>/dev/null && fail "policy check missed a file"
grep -q "^not-covered SCRIPT $T/tree/run.sh: sha256:" "$T/out" || { cat "$T/out" >&2; fail "uncovered script not reported"; }
"$UIE" policy check "$T/dash.t" /bin/true >"$T/out" 2>/dev/null && fail "policy check without dash's files"
grep -q "^stale sha256:.*no manifest names it" "$T/out" || { cat "$T/out" >&2; fail "stale digests not reported"; }

note "evidence split for tpm2_checkquote"
start_monitor "$UIE_MONITORD" "$T/sock" "builtin:$T/ak.pem" || fail "monitor did not start"
n=0123456789abcdef0123456789abcdef
"$UIE" evidence export --socket "$T/sock" --nonce "$n" -o "$T/ae" --pubkey-out "$T/ak.pub" >/dev/null ||
	fail "evidence export"
cmd=$("$UIE" evidence split "$T/ae" -o "$T/q") || fail "evidence split"
for f in attest sig pcr16 nonce; do [ -s "$T/q/$f" ] || fail "split wrote no $f"; done
[ "$(cat "$T/q/nonce")" = "$n" ] || fail "split nonce"
[ "$(stat -c %s "$T/q/pcr16")" = 32 ] || fail "pcr16 is not 32 bytes"
echo "$cmd" | grep -q "^tpm2_checkquote -u AK.pub.pem -m $T/q/attest -s $T/q/sig -f $T/q/pcr16 -l sha256:16 -g sha256 -q $n$" ||
	fail "split printed: $cmd"
if command -v tpm2_checkquote >/dev/null; then
	${cmd/AK.pub.pem/$T/ak.pub} >/dev/null 2>&1 || fail "tpm2_checkquote refuses the split quote"
	flip_byte "$T/q/pcr16" 0 || fail "cannot alter pcr16"
	${cmd/AK.pub.pem/$T/ak.pub} >/dev/null 2>&1 && fail "tpm2_checkquote accepts another PCR value"
fi
"$UIE" evidence split "$T/m" -o "$T/q2" 2>/dev/null && fail "split of a manifest"
echo PASS
