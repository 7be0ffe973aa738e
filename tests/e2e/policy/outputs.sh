#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Where the tools' outputs go (issue 28): `-o FILE` never replaces a FIFO or
# a device (it writes through them), follows a symlink (the file it names is
# replaced, the link stays), and `-o -` is standard output; `uie key gen`
# writes both keys or neither.
# Environment from meson: UIE.
set -u

. "$(dirname "$0")/../common.sh"
e2e_start uie-outputs UIE

printf 'policy_name=p policy_version=1.0.0\nDEFAULT action=DENY\nop=EXECVE role=MAIN digest=sha256:%s action=ALLOW\n' "$(printf '1%.0s' $(seq 64))" > "$T/p.pol"
"$UIE" policy compile "$T/p.pol" -o "$T/ref.t" 2>/dev/null || fail "compile to a regular file"

note "-o through a FIFO and a device, never replacing them"
mkfifo "$T/fifo"
timeout 20 cat "$T/fifo" > "$T/from-fifo" &
reader=$!
"$UIE" policy compile "$T/p.pol" -o "$T/fifo" 2>"$T/err" || { cat "$T/err" >&2; fail "compile -o FIFO"; }
wait "$reader"
[ -p "$T/fifo" ] || fail "the FIFO was replaced by $(stat -c %F "$T/fifo")"
cmp -s "$T/from-fifo" "$T/ref.t" || fail "the table did not come through the FIFO"
"$UIE" policy compile "$T/p.pol" -o /dev/null 2>/dev/null || fail "compile -o /dev/null"
[ -c /dev/null ] || fail "/dev/null is no longer a device"
# /dev/full is only read-checked afterwards: a write to it fails with ENOSPC.
"$UIE" policy compile "$T/p.pol" -o /dev/full 2>"$T/err" && fail "compile -o /dev/full succeeded"
grep -q "/dev/full: No space left on device" "$T/err" || { cat "$T/err" >&2; fail "no reason for /dev/full"; }
[ -c /dev/full ] || fail "/dev/full is no longer a device"

note "-o through a symlink: the file it names is replaced, the link stays"
echo old > "$T/target"
ln -s target "$T/link"
"$UIE" policy compile "$T/p.pol" -o "$T/link" 2>/dev/null || fail "compile -o symlink"
[ -L "$T/link" ] || fail "the symlink was replaced"
cmp -s "$T/target" "$T/ref.t" || fail "the symlink's target does not hold the table"
ln -s nowhere "$T/dangling"
"$UIE" policy compile "$T/p.pol" -o "$T/dangling" 2>"$T/err" && fail "compile -o a dangling symlink succeeded"
grep -q "$T/dangling: No such file or directory" "$T/err" || { cat "$T/err" >&2; fail "dangling link not named"; }
[ -L "$T/dangling" ] && [ ! -e "$T/nowhere" ] || fail "the dangling link was replaced or followed"

note "-o - is standard output"
"$UIE" policy compile "$T/p.pol" -o - > "$T/stdout.t" 2>/dev/null || fail "compile -o -"
cmp -s "$T/stdout.t" "$T/ref.t" || fail "compile -o - wrote no table to stdout"
[ -e "$T/-" ] && fail "compile -o - made a file named -"
"$UIE" key gen -o "$T/k.pem" --pub "$T/k.pub" >/dev/null 2>&1 || fail "key gen"
"$UIE" policy sign --key "$T/k.pem" --epoch 1 --bind-seq 1 --bind-pcr "$(printf '0%.0s' $(seq 64))" \
	"$T/ref.t" -o - > "$T/stdout.pkg" 2>"$T/err" || { cat "$T/err" >&2; fail "sign -o -"; }
[ -s "$T/stdout.pkg" ] && [ ! -e "$T/-" ] || fail "sign -o - wrote nothing to stdout"
"$UIE" ref scan /usr/bin/true -o - > "$T/stdout.m" 2>/dev/null || fail "ref scan -o -"
grep -q "path=/usr/bin/true$" "$T/stdout.m" || fail "ref scan -o - wrote no manifest to stdout"
rm -f "$T/-"

note "key gen: both keys or neither"
"$UIE" key gen -o "$T/same" --pub "$T/same" >/dev/null 2>"$T/err" && fail "key gen -o X --pub X succeeded"
grep -q "both name $T/same" "$T/err" || { cat "$T/err" >&2; fail "same path not named"; }
[ -e "$T/same" ] && fail "key gen -o X --pub X left $T/same"
mkdir "$T/kd"
"$UIE" key gen -o "$T/kd/k" --pub "$T/kd/../kd/k" >/dev/null 2>&1 && fail "key gen to one file under two names"
"$UIE" key gen -o "$T/kd/k" --pub /nonexist-uie/x.pub >/dev/null 2>"$T/err" && fail "key gen --pub in a missing directory"
grep -q "/nonexist-uie/x.pub: No such file or directory" "$T/err" || { cat "$T/err" >&2; fail "missing directory not named"; }
[ -z "$(ls -A "$T/kd")" ] || fail "a failed key gen left $(ls -A "$T/kd")"
[ -e /nonexist-uie ] && fail "key gen created /nonexist-uie"
"$UIE" key gen -o "$T/kd/k" --pub "$T/kd/k.pub" >/dev/null 2>&1 || fail "key gen after a failed one"
# A public key that cannot be written (a directory) after the private key was: neither stays.
mkdir "$T/kd2" "$T/kd2/pub"
"$UIE" key gen --force -o "$T/kd2/k" --pub "$T/kd2/pub" >/dev/null 2>"$T/err" && fail "key gen --pub DIR succeeded"
[ -e "$T/kd2/k" ] && fail "key gen left a private key without its public key"
# --force over a key pair whose new public key cannot be written (/dev/full, written through):
# the private key already there is kept (it was replaced before the public key was written).
"$UIE" key gen -o "$T/kd2/old.pem" --pub "$T/kd2/old.pub" >/dev/null 2>&1 || fail "key gen (old pair)"
old_sum=$(sha256sum < "$T/kd2/old.pem")
ln -s /dev/full "$T/kd2/full.pub"
"$UIE" key gen --force -o "$T/kd2/old.pem" --pub "$T/kd2/full.pub" >/dev/null 2>"$T/err" &&
	fail "key gen --force with a public key that cannot be written succeeded"
grep -q "full.pub: No space left on device" "$T/err" || { cat "$T/err" >&2; fail "the failing public key not named"; }
[ "$(sha256sum < "$T/kd2/old.pem")" = "$old_sum" ] || fail "key gen --force lost the private key already there"
"$UIE" key gen -o - --pub "$T/kd2/k.pub" > "$T/stdout.key" 2>"$T/err" || fail "key gen -o -"
grep -q "BEGIN PRIVATE KEY" "$T/stdout.key" && ! grep -q "key id" "$T/stdout.key" ||
	fail "key gen -o - wrote no key, or mixed the key id into it"
grep -q "^key id [0-9a-f]\{64\}$" "$T/err" || fail "key gen -o - did not print the key id on stderr"

echo "uie-outputs: all checks passed"
