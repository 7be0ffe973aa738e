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
[ "$(id -u)" = 0 ] || { echo "SKIP: needs root"; exit 77; }
command -v swtpm >/dev/null && command -v tpm2_pcrread >/dev/null || { echo "SKIP: no swtpm"; exit 77; }

T=$(mktemp -d /tmp/uie-e2e-swtpm.XXXXXX)
SOCK=$T/run/monitor.sock
PID=
SWPID=
cleanup() {
	[ -n "$PID" ] && kill "$PID" 2>/dev/null && wait "$PID" 2>/dev/null
	[ -n "$SWPID" ] && kill "$SWPID" 2>/dev/null && wait "$SWPID" 2>/dev/null
	rm -rf "$T"
}
trap cleanup EXIT
field() { printf '%s\n' "$2" | sed -n "s/^$1=//p"; }
die() { echo "FAIL: $*"; cat "$T/monitord.log" 2>/dev/null; exit 1; }

port_busy() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
for _ in $(seq 50); do
	PORT=$((20000 + 2 * (RANDOM % 20000)))
	port_busy $PORT || port_busy $((PORT + 1)) || break
done
mkdir "$T/tpm"
swtpm socket --tpmstate dir="$T/tpm" --tpm2 --flags not-need-init,startup-clear \
	--server type=tcp,port=$PORT,bindaddr=127.0.0.1 \
	--ctrl type=tcp,port=$((PORT + 1)),bindaddr=127.0.0.1 &
SWPID=$!
for _ in $(seq 100); do port_busy $PORT && break; sleep 0.05; done

"$MONITORD" --socket "$SOCK" --vtpm "swtpm:127.0.0.1:$PORT" --foreground --ready-fd 3 \
	--log-file "$T/monitord.log" 3>"$T/ready" &
PID=$!
for _ in $(seq 100); do grep -q READY "$T/ready" 2>/dev/null && break; sleep 0.1; done
grep -q READY "$T/ready" || die "monitor not ready"
grep -q '^Seccomp:[[:space:]]*2' "/proc/$PID/status" || die "no seccomp filter"

out=$("$CLIENT" "$SOCK" measure execve main /bin/true)
[ "$(field status "$out")" = 0 ] || die "measure: $out"
out=$("$CLIENT" "$SOCK" measure mprotect anon -)
[ "$(field status "$out")" = 0 ] || die "anon measure: $out"
out=$("$CLIENT" "$SOCK" export 5eed5eed5eed5eed 0 "$T/ae.bin")
[ "$(field status "$out")" = 0 ] && [ -s "$T/ae.bin" ] || die "export: $out"
out=$("$CLIENT" "$SOCK" pubkey "$T/ak.der")
[ "$(field status "$out")" = 0 ] || die "pubkey: $out"
st=$("$CLIENT" "$SOCK" status)
[ "$(field nrecords "$st")" = 3 ] || die "records: $st"
vpcr=$(field vpcr "$st")

kill -TERM "$PID"
wait "$PID"
rc=$?
PID=
[ $rc = 0 ] || die "monitor exit status $rc (killed by its filter?)"
pcr=$(tpm2_pcrread -T "swtpm:host=127.0.0.1,port=$PORT" sha256:16 | sed -n 's/.*16: 0x//p' |
	tr 'A-F' 'a-f')
[ "$pcr" = "$vpcr" ] || die "TPM PCR 16 $pcr != monitor vPCR16 $vpcr"
echo "monitor_swtpm: all checks passed"
