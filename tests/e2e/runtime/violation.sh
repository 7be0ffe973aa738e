#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# Writing the file of a live approved executable mapping (issue 11, point 6):
# the interceptor sees the write (fanotify FAN_MODIFY), the monitor logs a
# WRITE_VIOLATION record, and `uie verify` refuses the evidence (exit 22).
# A write to an approved file nobody maps any more is no violation.  A file
# open for writing at the time of the grant (a descriptor or a shared
# writable mapping, which raise no event later) is not mapped at all.
. "$(dirname "$0")/lib.sh"
P=$PROGS

start_runtime_monitor
cp "$P/libuiegood.so" "$T/lib.so"

note "the mapping is granted; the evidence verifies"
rm -f "$T/ready" "$T/go"
"$UIE" run --socket "$SOCK" -- "$P/mapwait" "$T/lib.so" "$T/ready" "$T/go" >"$T/out" 2>"$T/err" &
upid=$!
wait_file "$T/ready" || { cat "$T/err" >&2; fail "the mapping was not granted"; }
rc=$(verify_rc before)
[ "$rc" = 0 ] || { cat "$T/before.out" >&2; fail "evidence before the write: exit $rc"; }

note "the mapped file is written"
printf 'rewritten' | dd of="$T/lib.so" bs=1 seek=64 conv=notrunc status=none || fail "write"
for _ in $(seq 600); do grep -q "write violation" "$T/monitord.log" && break; sleep 0.05; done
grep -q "write violation: inode $(stat -c %i "$T/lib.so")" "$T/monitord.log" ||
	{ cat "$T/monitord.log" "$T/err" >&2; fail "no violation logged"; }
touch "$T/go"
wait $upid || { cat "$T/err" >&2; fail "mapwait failed"; }
grep -q "uie: violation: $T/lib.so, mapped executable by pid" "$T/err" ||
	{ cat "$T/err" >&2; fail "the interceptor did not say so"; }
rc=$(verify_rc after)
[ "$rc" = 22 ] || { cat "$T/after.out" >&2; fail "evidence after the write: exit $rc, want 22"; }
grep -q "approved executable mapping was written" "$T/after.out" ||
	{ cat "$T/after.out" >&2; fail "verify does not name the violation"; }
stop_monitor

note "an approved file no longer mapped is written: no violation"
: >"$T/monitord.log"
start_runtime_monitor
cp "$P/libuiegood.so" "$T/lib2.so"
rm -f "$T/ready" "$T/go"
"$UIE" run --socket "$SOCK" -- sh -c "'$P/mapwait' '$T/lib2.so' '$T/ready' '$T/go'; \
	while [ ! -e '$T/go2' ]; do sleep 0.05; done" >"$T/out" 2>"$T/err" &
upid=$!
wait_file "$T/ready" || { cat "$T/err" >&2; fail "the mapping was not granted (2)"; }
touch "$T/go"
# mapwait has exited (its mapping is gone) once sh polls for go2; give it a moment.
for _ in $(seq 100); do pgrep -f "mapwait $T/lib2.so" >/dev/null || break; sleep 0.05; done
printf 'rewritten' | dd of="$T/lib2.so" bs=1 seek=64 conv=notrunc status=none || fail "write (2)"
sleep 0.5
touch "$T/go2"
wait $upid
grep -q "write violation" "$T/monitord.log" && { cat "$T/monitord.log" >&2; fail "violation without a mapping"; }
rc=$(verify_rc unmapped)
[ "$rc" = 0 ] || { cat "$T/unmapped.out" >&2; fail "evidence without a violation: exit $rc"; }

note "a file open for writing is not mapped executable"
cp "$P/libuiegood.so" "$T/lib3.so"
for how in descriptor mapping; do
	rm -f "$T/held"
	python3 -c '
import mmap, os, sys, time
fd = os.open(sys.argv[1], os.O_RDWR)
if sys.argv[2] == "mapping":
    m = mmap.mmap(fd, 4096, mmap.MAP_SHARED, mmap.PROT_READ | mmap.PROT_WRITE)
    os.close(fd)  # only the shared writable mapping keeps the file open for writing
open(sys.argv[3], "w").close()
time.sleep(30)' "$T/lib3.so" $how "$T/held" &
	wp=$!
	wait_file "$T/held" || fail "writer ($how) did not start"
	rm -f "$T/ready" "$T/go"
	touch "$T/go"
	run_uie -- "$P/mapwait" "$T/lib3.so" "$T/ready" "$T/go"
	kill $wp; wait $wp 2>/dev/null
	expect_rc 1 "mapped while open for writing ($how)"
	expect_err "denied mmap of $T/lib3.so.*open for writing" "open writer ($how)"
done
# The writer gone, the same file is mapped (so the refusal above was the writer's doing).
rm -f "$T/ready" "$T/go"
touch "$T/go"
run_uie -- "$P/mapwait" "$T/lib3.so" "$T/ready" "$T/go"
expect_rc 0 "mapped once the writer is gone"
echo PASS
