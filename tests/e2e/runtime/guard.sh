#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# The monitor serves only interceptors, and serves them fairly (issue 11,
# points 3 and 4):
#  - a process inside a supervised tree cannot reach the monitor at all, so
#    it forges no report and sends no control request; nothing is logged;
#  - a connection's records per second are bounded (--client-quota);
#  - 64+ idle connections do not stop the monitor serving another client,
#    and one process cannot hold more than --max-clients-per-process;
#  - an object over --max-object-size, or one that takes over --max-hash-ms
#    to measure, is refused (logged DENY, reason MEASURE_FAIL) with a
#    diagnostic naming the limit, and other clients are served.
# Needs BRIDGE_CLIENT (tests/e2e/runtime/bridge_client) besides lib.sh's.
. "$(dirname "$0")/lib.sh"
e2e_need BRIDGE_CLIENT
C=$BRIDGE_CLIENT

# fastpath_records: how many FASTPATH_MISS (reason 9) records the log holds.
fastpath_records() {
	"$UIE" evidence export --socket "$SOCK" --nonce 0011223344556677 -o "$T/ae" \
		--cel "$T/cel.json" >/dev/null 2>&1 || fail "evidence export"
	python3 -c '
import json, sys
recs = [e["content"] for e in json.load(open(sys.argv[1])) if e.get("content_type") == "uie_log_record"]
print(sum(1 for r in recs if r["reason"] == 9))' "$T/cel.json"
}

note "forged reports and control requests from inside a tree"
start_runtime_monitor --client-quota 4096
run_uie -- "$C" "$SOCK" fastpath 1000
expect_out "connect=-23" "forger inside the tree"
expect_out "errno=13" "forger inside the tree (EACCES)"
run_uie -- "$C" "$SOCK" status
expect_out "connect=-23" "status from inside the tree"
run_uie -- "$C" "$SOCK" install /bin/true
expect_out "connect=-23" "install from inside the tree"
# Sockets of other types cannot connect to a SEQPACKET listener (EPROTOTYPE), in or out of a tree.
run_uie -- python3 -c '
import socket, sys
for ty in (socket.SOCK_STREAM, socket.SOCK_DGRAM):
    try:
        socket.socket(socket.AF_UNIX, ty).connect(sys.argv[1])
        print("CONNECTED", ty)
    except OSError as e:
        print("refused", e.errno)' "$SOCK"
[ "$(echo "$OUT" | grep -c '^refused 91$')" = 2 ] || { show; fail "stream or datagram socket reached the monitor"; }
# Nor can the tree take the interceptor's connection (pidfd_getfd: Landlock's ptrace scope).
run_uie -- python3 -c '
import ctypes, os
libc = ctypes.CDLL(None, use_errno=True)
pfd = os.pidfd_open(os.getppid())
got = [fd for fd in range(64) if libc.syscall(438, pfd, fd, 0) >= 0]
print("TOOK", got) if got else print("refused")'
[ "$OUT" = refused ] || { show; fail "the tree took a descriptor of the interceptor"; }
# A systemd boot runs the tree without a Landlock domain (--allow-mounts: every domain forbids
# mount). The tree may then mount, but still takes no descriptor of the interceptor and cannot
# open its memory: the interceptor is not dumpable and the tree has no CAP_SYS_PTRACE.
take='
import ctypes, os, sys
libc = ctypes.CDLL(None, use_errno=True)
pfd = os.pidfd_open(os.getppid())
got = [fd for fd in range(64) if libc.syscall(438, pfd, fd, 0) >= 0]
try:
    os.close(os.open("/proc/%d/mem" % os.getppid(), os.O_RDONLY))
    mem = "opened"
except OSError as e:
    mem = "refused"
print("TOOK" if got else "refused", mem)
# A private mount namespace (nothing propagates back), then a tmpfs in it.
if (libc.unshare(0x20000) == 0 and libc.mount(None, b"/", None, 0x44000, None) == 0 and
        libc.mount(b"none", sys.argv[1].encode(), b"tmpfs", 0, None) == 0):
    print("mounted")
else:
    print("mount errno", ctypes.get_errno())'
mkdir -p "$T/mnt"
# Natively the same root process takes its parent's descriptors (so the check can fail).
out=$(python3 -c "$take" "$T/mnt")
[ "$(echo "$out" | head -n 1)" = "TOOK opened" ] || fail "natively pidfd_getfd or /proc/PID/mem failed: $out"
run_uie --allow-mounts -- python3 -c "$take" "$T/mnt"
[ "$(echo "$OUT" | head -n 1)" = "refused refused" ] ||
	{ show; fail "--allow-mounts: the tree reached the interceptor's descriptors or memory"; }
echo "$OUT" | grep -qx mounted || { show; fail "--allow-mounts: the tree cannot mount"; }
[ "$(fastpath_records)" = 0 ] || fail "a report from inside the tree was logged"
# The same forger outside any tree reaches the monitor (so the check above can fail) ...
out=$("$C" "$SOCK" fastpath 1000)
expect_kv "forger outside" report_status 0 "$out"
[ "$(fastpath_records)" = 1000 ] || fail "reports from outside not logged"
# ... but no more than its quota per second (4096, and a burst of 4096): of 16 batches sent
# back to back, what the monitor logs is bounded by the time they took, whatever the
# machine's speed, and whatever goes past that bound is refused whole with UIE_E_QUOTA.
out=$("$C" "$SOCK" fastpath 65536)
refused=$(echo "$out" | sed -n 's/^refused_quota=//p')
ms=$(echo "$out" | sed -n 's/^elapsed_ms=//p')
logged=$(($(fastpath_records) - 1000))
allowed=$((4096 + 4096 * (ms / 1000 + 1)))
[ -n "$refused" ] && [ -n "$ms" ] || fail "over quota: no counts in: $out"
[ "$logged" -le "$allowed" ] || fail "quota did not hold: $logged logged in $ms ms"
[ "$logged" -eq $((65536 - refused)) ] || fail "over quota: $logged logged, $refused refused of 65536"
if [ "$allowed" -lt 65536 ]; then
	[ "$refused" -gt 0 ] || fail "over quota: nothing refused in $ms ms"
fi
[ "$refused" = 0 ] || grep -q "client quota exceeded" "$T/monitord.log" || fail "no quota diagnostic"
stop_monitor

note "connection flood"
start_runtime_monitor
holders=
for i in 1 2 3 4 5; do
	"$C" "$SOCK" hold 15 60 >"$T/hold$i" &
	holders="$holders $!"
done
"$C" "$SOCK" hold 20 60 >"$T/hold6" &
holders="$holders $!"
for i in 1 2 3 4 5 6; do
	for _ in $(seq 300); do grep -q kept= "$T/hold$i" && break; sleep 0.1; done
	grep -q "others_served=1" "$T/hold$i" || { cat "$T/hold$i" >&2; fail "holder $i: others not served"; }
done
for i in 1 2 3 4 5; do
	grep -q "kept=15" "$T/hold$i" || { cat "$T/hold$i" >&2; fail "holder $i lost connections"; }
done
# 16 a process: its first connection and 15 more; the other 5 are refused.
grep -q "kept=15" "$T/hold6" || { cat "$T/hold6" >&2; fail "per-process limit did not hold"; }
grep -q "max-clients-per-process 16" "$T/monitord.log" || fail "no per-process diagnostic"
out=$("$C" "$SOCK" status)
expect_kv "served with 96 connections held" status 0 "$out"
# shellcheck disable=SC2086
kill $holders 2>/dev/null
# shellcheck disable=SC2086
wait $holders 2>/dev/null
stop_monitor

note "total connection limit"
start_runtime_monitor --max-clients 8
"$C" "$SOCK" hold 12 2 >"$T/hold" || fail "holder"
grep -q "kept=7" "$T/hold" || { cat "$T/hold" >&2; fail "--max-clients 8 did not hold"; }
grep -q "max-clients 8 reached" "$T/monitord.log" || fail "no --max-clients diagnostic"
out=$("$C" "$SOCK" status)
expect_kv "served once the holder left" status 0 "$out"
stop_monitor

note "oversized object and hashing time"
start_runtime_monitor --max-object-size 65536 --max-hash-ms 1
head -c 100000 /dev/urandom >"$T/big"
out=$("$C" "$SOCK" measure mmap file "$T/big" 0 100000)
expect_kv "oversized object answered" status 0 "$out"
expect_kv "oversized object: MEASURE_FAIL" reason 7 "$out"
expect_kv "oversized object denied by policy" policy_decision 0 "$out"
grep -q "over --max-object-size 65536" "$T/monitord.log" || fail "no size diagnostic"
out=$("$C" "$SOCK" status)
expect_kv "served after the oversized object" status 0 "$out"
stop_monitor
# 256 MiB take longer than 20 ms to hash on any machine (over 100 ms at 2 GB/s).
start_runtime_monitor --max-hash-ms 20
truncate -s 256M "$T/slow"
out=$("$C" "$SOCK" measure mmap file "$T/slow" 0 268435456)
expect_kv "slow object: MEASURE_FAIL" reason 7 "$out"
grep -q "took over --max-hash-ms 20" "$T/monitord.log" || fail "no hashing time diagnostic"
out=$("$C" "$SOCK" status)
expect_kv "served after the slow object" status 0 "$out"
rm -f "$T/slow"
stop_monitor

# Records are numbered when they are logged, after measuring: a request served while the large
# object is being hashed gets the lower number.  Without workers (the control) it waits.  The
# small request is sent once the monitor has read a quarter of the large object (its rchar).  The
# large object is sized to take about 2 s to hash here, well within the clients' 10 s timeout.
note "a large object does not hold up other clients (measurement workers)"
truncate -s 64M "$T/huge"
start_runtime_monitor --max-hash-ms 0
t0=$(date +%s%N)
"$C" "$SOCK" measure mmap file "$T/huge" 0 67108864 >/dev/null
ms=$(( ($(date +%s%N) - t0) / 1000000 + 1 ))
stop_monitor
mib=$(( 64 * 2000 / ms ))
[ $mib -lt 16 ] && mib=16
[ $mib -gt 2048 ] && mib=2048
note "64 MiB hashed in $ms ms: the large object has $mib MiB"
truncate -s ${mib}M "$T/huge"
rchar() { awk '/^rchar:/ { print $2 }' "/proc/$MON_PID/io"; }
for w in 2 0; do
	start_runtime_monitor --max-hash-ms 0 --max-object-size 0 --measure-workers $w
	base=$(rchar)
	"$C" "$SOCK" measure mmap file "$T/huge" 0 $((mib << 20)) >"$T/huge.out" &
	hp=$!
	for _ in $(seq 3000); do [ $(($(rchar) - base)) -gt $((mib << 18)) ] && break; sleep 0.02; done
	small=$("$C" "$SOCK" measure execve main /bin/true)
	wait $hp
	# Record 0 is MONITOR_START; the small object's record is 1 when it did not wait, else 2.
	s_seq=$(kv_field seq "$small")
	b_seq=$(kv_field seq "$(cat "$T/huge.out")")
	note "workers $w: small object record $s_seq, large object record $b_seq"
	if [ $w != 0 ]; then
		[ "$s_seq" = 1 ] || fail "with $w workers the small object waited for the large one"
	else
		[ "$s_seq" = 2 ] || fail "control: without workers the small object did not wait"
	fi
	stop_monitor
done
rm -f "$T/huge"

# An export is written out in pieces between other requests: records logged meanwhile do not
# spoil it (it covers the records up to its quote, and verifies).
note "an export while the log grows"
start_runtime_monitor --client-quota 0
out=$("$C" "$SOCK" fastpath 200000)
expect_kv "200000 records" report_status 0 "$out"
"$UIE" evidence export --socket "$SOCK" --nonce 00112233 -o "$T/big.ae" --pubkey-out "$T/ak.pub" \
	>/dev/null 2>"$T/export.err" &
ep=$!
for _ in 1 2 3 4 5; do "$C" "$SOCK" fastpath 4096 >/dev/null; done
out=$("$C" "$SOCK" status)
expect_kv "served during the export" status 0 "$out"
wait $ep || { cat "$T/export.err" >&2; fail "export"; }
"$UIE" verify "$T/big.ae" --nonce 00112233 --ak-pub "$T/ak.pub" >"$T/big.out" 2>&1 ||
	{ cat "$T/big.out" >&2; fail "the export made while the log grew does not verify"; }
stop_monitor
echo PASS
