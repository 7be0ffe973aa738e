#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Fail closed.  The monitor is in bootstrap mode, where everything would be
# allowed, so every refusal below comes from the failure itself:
#  - no monitor at all: the program is not even started;
#  - the monitor killed while the tree runs: grants fail with EACCES and say
#    "monitor unreachable";
#  - the interceptor killed while the tree runs: the kernel fails every
#    trapped call with ENOSYS, so the tree gains no executable memory.
. "$(dirname "$0")/lib.sh"
P=$PROGS
LIB=$P/libuiegood.so

run_uie -- /usr/bin/true
expect_rc 126 "no monitor"
expect_err "denied execve of /usr/bin/true.*monitor unreachable" "no monitor"

# wait_file FILE: until FILE is not empty, up to 30 s.
wait_file() { for _ in $(seq 600); do [ -s "$1" ] && return 0; sleep 0.05; done; return 1; }

# start_late [--no-fanotify]: a fresh monitor, and under `uie run` the program
# that maps and execs only once $T/go exists (pid in UPID), once it is waiting
# for it (a fixed pause was too short on a loaded machine: the monitor was then
# killed before the program had started, and it never wrote its result).
start_late() {
	start_runtime_monitor
	rm -f "$T/go" "$T/result" "$T/result.ready"
	"$UIE" run --socket "$SOCK" $1 -- "$P/late" "$T/go" "$T/result" "$LIB" /usr/bin/true \
		>"$T/out" 2>"$T/err" &
	UPID=$!
	wait_file "$T/result.ready" || { cat "$T/err" >&2; fail "the program did not start"; }
}

for fan in "" --no-fanotify; do
	note "monitor killed (${fan:-fanotify})"
	start_late "$fan"
	kill -KILL "$MON_PID"; wait "$MON_PID" 2>/dev/null; MON_PID=
	touch "$T/go"
	wait "$UPID"
	wait_file "$T/result" || fail "no result (monitor killed)"
	res=$(cat "$T/result")
	case "$res" in
	"mmap=EACCES exec=EACCES") ;;
	*) cat "$T/err" >&2; fail "monitor killed: got '$res'" ;;
	esac
	grep -q "denied mmap of .*monitor unreachable" "$T/err" || { cat "$T/err" >&2; fail "no diagnostic"; }
	note "$res"

	note "interceptor killed (${fan:-fanotify})"
	start_late "$fan"
	kill -KILL "$UPID"; wait "$UPID" 2>/dev/null
	touch "$T/go"
	wait_file "$T/result" || fail "no result (interceptor killed)"
	sleep 0.2
	res=$(cat "$T/result")
	[ "$res" = "mmap=ENOSYS exec=ENOSYS" ] || fail "interceptor killed: got '$res'"
	note "$res"
	stop_monitor
done
echo PASS
