#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Denials reach the system log (uie-monitord --syslog, monitor/denylog.c):
# a listener on a datagram socket stands in for journald or rsyslog (no
# systemd needed).  An unlisted program, an unlisted shared object and
# anonymous executable memory each give one line naming the rule, the
# digest (the one `uie ref scan` computes) and the object; allowed runs
# give none; a listener that appears after the monitor started still gets
# lines, and one that is gone costs nothing but the line.
. "$(dirname "$0")/lib.sh"
P=$PROGS
LOGSOCK=$T/dev-log
LOGFILE=$T/syslog.txt
LSN_PID=

# listen: receives datagrams on $LOGSOCK into $LOGFILE, one per line.
listen() {
	rm -f "$LOGSOCK" "$T/listening"
	python3 -c '
import os, socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.bind(sys.argv[1]); os.chmod(sys.argv[1], 0o666)
open(sys.argv[3], "w").close()
with open(sys.argv[2], "ab", buffering=0) as f:
    while True:
        f.write(s.recv(4096) + b"\n")' "$LOGSOCK" "$LOGFILE" "$T/listening" &
	LSN_PID=$!
	for _ in $(seq 100); do [ -e "$T/listening" ] && return 0; sleep 0.1; done
	fail "syslog listener did not start"
}
unlisten() { [ -z "$LSN_PID" ] || { kill "$LSN_PID"; wait "$LSN_PID" 2>/dev/null; LSN_PID=; }; }
trap 'unlisten; e2e_cleanup' EXIT

# wait_lines N: until $LOGFILE has N lines (bounded: generous under load).
wait_lines() {
	for _ in $(seq 100); do
		[ "$(wc -l < "$LOGFILE" 2>/dev/null || echo 0)" -ge "$1" ] && return 0
		sleep 0.1
	done
	cat "$LOGFILE" >&2
	fail "expected $1 line(s) in the system log"
}

gen_key
# The monitor starts before anything listens: lines sent then are dropped.
start_runtime_monitor --trust-key "$T/pub.pem" --syslog "$LOGSOCK"
install_policy enforce /bin/sh /usr/bin/true "$P/dlopen_n" "$P/jit" "$P/libuiedso1.so"
run_uie -- "$P/payload"
expect_rc 126 "unlisted program, nobody listening"

listen
run_uie -- /bin/sh -c '/usr/bin/true'
expect_rc 0 "allowed program"
run_uie -- "$P/dlopen_n" "$P/libuiedso1.so"
expect_rc 0 "allowed shared object"
sleep 0.3
[ ! -s "$LOGFILE" ] || { cat "$LOGFILE" >&2; fail "allowed runs were logged as denials"; }

run_uie -- "$P/payload"
expect_rc 126 "unlisted program"
wait_lines 1
"$UIE" ref scan "$P/payload" "$P/libuieevil.so" -o "$T/scan" 2>/dev/null || fail "ref scan"
d=$(awk '/payload/ { sub("digest=", "", $2); print $2 }' "$T/scan")
grep -q "uie-monitord\[[0-9]*\]: denied event=execve role=main rule=default digest=$d object=\"$P/payload\" pid=[0-9]* mode=enforce seq=[0-9]*$" "$LOGFILE" ||
	{ cat "$LOGFILE" "$T/scan" >&2; fail "execve denial line"; }
head -c 4 "$LOGFILE" | grep -q '^<84>' || fail "priority is not authpriv.warning"

run_uie -- "$P/dlopen_n" "$P/libuiedso1.so" "$P/libuieevil.so"
expect_rc 11 "unlisted shared object"
wait_lines 2
d=$(awk '/libuieevil/ { sub("digest=", "", $2); print $2 }' "$T/scan")
grep -q "denied event=mmap role=dso rule=default digest=$d object=\"$P/libuieevil.so\" " "$LOGFILE" ||
	{ cat "$LOGFILE" >&2; fail "mmap denial line"; }

run_uie -- "$P/jit" mprotect
wait_lines 3
# Anonymous memory has no file: the line names the program whose memory it is when the
# interceptor sends it (for JIT rules), else nothing.
grep -Eq "denied event=mprotect role=anon rule=anon-exec digest=(none object=\"\"|sha256:[0-9a-f]{64} object=\"$P/jit\") " "$LOGFILE" ||
	{ cat "$LOGFILE" >&2; fail "anonymous memory denial line"; }

unlisten
run_uie -- "$P/payload"
expect_rc 126 "unlisted program, listener gone"
"$UIE" status --socket "$SOCK" >/dev/null || fail "monitor stopped serving after a dropped line"
stop_monitor || fail "monitor exit status"
grep -q "stopping: .*(3 denials sent to $LOGSOCK, 2 dropped)" "$T/monitord.log" ||
	{ cat "$T/monitord.log" >&2; fail "sent/dropped counts"; }
echo "PASS"
