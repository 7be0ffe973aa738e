#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The rough edges a new user hits (issue 21): each bad input is refused with
# a message that names the file or socket and the system error, and changes
# nothing.  Every check here failed before its fix.
# Environment from meson: UIE, UIE_MONITORD, UIE_VMRELAY.
set -u

. "$(dirname "$0")/../common.sh"
e2e_start uie-edges UIE UIE_MONITORD UIE_VMRELAY
e2e_keep_going

# expect_cmd WHAT RC PATTERN CMD...: runs CMD, fails unless it exits RC and
# its stderr matches PATTERN (grep -E); stdout is kept in $T/stdout.
expect_cmd() {
	local what=$1 want=$2 pat=$3 rc
	shift 3
	"$@" >"$T/stdout" 2>"$T/stderr"
	rc=$?
	[ "$rc" = "$want" ] || { cat "$T/stderr"; fail "$what: exit $rc, want $want"; return; }
	[ -z "$pat" ] || grep -Eq -- "$pat" "$T/stderr" ||
		{ cat "$T/stderr"; fail "$what: stderr lacks '$pat'"; }
}

"$UIE" key gen -o "$T/ttp.key" --pub "$T/ttp.pub" >/dev/null || fail "key gen"
"$UIE" key gen -o "$T/other.key" --pub "$T/other.pub" >/dev/null || fail "key gen (other)"
cp /bin/true "$T/true"
"$UIE" ref scan "$T/true" -o "$T/m" 2>/dev/null || fail "ref scan"
"$UIE" policy compile "$T/m" -o "$T/t" 2>/dev/null || fail "compile"
pcr=$(printf '%064d' 0)

note "epochs: the ceiling is 2^63-1"
expect_cmd "sign with epoch 2^64-1" 2 "epoch" \
	"$UIE" policy sign --key "$T/ttp.key" --epoch 18446744073709551615 --bind-seq 1 \
	--bind-pcr "$pcr" "$T/t" -o "$T/p-max"
[ -e "$T/p-max" ] && fail "sign with epoch 2^64-1 wrote a package"
expect_cmd "sign with epoch 2^63" 2 "epoch" \
	"$UIE" policy sign --key "$T/ttp.key" --epoch 9223372036854775808 --bind-seq 1 \
	--bind-pcr "$pcr" "$T/t" -o "$T/p-max"
expect_cmd "sign with epoch 2^63-1" 0 "" \
	"$UIE" policy sign --key "$T/ttp.key" --epoch 9223372036854775807 --bind-seq 1 \
	--bind-pcr "$pcr" "$T/t" -o "$T/p-top"

note "key gen does not overwrite a key"
cp "$T/ttp.key" "$T/ttp.key.orig"
expect_cmd "key gen over a key" 1 "$T/ttp.key: .*exists.*--force" \
	"$UIE" key gen -o "$T/ttp.key" --pub "$T/new.pub"
cmp -s "$T/ttp.key" "$T/ttp.key.orig" || fail "key gen replaced an existing key"
[ -e "$T/new.pub" ] && fail "key gen wrote a public key while refusing"
cp "$T/ttp.key" "$T/k2" && cp "$T/ttp.pub" "$T/p2"
expect_cmd "key gen --force" 0 "" "$UIE" key gen --force -o "$T/k2" --pub "$T/p2"
cmp -s "$T/k2" "$T/ttp.key" && fail "key gen --force kept the old key"

note "policy show and check verify the signature"
"$UIE" policy sign --key "$T/ttp.key" --epoch 1 --bind-seq 1 --bind-pcr "$pcr" "$T/t" \
	-o "$T/p" 2>/dev/null || fail "sign"
expect_cmd "show --key of a good package" 0 "" "$UIE" policy show --key "$T/ttp.pub" "$T/p"
grep -q "^# signature: good" "$T/stdout" || fail "show --key does not say the signature is good"
expect_cmd "show without a key" 0 "signature not checked" "$UIE" policy show "$T/p"
expect_cmd "check without a key" 0 "signature not checked" "$UIE" policy check "$T/p" "$T/true"
expect_cmd "show --key of another key" 1 "signature" \
	"$UIE" policy show --key "$T/other.pub" "$T/p"
# The table's first rule digest, altered after signing.
cp "$T/p" "$T/p-bad"
size=$(stat -c %s "$T/p")
flip_byte "$T/p-bad" $((size - 100)) || fail "cannot alter the package"
expect_cmd "show --key of an altered package" 1 "$T/p-bad: .*signature" \
	"$UIE" policy show --key "$T/ttp.pub" "$T/p-bad"
[ -s "$T/stdout" ] && fail "show printed an altered package"
expect_cmd "check --key of an altered package" 1 "$T/p-bad: .*signature" \
	"$UIE" policy check --key "$T/ttp.pub" "$T/p-bad" "$T/true"
expect_cmd "check --key of a good package" 0 "" \
	"$UIE" policy check --key "$T/ttp.pub" "$T/p" "$T/true"

note "ref scan writes nothing on error"
expect_cmd "ref scan of a missing path" 1 "/nonexistent-uie: No such file or directory" \
	"$UIE" ref scan "$T/true" /nonexistent-uie
[ -s "$T/stdout" ] && fail "ref scan wrote a manifest on error: $(head -3 "$T/stdout")"
expect_cmd "ref scan --json of a missing path" 1 "" \
	"$UIE" ref scan --json "$T/true" /nonexistent-uie
[ -s "$T/stdout" ] && fail "ref scan --json wrote a manifest on error"

note "file errors name the file and the system error"
expect_cmd "ref scan -o into a missing directory" 1 "/nonexist-uie/x: No such file or directory" \
	"$UIE" ref scan "$T/true" -o /nonexist-uie/x
expect_cmd "compile -o into a missing directory" 1 "/nonexist-uie/t: No such file or directory" \
	"$UIE" policy compile "$T/m" -o /nonexist-uie/t
expect_cmd "compile of a directory" 1 "$T: Is a directory" "$UIE" policy compile "$T" -o "$T/t2"
expect_cmd "sign of a missing table" 1 "$T/none: No such file or directory" \
	"$UIE" policy sign --key "$T/ttp.key" --epoch 1 --bind-seq 1 --bind-pcr "$pcr" "$T/none" \
	-o "$T/p2"
: >"$T/empty"
expect_cmd "install of a directory" 1 "$T: Is a directory" \
	"$UIE" policy install --socket "$T/nosock" "$T"
expect_cmd "install of an empty file" 1 "$T/empty: not a policy package" \
	"$UIE" policy install --socket "$T/nosock" "$T/empty"
grep -q "monitor" "$T/stderr" && fail "install of an empty file blames the monitor"

note "an unreachable monitor is named, and why"
expect_cmd "export, no socket" 1 "$T/nosock: .*No such file or directory" \
	"$UIE" evidence export --socket "$T/nosock" --nonce 00 -o "$T/ae"
python3 -c 'import socket,sys; s=socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET); s.bind(sys.argv[1])' "$T/dead.sock"
expect_cmd "export, nobody listening" 1 "$T/dead.sock: .*Connection refused" \
	"$UIE" evidence export --socket "$T/dead.sock" --nonce 00 -o "$T/ae"
# A listener that closes every connection at once: a broken peer, not a refusal.
python3 -c '
import socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET); s.bind(sys.argv[1]); s.listen(4)
open(sys.argv[2], "w").close()
while True:
    c, _ = s.accept(); c.close()' "$T/rude.sock" "$T/rude.up" &
rude=$!
for _ in $(seq 50); do [ -e "$T/rude.up" ] && break; sleep 0.1; done
expect_cmd "export, a peer that hangs up" 1 "$T/rude.sock .*(closed|protocol)" \
	"$UIE" evidence export --socket "$T/rude.sock" --nonce 00 -o "$T/ae"
grep -q "refused" "$T/stderr" && fail "a hang-up is reported as a refusal"
kill "$rude" && wait "$rude" 2>/dev/null
expect_cmd "run, no socket" 126 "$T/nosock.*No such file or directory" \
	"$UIE" run --socket "$T/nosock" -- "$T/true"
expect_cmd "status, no socket" 1 "$T/nosock.*No such file or directory" \
	"$UIE" status --socket "$T/nosock"

note "uie-monitord checks its arguments before it writes anything"
mkdir "$T/m1"
expect_cmd "--ready-fd 999" 2 "ready-fd.*999.*Bad file descriptor" \
	"$UIE_MONITORD" --foreground --ready-fd 999 --socket "$T/m1/s" --vtpm "builtin:$T/m1/ak.pem" \
	--log-file "$T/m1/log" --state-dir "$T/m1/state"
[ -z "$(ls "$T/m1")" ] || fail "--ready-fd 999 left $(ls "$T/m1")"
expect_cmd "--socket in a missing directory" 2 "/nonexist-uie/dir/s.*No such file or directory" \
	"$UIE_MONITORD" --foreground --socket /nonexist-uie/dir/s --vtpm "builtin:$T/m1/ak.pem" \
	--log-file "$T/m1/log" --state-dir "$T/m1/state"
[ -z "$(ls "$T/m1")" ] || fail "--socket /nonexist-uie/dir/s left $(ls "$T/m1")"

note "help and version everywhere, JSON, folded duplicates"
expect_cmd "uie help" 0 "" "$UIE" help
grep -q "^  policy compile" "$T/stdout" || fail "uie help lists no commands"
expect_cmd "uie policy --help" 0 "" "$UIE" policy --help
grep -q "^  policy sign" "$T/stdout" && ! grep -q "^  verify" "$T/stdout" ||
	fail "uie policy --help does not list the policy commands only"
expect_cmd "uie-monitord --version" 0 "" "$UIE_MONITORD" --version
grep -Eq '^uie-monitord [0-9]+\.[0-9]+\.[0-9]+$' "$T/stdout" || fail "uie-monitord --version"
expect_cmd "uie-vmrelay --version" 0 "" "$UIE_VMRELAY" --version
grep -Eq '^uie-vmrelay [0-9]+\.[0-9]+\.[0-9]+$' "$T/stdout" || fail "uie-vmrelay --version"
expect_cmd "uie-vmrelay --help" 0 "" "$UIE_VMRELAY" --help
grep -q "^usage: uie-vmrelay" "$T/stdout" || fail "uie-vmrelay --help prints no usage"
expect_cmd "uie-vmrelay --ready-fd abc" 2 "ready-fd" "$UIE_VMRELAY" --ready-fd abc
"$UIE" ref scan --package dash >"$T/once" 2>/dev/null || fail "ref scan --package dash"
"$UIE" ref scan --package dash --package dash >"$T/twice" 2>/dev/null || fail "ref scan twice"
cmp -s "$T/once" "$T/twice" || fail "a package given twice is listed twice: $(diff "$T/once" "$T/twice")"
"$UIE" ref scan --json "$T/true" "$T/true" >"$T/m.json" || fail "ref scan --json"
[ "$(jq '.entries | length' "$T/m.json")" = 1 ] || fail "ref scan --json: $(cat "$T/m.json")"
"$UIE" policy compile "$T/m.json" -o "$T/tj" 2>/dev/null && cmp -s "$T/t" "$T/tj" ||
	fail "the JSON manifest does not compile to the same table"
expect_cmd "policy show --json" 0 "" "$UIE" policy show --json --key "$T/ttp.pub" "$T/p-top"
# (jq reads numbers as doubles: the epoch is checked in the text.)
[ "$(jq -r '.mode, .package.signature, .rules[0].op' "$T/stdout" | tr '\n' ' ')" = \
	"ENFORCE good EXECVE " ] && grep -q '"epoch": 9223372036854775807,' "$T/stdout" ||
	fail "policy show --json: $(cat "$T/stdout")"

cp /bin/ls "$T/notyet"
"$UIE" policy check --json "$T/p" "$T/true" "$T/notyet" >"$T/stdout" 2>/dev/null && fail "check --json found nothing"
[ "$(jq -r '.count, .findings[0].kind, .findings[0].role, .findings[0].note' "$T/stdout" | tr '\n' ' ')" = \
	"1 not-covered MAIN op=EXECVE role=MAIN " ] || fail "policy check --json: $(cat "$T/stdout")"

note "a monitor without --trust-key says it can never leave bootstrap"
start_monitor "$UIE_MONITORD" "$T/sock" "builtin:$T/ak.pem" 2>"$T/mon.err" || fail "monitor did not start"
grep -q "WARNING: no --trust-key" "$T/monitord.log" || fail "no warning in the monitor's log"
expect_cmd "status of a keyless monitor" 0 "WARNING: .*no trusted policy key" \
	"$UIE" status --socket "$T/sock"
expect_cmd "status --json" 0 "" "$UIE" status --json --socket "$T/sock"
[ "$(jq -r '.mode, .trusted_keys, .records' "$T/stdout" | tr '\n' ' ')" = "BOOTSTRAP 0 1 " ] ||
	fail "status --json: $(cat "$T/stdout")"
stop_monitor

e2e_finish edges
