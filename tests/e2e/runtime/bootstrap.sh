#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Bootstrap (no policy): everything runs and every grant reaches the monitor.
# Real programs (a shell pipeline, coreutils, dlopen of 16 objects, with and
# without a second thread, which may be spawning processes), exit statuses
# passed through, -vv shows each grant.
. "$(dirname "$0")/lib.sh"
start_runtime_monitor --timing

for fan in "" --no-fanotify; do
	run_uie $fan -- /bin/sh -c 'ls / >/dev/null && echo hello | cat; exit 7'
	expect_rc 7 "shell exit status ($fan)"
	expect_out hello "shell pipeline ($fan)"

	libs=$(for i in $(seq 16); do printf '%s ' "$PROGS/libuiedso$i.so"; done)
	# shellcheck disable=SC2086
	run_uie $fan -vv -- "$PROGS/dlopen_n" $libs
	expect_rc 0 "dlopen of 16 objects ($fan)"
	expect_out "loaded 16 (sum 136)" "dlopen of 16 objects ($fan)"
	[ "$(echo "$ERR" | grep -c 'allowed mmap of .*libuiedso')" -ge 16 ] ||
		{ show; fail "not every dlopen reached the monitor ($fan)"; }
	expect_err "allowed execve of .*dlopen_n" "main executable asked about ($fan)"
	expect_err "allowed execve of .*ld-linux" "interpreter asked about ($fan)"

	# shellcheck disable=SC2086
	run_uie $fan -- "$PROGS/dlopen_n" -t $libs
	expect_rc 0 "threaded dlopen ($fan)"
	# A second thread spawning processes (it waits in vfork for each child's
	# execve) while objects are loaded: its stop needs that execve answered.
	start=$(date +%s)
	# shellcheck disable=SC2086
	run_uie $fan -- "$PROGS/dlopen_n" -s $libs
	expect_rc 0 "dlopen while another thread spawns ($fan)"
	[ $(( $(date +%s) - start )) -lt 20 ] || fail "threads not stopped promptly ($fan)"

	# Bootstrap measures only: anonymous code runs (and is logged).
	run_uie $fan -vv -- "$PROGS/jit" mprotect
	expect_rc 10 "bootstrap JIT ($fan)"
	expect_err "allowed mprotect of anonymous memory" "JIT grant logged ($fan)"
done

# The program gets SIGPIPE as `uie run` was given it (uie ignores it for
# itself): a pipeline's writer dies of it, as natively.
for sig in default ignore; do
	native=$(env --$sig-signal=PIPE grep '^SigIgn:' /proc/self/status)
	under=$(env --$sig-signal=PIPE "$UIE" run --socket "$SOCK" -- /bin/grep '^SigIgn:' /proc/self/status)
	[ "$under" = "$native" ] || fail "SIGPIPE $sig: the program's ignored signals are '$under', natively '$native'"
done

run_uie -- /bin/sh -c 'kill -TERM $$'
expect_rc 143 "exit status of a killed program"
run_uie -- /nonexistent/program
expect_rc 127 "missing program"
expect_err "^uie: cannot execute /nonexistent/program: No such file or directory$" "missing program"

# The program is found and started as execvp would (uie's child does the
# search itself): a name without a slash along PATH, past a directory where
# it is not executable; a file without #! or ELF header run by /bin/sh; a
# file that is not executable anywhere refused with EACCES.
mkdir "$T/bin1" "$T/bin2"
printf 'echo plain-script "$@"\n' >"$T/bin1/uie-plain"
cp "$T/bin1/uie-plain" "$T/bin2/uie-plain"
chmod 644 "$T/bin1/uie-plain"
chmod 755 "$T/bin2/uie-plain"
PATH="$T/bin1:$T/bin2:$PATH" run_uie -- uie-plain a b
expect_rc 0 "PATH search past a file that is not executable"
expect_out "^plain-script a b$" "a file without #! runs under /bin/sh"
PATH="$T/bin1:$PATH" run_uie -- uie-plain
expect_rc 126 "a name found on PATH only as a file that is not executable"
expect_err "^uie: cannot execute uie-plain: Permission denied$" "EACCES on PATH"
PATH="$T/bin1:$PATH" run_uie -- uie-no-such-program
expect_rc 127 "a name found nowhere on PATH"
run_uie -- "$T/bin1"
expect_rc 126 "a directory"
# --timing: where MEASURE requests spent their time, said when the monitor stops
stop_monitor || fail "monitor exit status $?"
grep -q "timing: measure requests n=[1-9][0-9]* hashed-by-workers=[0-9]* (medians, us): measure=[0-9.]* \
decide=[0-9.]* log=[0-9.]* extend=[0-9.]* total=[0-9.]*$" "$T/monitord.log" ||
	fail "no timing line from uie-monitord --timing: $(tail -2 "$T/monitord.log")"
echo PASS
