#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# The exec watch's quiet files (guest/fan.c): the interpreters of the one
# execve in flight get an ignore mask for FAN_OPEN_EXEC_PERM, so the kernel's
# opens of exactly those files raise no event.  The masks are the kernel's own
# state, read here from the fanotify group's fdinfo of the running `uie run`:
# - after a script run by shcopy (a copy of /bin/sh) and then `exec sleepy`,
#   exactly ld.so is quiet: not shcopy, an interpreter of the execve before
#   (a path swapped to it must still raise an event and be asked about;
#   races.sh runs the swap itself), and never a main program;
# - while another execve of the tree may still open files (here: one made by a
#   thread other than its process's first, which no later call of that thread
#   ends), no file is quiet;
# - a write open of a quiet file (its seal breaks) leaves none quiet before the
#   writer gets its descriptor.
# No native run: this checks our mechanism's state, not an attack.
. "$(dirname "$0")/lib.sh"
gen_key
start_runtime_monitor --trust-key "$T/pub.pem"
cp /usr/bin/sleep "$T/sleepy"
cp /bin/sh "$T/shcopy"
printf '#!%s/shcopy\n:\n' "$T" > "$T/script" && chmod 755 "$T/script"
script_entry "$T/script" > "$T/extra"
install_policy enforce /bin/sh /usr/bin/true "$T/sleepy" "$T/shcopy" /usr/bin/python3
LDSO=$(readlink -f /lib64/ld-linux-x86-64.so.2)
ino() { stat -c %i "$1"; }

# quiet_inodes PID: the inodes (decimal) with an ignore mask in PID's fanotify group
# (few processes: the TCG guest runs this too, and quiet files last 2 s when idle).
quiet_inodes() {
	# shellcheck disable=SC2012 # descriptor numbers only
	fan=$(ls -l /proc/"$1"/fd 2>/dev/null | awk '/anon_inode:\[fanotify\]/ { print $9; exit }')
	[ -n "$fan" ] || return 0
	awk '/^fanotify ino:/ {
		ino = ""; ign = ""
		for (i = 1; i <= NF; i++) {
			if ($i ~ /^ino:/) ino = substr($i, 5)
			if ($i ~ /^ignored_mask:/) ign = substr($i, 14)
		}
		if (ign != "" && ign != "0") print ino
	}' /proc/"$1"/fdinfo/"$fan" | while read -r hex; do printf '%d\n' "0x$hex"; done | sort -n
}
# wait_quiet PID INODE: up to 10 s for INODE to be quiet.
wait_quiet() {
	for _ in $(seq 200); do
		quiet_inodes "$1" | grep -qx "$2" && return 0
		kill -0 "$1" 2>/dev/null || return 1
		sleep 0.05
	done
	return 1
}

note "after the script and exec sleepy: ld.so is quiet, shcopy is not"
"$UIE" run --socket "$SOCK" -- /bin/sh -c "$T/script; exec $T/sleepy 30" >"$T/out" 2>"$T/err" &
uie=$!
for _ in $(seq 200); do pgrep -f "^$T/sleepy 30" >/dev/null && break; sleep 0.05; done
pgrep -f "^$T/sleepy 30" >/dev/null || { cat "$T/err" >&2; kill "$uie"; fail "sleepy 30 did not run"; }
got=$(quiet_inodes "$uie" | tr '\n' ' ')
note "quiet inodes: $got (ld.so: $(ino "$LDSO"); shcopy: $(ino "$T/shcopy"), sleepy: $(ino "$T/sleepy"))"
[ "$got" = "$(ino "$LDSO") " ] || { kill "$uie"; fail "quiet inodes $got, want exactly ld.so's"; }
pkill -f "^$T/sleepy 30" || fail "sleepy not found"
wait "$uie"

note "another execve in flight: nothing is quiet"
mkfifo "$T/go"
"$UIE" run --socket "$SOCK" -- /bin/sh -c "
	/usr/bin/python3 -c 'import os, sys, threading
t = threading.Thread(target=os.execv, args=(sys.argv[1], [sys.argv[1], \"4\"]))
t.start(); t.join()' $T/sleepy &
	read x < $T/go; exec $T/sleepy 30" >"$T/out" 2>"$T/err" &
uie=$!
for _ in $(seq 200); do pgrep -f "^$T/sleepy 4" >/dev/null && break; sleep 0.05; done
pgrep -f "^$T/sleepy 4" >/dev/null || { cat "$T/err" >&2; kill "$uie"; fail "the thread's execve did not run"; }
echo > "$T/go"
for _ in $(seq 200); do pgrep -f "^$T/sleepy 30" >/dev/null && break; sleep 0.05; done
pgrep -f "^$T/sleepy 30" >/dev/null || { cat "$T/err" >&2; kill "$uie"; fail "sleepy 30 did not run"; }
got=$(quiet_inodes "$uie" | tr '\n' ' ')
[ -z "$got" ] || { kill "$uie"; fail "quiet inodes with another execve in flight: $got"; }
pkill -f "^$T/sleepy" ; wait "$uie"

note "a write open of a quiet file: none is quiet once the writer has its descriptor"
# (after the script has run: the file of a running program cannot be opened for writing at all)
mkfifo "$T/fifo"
"$UIE" run --socket "$SOCK" -- /bin/sh -c "$T/script; read x < $T/fifo" >"$T/out" 2>"$T/err" &
uie=$!
wait_quiet "$uie" "$(ino "$T/shcopy")" || { cat "$T/err" >&2; kill "$uie"; fail "shcopy never became quiet"; }
# The open waits until `uie run` has released its seal (the lease break), so what
# the group holds right after it is what the seal's break left; an idle tree keeps
# its quiet files for 2 s, far longer than this takes.
python3 -c 'import sys; open(sys.argv[1], "ab").close()' "$T/shcopy" || fail "write open"
got=$(quiet_inodes "$uie" | tr '\n' ' ')
[ -z "$got" ] || { kill "$uie"; fail "quiet inodes after the seal broke: $got"; }
echo > "$T/fifo"
wait "$uie"
echo PASS
