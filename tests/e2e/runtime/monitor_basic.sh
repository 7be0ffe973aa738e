#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# End-to-end: a real uie-monitord (as root, dropping to its own user, under
# its own seccomp filter) answers every request type through the bridge,
# refuses hostile messages with error answers without changing its state,
# and keeps serving.
#   monitor_basic.sh UIE_MONITORD BRIDGE_CLIENT
set -u
MONITORD=$1
CLIENT=$2
[ "$(id -u)" = 0 ] || { echo "SKIP: needs root"; exit 77; }

T=$(mktemp -d /tmp/uie-e2e-monitor.XXXXXX)
SOCK=$T/run/monitor.sock
PID=
fails=0
cleanup() {
	[ -n "$PID" ] && kill "$PID" 2>/dev/null && wait "$PID" 2>/dev/null
	rm -rf "$T"
}
trap cleanup EXIT

fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
# field KEY OUTPUT: the value of KEY=... in OUTPUT
field() { printf '%s\n' "$2" | sed -n "s/^$1=//p"; }
expect() { # expect DESCRIPTION KEY WANT OUTPUT
	local got
	got=$(field "$2" "$4")
	[ "$got" = "$3" ] || fail "$1: $2=$got, want $3"
}

"$MONITORD" --socket "$SOCK" --vtpm "builtin:$T/ak.pem" --foreground --ready-fd 3 \
	--log-file "$T/monitord.log" 3>"$T/ready" &
PID=$!
for _ in $(seq 100); do grep -q READY "$T/ready" 2>/dev/null && break; sleep 0.1; done
grep -q READY "$T/ready" || { cat "$T/monitord.log"; echo "FAIL: monitor not ready"; exit 1; }

# isolation: own user, seccomp filter, non-dumpable (its /proc files turn root-owned)
user=$(ps -o user= -p "$PID")
[ "$user" = uie-monitor ] || fail "monitor runs as '$user'"
grep -q '^Seccomp:[[:space:]]*2' "/proc/$PID/status" || fail "no seccomp filter"
[ "$(stat -c %U "/proc/$PID/environ")" = root ] || fail "monitor is dumpable"
[ "$(stat -c %a "$SOCK")" = 660 ] || fail "socket mode $(stat -c %a "$SOCK")"
[ "$(stat -c %a "$T/run")" = 750 ] || fail "socket dir mode $(stat -c %a "$T/run")"

out=$("$CLIENT" "$SOCK" status)
expect "status" status 0 "$out"
expect "bootstrap mode" mode 0 "$out"
expect "MONITOR_START only" nrecords 1 "$out"

cp /bin/true "$T/true"
out=$("$CLIENT" "$SOCK" measure execve main "$T/true")
expect "measure" status 0 "$out"
expect "bootstrap allows" decision 1 "$out"
expect "bootstrap reason" reason 4 "$out"
expect "ELF scope" scope 1 "$out"
expect "second record" seq 1 "$out"
d1=$(field digest "$out")
[ ${#d1} = 64 ] || fail "digest '$d1'"
out=$("$CLIENT" "$SOCK" measure execve main "$T/true")
expect "same digest again" digest "$d1" "$out"
expect "logged again" seq 2 "$out"
printf 'x' >> "$T/true"
out=$("$CLIENT" "$SOCK" measure mmap dso "$T/true" 0 4096)
expect "mmap measured" status 0 "$out"
out=$("$CLIENT" "$SOCK" measure mprotect anon -)
expect "anon" status 0 "$out"
expect "anon policy decision" policy_decision 0 "$out"
expect "anon reason" reason 5 "$out"
out=$("$CLIENT" "$SOCK" measure execve main /dev/null)
expect "device node" reason 7 "$out"

out=$("$CLIENT" "$SOCK" pubkey "$T/ak.der")
expect "pubkey" status 0 "$out"
openssl pkey -pubin -inform DER -in "$T/ak.der" -noout -text 2>/dev/null | grep -q 'P-256\|prime256v1' ||
	fail "pubkey is not a P-256 key"
out=$("$CLIENT" "$SOCK" export 00112233445566778899aabbccddeeff 0 "$T/ae.bin")
expect "export" status 0 "$out"
[ -s "$T/ae.bin" ] || fail "empty AE"
out=$("$CLIENT" "$SOCK" export 0011 999999 "$T/ae2.bin")
expect "export past the log" status -7 "$out"
out=$("$CLIENT" "$SOCK" hint)
expect "no hint before a policy" hint_fd -1 "$out"
expect "hint status" status 0 "$out"
out=$("$CLIENT" "$SOCK" install /bin/true)
expect "install of a non-package is answered" status 0 "$out"
r=$(field result "$out")
[ "$r" -lt 0 ] 2>/dev/null || fail "non-package installed (result '$r')"

before=$("$CLIENT" "$SOCK" status)
for kind in random truncated version magic unknown oversized fds answer; do
	out=$("$CLIENT" "$SOCK" hostile $kind)
	st=$(field status "$out")
	[ "$(field decode "$out")" = 0 ] || fail "hostile $kind: answer does not decode: $out"
	[ -n "$st" ] && [ "$st" -lt 0 ] || fail "hostile $kind: status '$st'"
	[ "$(field fd "$out")" = -1 ] || fail "hostile $kind: answer carried a descriptor"
	out=$("$CLIENT" "$SOCK" status)
	expect "serving after hostile $kind" status 0 "$out"
done
out=$("$CLIENT" "$SOCK" hostile oversized)
expect "oversized" status -8 "$out"
expect "oversized refusal addressed" request_id 4242 "$out"
expect "oversized refusal type" type 11 "$out"
expect "wrong version" status -5 "$("$CLIENT" "$SOCK" hostile version)"
expect "wrong version answer type" type 1 "$("$CLIENT" "$SOCK" hostile version)"
expect "truncated" status -2 "$("$CLIENT" "$SOCK" hostile truncated)"
expect "extra descriptors" status -4 "$("$CLIENT" "$SOCK" hostile fds)"
after=$("$CLIENT" "$SOCK" status)
expect "hostile messages changed no state" vpcr "$(field vpcr "$before")" "$after"
expect "hostile messages logged nothing" nrecords "$(field nrecords "$before")" "$after"

kill -TERM "$PID"
wait "$PID"
rc=$?
PID=
[ $rc = 0 ] || fail "monitor exit status $rc"

# a socket directory others can write to is refused
mkdir -m 0777 "$T/open"
chmod 0777 "$T/open"
if "$MONITORD" --socket "$T/open/monitor.sock" --vtpm "builtin:$T/ak.pem" --foreground \
	2>"$T/open.err"; then
	fail "monitor started in a world-writable directory"
fi
[ -e "$T/open/monitor.sock" ] && fail "socket created in a world-writable directory"
grep -q 'refused message' "$T/monitord.log" || fail "refusals not in the diagnostics log"
if [ $fails != 0 ]; then
	cat "$T/monitord.log"
	exit 1
fi
echo "monitor_basic: all checks passed"
