# SPDX-License-Identifier: Apache-2.0
# Daemons and answer checks shared by end-to-end scripts (sourced, not run).
# A script calls e2e_setup (or e2e_start) first: its temporary directory T and
# everything started here are removed or stopped on exit, even when a check fails.

# In sanitizer builds the supervised test programs carry ASan too, and
# LeakSanitizer's exit scan needs ptrace and a CLONE_FILES helper, both
# refused inside a `uie run` tree.  Appended, so it wins over a caller's
# detect_leaks=1 (the last occurrence of an option counts).
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"

# TRUST_FS: `--trust-fs KIND` for `uie policy compile` when the root file
# system is of a kind whose files the monitor refuses unless the policy trusts
# it (reason REMOTE_FS); empty on a local root.  The 6.1 test guest's root is
# the host's, shared read-only through virtiofs (docs/VM.md, "Sources of
# granted files"): the test policies that grant its programs trust virtiofs
# explicitly there, and runtime_fstrust shows the refusal without it.
case $(findmnt -n -o FSTYPE / 2>/dev/null) in
virtiofs) TRUST_FS="--trust-fs virtiofs" ;;
fuse | fuse.* | fuseblk) TRUST_FS="--trust-fs fuse" ;;
nfs | nfs4) TRUST_FS="--trust-fs nfs" ;;
*) TRUST_FS= ;;
esac

MON_PID=
SW_PID=
SW_PORT=

# fail MESSAGE: ends the test as failed, showing the end of the monitor's
# diagnostics when one ran; a script may define its own after sourcing this.
# note MESSAGE: a progress line.
fail() { echo "FAIL: $*" >&2; [ -f "${T:-/nonexistent}/monitord.log" ] && tail -20 "$T/monitord.log" >&2; exit 1; }
note() { echo "--- $*" >&2; }
# Every script that sources this one is in a directory of tests/e2e (some run under sh).
# shellcheck source=../bytes.sh
. "$(dirname "$0")/../../bytes.sh"

# e2e_need VAR...: fails unless each variable is set (meson passes a test's
# inputs in its environment).
e2e_need() {
	local v
	for v in "$@"; do
		eval "[ -n \"\${$v:-}\" ]" || fail "$v not set"
	done
}

# e2e_start NAME VAR...: e2e_need VAR..., then e2e_setup NAME with T open
# (mode 755) to the programs under test.
e2e_start() {
	local name=$1
	shift
	e2e_need "$@"
	e2e_setup "$name"
	chmod 755 "$T"
}

# e2e_keep_going: from here on fail prints its message, counts it and lets the
# test go on; e2e_finish NAME then ends the test, failed (with the monitor's
# diagnostics) when any was counted.
e2e_keep_going() {
	FAILS=0
	fail() { echo "FAIL: $*"; FAILS=$((FAILS + 1)); }
}
e2e_finish() {
	if [ "$FAILS" != 0 ]; then
		cat "$T/monitord.log"
		exit 1
	fi
	echo "$1: all checks passed"
}

# e2e_setup NAME: skips the test (exit 77) unless root; T is a fresh
# directory /tmp/NAME.XXXXXX; on exit the monitor and swtpm are stopped and
# T is removed.
e2e_setup() {
	[ "$(id -u)" = 0 ] || { echo "SKIP: needs root"; exit 77; }
	T=$(mktemp -d "/tmp/$1.XXXXXX") || { echo "FAIL: no temporary directory"; exit 1; }
	trap e2e_cleanup EXIT
}

e2e_cleanup() {
	stop_monitor
	stop_swtpm
	for m in "$T"/*; do mountpoint -q "$m" && umount "$m"; done
	rm -rf "$T"
}

# start_monitor MONITORD SOCKET VTPM [more uie-monitord options]: a monitor in
# the foreground, diagnostics in $T/monitord.log, state (write-ahead log,
# packages) in $T/state, waited for until it writes READY on its --ready-fd.  Returns 1 (after showing the log) when it does not.
start_monitor() {
	local monitord=$1 sock=$2 vtpm=$3
	shift 3
	rm -f "$T/ready"
	"$monitord" --socket "$sock" --vtpm "$vtpm" --foreground --ready-fd 3 \
		--log-file "$T/monitord.log" --state-dir "$T/state" "$@" 3>"$T/ready" &
	MON_PID=$!
	for _ in $(seq 100); do
		grep -q READY "$T/ready" 2>/dev/null && return 0
		kill -0 "$MON_PID" 2>/dev/null || break
		sleep 0.1
	done
	cat "$T/monitord.log" >&2 2>/dev/null
	return 1
}

# stop_monitor: SIGTERM and wait; returns the monitor's exit status (0 when none ran).
stop_monitor() {
	local rc=0

	[ -n "$MON_PID" ] || return 0
	kill -TERM "$MON_PID" 2>/dev/null
	wait "$MON_PID" 2>/dev/null
	rc=$?
	MON_PID=
	return $rc
}

port_busy() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

# start_swtpm: a TPM 2.0 simulator with state in $T/tpm, serving on
# 127.0.0.1:$SW_PORT (control on SW_PORT+1), a free even port pair picked at
# random.  A port can be taken between the check and swtpm's bind (by any
# process's outgoing connection), so a swtpm that exits at once is started
# again on other ports.  Returns 1 when none accepts connections in time.
start_swtpm() {
	local port attempt
	mkdir -p "$T/tpm"
	for attempt in 1 2 3 4 5; do
		for _ in $(seq 50); do
			port=$((20000 + 2 * (RANDOM % 20000)))
			port_busy $port || port_busy $((port + 1)) || break
		done
		swtpm socket --tpmstate dir="$T/tpm" --tpm2 --flags not-need-init,startup-clear \
			--server type=tcp,port=$port,bindaddr=127.0.0.1 \
			--ctrl type=tcp,port=$((port + 1)),bindaddr=127.0.0.1 &
		SW_PID=$!
		SW_PORT=$port
		for _ in $(seq 100); do
			port_busy $port && return 0
			kill -0 "$SW_PID" 2>/dev/null || break
			sleep 0.05
		done
		stop_swtpm
		echo "swtpm did not come up on port $port (attempt $attempt)" >&2
	done
	return 1
}

stop_swtpm() {
	[ -n "$SW_PID" ] && kill "$SW_PID" 2>/dev/null && wait "$SW_PID" 2>/dev/null
	SW_PID=
	return 0
}

# Answers of tests/e2e/runtime/bridge_client are KEY=VALUE lines.
# kv_field KEY OUTPUT: the value of KEY.
kv_field() { printf '%s\n' "$2" | sed -n "s/^$1=//p"; }
# expect_kv DESCRIPTION KEY WANT OUTPUT: calls the script's fail unless KEY=WANT.
expect_kv() {
	local got
	got=$(kv_field "$2" "$4")
	[ "$got" = "$3" ] || fail "$1: $2=$got, want $3"
}

# run_uie [uie run options] -- PROGRAM ARGS: runs PROGRAM under `uie run` with
# the monitor on $SOCK; sets OUT, ERR, RC.  show prints them; expect_rc RC WHAT,
# expect_out TEXT WHAT and expect_err TEXT WHAT fail the test (showing them) unless
# the exit status is RC, or stdout or stderr holds TEXT.
run_uie() {
	"$UIE" run --socket "$SOCK" "$@" >"$T/out" 2>"$T/err"
	RC=$?
	OUT=$(cat "$T/out")
	ERR=$(cat "$T/err")
}

show() { echo "rc=$RC"; echo "stdout: $OUT"; echo "stderr: $ERR"; } >&2

expect_rc() { [ "$RC" = "$1" ] || { show; fail "$2: exit $RC, expected $1"; }; }
expect_out() { echo "$OUT" | grep -q -- "$1" || { show; fail "$2: stdout lacks '$1'"; }; }
expect_err() { echo "$ERR" | grep -q -- "$1" || { show; fail "$2: stderr lacks '$1'"; }; }

# closure PROGRAM...: the files the programs map: themselves, ld.so, their libraries.
closure() {
	for p in "$@"; do
		readlink -f "$p"
		ldd "$p" 2>/dev/null | awk '/=> \// { print $3 } /^\t\/.*ld-linux/ { print $1 }' |
			xargs -r readlink -f
	done | sort -u
}
