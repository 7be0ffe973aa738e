#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# End-to-end: the monitor's policy path through the bridge with the real
# TTP tools: bootstrap measurement, a package signed and bound to the
# monitor's vPCR16, installation, the published Bloom hint (sealed,
# read-only), ENFORCE decisions, and a rollback that changes nothing.
#   monitor_policy.sh UIE_MONITORD BRIDGE_CLIENT UIE
set -u
MONITORD=$1
CLIENT=$2
UIE=$3
. "$(dirname "$0")/../common.sh"
e2e_setup uie-e2e-policy
SOCK=$T/run/monitor.sock
e2e_keep_going

"$UIE" key gen -o "$T/ttp.pem" --pub "$T/ttp.pub" >/dev/null || { echo "FAIL: key gen"; exit 1; }
start_monitor "$MONITORD" "$SOCK" "builtin:$T/ak.pem" --trust-key "$T/ttp.pub" ||
	{ echo "FAIL: monitor not ready"; exit 1; }

cp /bin/true "$T/true"
cp /bin/ls "$T/ls"
out=$("$CLIENT" "$SOCK" measure execve main "$T/true")
expect_kv "bootstrap measure" decision 1 "$out"

# the TTP: reference values, a table allowing only 'true', a package bound to the log so far
"$UIE" ref scan "$T/true" -o "$T/manifest" >/dev/null 2>&1 || fail "ref scan"
"$UIE" policy compile --mode enforce --default deny "$T/manifest" -o "$T/table" >/dev/null 2>&1 ||
	fail "policy compile"
st=$("$CLIENT" "$SOCK" status)
"$UIE" policy sign --key "$T/ttp.pem" --epoch 1 --bind-seq "$(kv_field nrecords "$st")" \
	--bind-pcr "$(kv_field vpcr "$st")" --bloom "$T/table" -o "$T/pkg1" >/dev/null 2>&1 ||
	fail "policy sign"
# a package bound to a vPCR16 the monitor never had is rejected first
"$UIE" policy sign --key "$T/ttp.pem" --epoch 1 --bind-seq 1 --bind-pcr "$(printf '%064d' 0)" \
	"$T/table" -o "$T/pkg-badbind" >/dev/null 2>&1 || fail "policy sign (bad binding)"

out=$("$CLIENT" "$SOCK" hint)
expect_kv "no hint in bootstrap" hint_fd -1 "$out"
out=$("$CLIENT" "$SOCK" install "$T/pkg-badbind")
expect_kv "bad binding answered" status 0 "$out"
expect_kv "bad binding rejected" result -16 "$out"
expect_kv "still bootstrap" mode 0 "$("$CLIENT" "$SOCK" status)"

out=$("$CLIENT" "$SOCK" install "$T/pkg1")
expect_kv "install" result 0 "$out"
st=$("$CLIENT" "$SOCK" status)
expect_kv "enforcing" mode 2 "$st"
expect_kv "epoch 1" epoch 1 "$st"
[ "$(kv_field policy_id "$st")" != "$(printf '%064d' 0)" ] || fail "no policy id"

out=$("$CLIENT" "$SOCK" hint)
expect_kv "hint published" status 0 "$out"
[ "$(kv_field len "$out")" -gt 0 ] 2>/dev/null || fail "empty hint: $out"
expect_kv "hint not writable" write_blocked 1 "$out"
expect_kv "hint not mappable for writing" mmap_write_blocked 1 "$out"
expect_kv "hint mappable read-only" mmap_read_ok 1 "$out"

out=$("$CLIENT" "$SOCK" measure execve main "$T/true")
expect_kv "listed program" decision 1 "$out"
expect_kv "listed program reason" reason 1 "$out"
out=$("$CLIENT" "$SOCK" measure execve main "$T/ls")
expect_kv "unlisted program" decision 0 "$out"
expect_kv "unlisted program reason" reason 3 "$out"
# one byte inside the executable segment (bytes outside it are not part of the object digest)
code=$(readelf -lW "$T/true" | awk '$1 == "LOAD" && / R E / { print $2; exit }')
code=$((code + 64))
printf '\xcc' | dd of="$T/true" bs=1 seek="$code" conv=notrunc status=none
out=$("$CLIENT" "$SOCK" measure execve main "$T/true")
expect_kv "modified program" decision 0 "$out"

before=$("$CLIENT" "$SOCK" status)
out=$("$CLIENT" "$SOCK" install "$T/pkg1")
expect_kv "rollback answered" status 0 "$out"
expect_kv "rollback rejected" result -15 "$out"
after=$("$CLIENT" "$SOCK" status)
expect_kv "rollback keeps the policy" policy_id "$(kv_field policy_id "$before")" "$after"
expect_kv "rollback keeps the epoch" epoch 1 "$after"
expect_kv "the rejection is logged" nrecords $(($(kv_field nrecords "$before") + 1)) "$after"

stop_monitor || fail "monitor exit status $?"
e2e_finish monitor_policy
