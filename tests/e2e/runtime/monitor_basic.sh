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
. "$(dirname "$0")/../common.sh"
e2e_setup uie-e2e-monitor
SOCK=$T/run/monitor.sock
e2e_keep_going

start_monitor "$MONITORD" "$SOCK" "builtin:$T/ak.pem" || { echo "FAIL: monitor not ready"; exit 1; }

# isolation: own user, seccomp filter, non-dumpable (its /proc files turn root-owned)
user=$(ps -o user= -p "$MON_PID")
[ "$user" = uie-monitor ] || fail "monitor runs as '$user'"
grep -q '^Seccomp:[[:space:]]*2' "/proc/$MON_PID/status" || fail "no seccomp filter"
[ "$(stat -c %U "/proc/$MON_PID/environ")" = root ] || fail "monitor is dumpable"
[ "$(stat -c %a "$SOCK")" = 660 ] || fail "socket mode $(stat -c %a "$SOCK")"
[ "$(stat -c %a "$T/run")" = 750 ] || fail "socket dir mode $(stat -c %a "$T/run")"

out=$("$CLIENT" "$SOCK" status)
expect_kv "status" status 0 "$out"
expect_kv "bootstrap mode" mode 0 "$out"
expect_kv "MONITOR_START only" nrecords 1 "$out"

cp /bin/true "$T/true"
out=$("$CLIENT" "$SOCK" measure execve main "$T/true")
expect_kv "measure" status 0 "$out"
expect_kv "bootstrap allows" decision 1 "$out"
expect_kv "bootstrap reason" reason 4 "$out"
expect_kv "ELF scope" scope 1 "$out"
expect_kv "second record" seq 1 "$out"
d1=$(kv_field digest "$out")
[ ${#d1} = 64 ] || fail "digest '$d1'"
out=$("$CLIENT" "$SOCK" measure execve main "$T/true")
expect_kv "same digest again" digest "$d1" "$out"
expect_kv "logged again" seq 2 "$out"
printf 'x' >> "$T/true"
out=$("$CLIENT" "$SOCK" measure mmap dso "$T/true" 0 4096)
expect_kv "mmap measured" status 0 "$out"
out=$("$CLIENT" "$SOCK" measure mprotect anon -)
expect_kv "anon" status 0 "$out"
expect_kv "anon policy decision" policy_decision 0 "$out"
expect_kv "anon reason" reason 5 "$out"
out=$("$CLIENT" "$SOCK" measure execve main /dev/null)
expect_kv "device node" reason 7 "$out"

out=$("$CLIENT" "$SOCK" pubkey "$T/ak.der")
expect_kv "pubkey" status 0 "$out"
openssl pkey -pubin -inform DER -in "$T/ak.der" -noout -text 2>/dev/null | grep -q 'P-256\|prime256v1' ||
	fail "pubkey is not a P-256 key"
out=$("$CLIENT" "$SOCK" export 00112233445566778899aabbccddeeff 0 "$T/ae.bin")
expect_kv "export" status 0 "$out"
[ -s "$T/ae.bin" ] || fail "empty AE"
out=$("$CLIENT" "$SOCK" export 0011 999999 "$T/ae2.bin")
expect_kv "export past the log" status -7 "$out"
out=$("$CLIENT" "$SOCK" hint)
expect_kv "no hint before a policy" hint_fd -1 "$out"
expect_kv "hint status" status 0 "$out"
out=$("$CLIENT" "$SOCK" install /bin/true)
expect_kv "install of a non-package is answered" status 0 "$out"
r=$(kv_field result "$out")
[ "$r" -lt 0 ] 2>/dev/null || fail "non-package installed (result '$r')"

before=$("$CLIENT" "$SOCK" status)
for kind in random truncated version magic unknown oversized fds answer; do
	out=$("$CLIENT" "$SOCK" hostile $kind)
	st=$(kv_field status "$out")
	[ "$(kv_field decode "$out")" = 0 ] || fail "hostile $kind: answer does not decode: $out"
	[ -n "$st" ] && [ "$st" -lt 0 ] || fail "hostile $kind: status '$st'"
	[ "$(kv_field fd "$out")" = -1 ] || fail "hostile $kind: answer carried a descriptor"
	out=$("$CLIENT" "$SOCK" status)
	expect_kv "serving after hostile $kind" status 0 "$out"
done
out=$("$CLIENT" "$SOCK" hostile oversized)
expect_kv "oversized" status -8 "$out"
expect_kv "oversized refusal addressed" request_id 4242 "$out"
expect_kv "oversized refusal type" type 11 "$out"
expect_kv "wrong version" status -5 "$("$CLIENT" "$SOCK" hostile version)"
expect_kv "wrong version answer type" type 1 "$("$CLIENT" "$SOCK" hostile version)"
expect_kv "truncated" status -2 "$("$CLIENT" "$SOCK" hostile truncated)"
expect_kv "extra descriptors" status -4 "$("$CLIENT" "$SOCK" hostile fds)"
after=$("$CLIENT" "$SOCK" status)
expect_kv "hostile messages changed no state" vpcr "$(kv_field vpcr "$before")" "$after"
expect_kv "hostile messages logged nothing" nrecords "$(kv_field nrecords "$before")" "$after"

stop_monitor || fail "monitor exit status $?"

# a socket directory others can write to is refused
mkdir -m 0777 "$T/open"
chmod 0777 "$T/open"
if "$MONITORD" --socket "$T/open/monitor.sock" --vtpm "builtin:$T/ak.pem" --state-dir none --foreground \
	2>"$T/open.err"; then
	fail "monitor started in a world-writable directory"
fi
[ -e "$T/open/monitor.sock" ] && fail "socket created in a world-writable directory"
grep -q 'refused message' "$T/monitord.log" || fail "refusals not in the diagnostics log"
e2e_finish monitor_basic
