#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# End-to-end: uie-monitord on a real TPM 2.0 (swtpm through tpm2-tss), under
# its seccomp filter: requests are logged, evidence exported, and PCR 16 of
# the TPM, read with tpm2-tools after the monitor stops, equals the vPCR16
# the monitor reported.
#   monitor_swtpm.sh UIE_MONITORD BRIDGE_CLIENT
set -u
MONITORD=$1
CLIENT=$2
command -v swtpm >/dev/null && command -v tpm2_pcrread >/dev/null || { echo "SKIP: no swtpm"; exit 77; }
. "$(dirname "$0")/../common.sh"
e2e_setup uie-e2e-swtpm
SOCK=$T/run/monitor.sock
die() { echo "FAIL: $*"; cat "$T/monitord.log" 2>/dev/null; exit 1; }

start_swtpm || die "swtpm did not start"
start_monitor "$MONITORD" "$SOCK" "swtpm:127.0.0.1:$SW_PORT" || die "monitor not ready"
grep -q '^Seccomp:[[:space:]]*2' "/proc/$MON_PID/status" || die "no seccomp filter"

out=$("$CLIENT" "$SOCK" measure execve main /bin/true)
[ "$(kv_field status "$out")" = 0 ] || die "measure: $out"
out=$("$CLIENT" "$SOCK" measure mprotect anon -)
[ "$(kv_field status "$out")" = 0 ] || die "anon measure: $out"
out=$("$CLIENT" "$SOCK" export 5eed5eed5eed5eed 0 "$T/ae.bin")
[ "$(kv_field status "$out")" = 0 ] && [ -s "$T/ae.bin" ] || die "export: $out"
out=$("$CLIENT" "$SOCK" pubkey "$T/ak.der")
[ "$(kv_field status "$out")" = 0 ] || die "pubkey: $out"
st=$("$CLIENT" "$SOCK" status)
[ "$(kv_field nrecords "$st")" = 3 ] || die "records: $st"
vpcr=$(kv_field vpcr "$st")

stop_monitor || die "monitor exit status $? (killed by its filter?)"
pcr=$(tpm2_pcrread -T "swtpm:host=127.0.0.1,port=$SW_PORT" sha256:16 | sed -n 's/.*16: 0x//p' |
	tr 'A-F' 'a-f')
[ "$pcr" = "$vpcr" ] || die "TPM PCR 16 $pcr != monitor vPCR16 $vpcr"
echo "monitor_swtpm: all checks passed"
