#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Check-then-use races in ENFORCE: a descriptor swapped by another thread
# during mmap, a mapping swapped during mprotect, a path swapped during
# execve, an exec open held back while the execve's next file is swapped.
# GOOD is allowed, EVIL is not; EVIL must never become executable, while
# GOOD keeps working.
. "$(dirname "$0")/lib.sh"
gen_key
start_runtime_monitor --trust-key "$T/pub.pem"
P=$PROGS
# The scripts of execstall.c: s names its interpreter by a relative name.
mkdir "$T/held"
printf '#!ldswap\n' >"$T/held/s"
printf '#!/usr/bin/true\n' >"$T/held/t"
script_entry "$T/held/s" >>"$T/extra"
script_entry "$T/held/t" >>"$T/extra"
install_policy enforce "$P/fdswap" "$P/mprotect_swap" "$P/pathswap" "$P/execstall" "$P/libuiegood.so" \
	"$P/execfleet" "$P/spin_static" "$P/execmapping" /usr/bin/true
SECS=${UIE_RACE_SECONDS:-3}
for how in thread vfork vfork-swapper vfork-parent; do
	native "mapping swap during mprotect ($how)" "$P/mprotect_swap" "$P/libuiegood.so" "$P/libuieevil.so" 10 $how
done
"$P/execmapping" "$P/libuiegood.so" /usr/bin/true 20 >"$T/native.out" 2>&1 ||
	fail "execmapping natively: $(cat "$T/native.out")"

for fan in "" --no-fanotify; do
	note "fd swap during mmap (${fan:-fanotify})"
	run_uie $fan -- "$P/fdswap" "$P/libuiegood.so" "$P/libuieevil.so" "$SECS"
	expect_rc 0 "fd swap"
	expect_out "REFUSED EVIL never mapped" "fd swap"
	note "$OUT"

	# Not an attack: a grant's freeze must not wait for an execve of its process (which may
	# wait for us: PTRACE_SEIZE takes the mutex the execve holds), nor end what it runs.
	note "execve beside a thread that maps (${fan:-fanotify})"
	run_uie $fan -- "$P/execmapping" "$P/libuiegood.so" /usr/bin/true 20
	expect_rc 0 "execve beside a mapping thread"
	expect_out "20 execs beside a mapping thread ended" "execve beside a mapping thread"

	note "mapping swap during mprotect (${fan:-fanotify})"
	run_uie $fan -- "$P/mprotect_swap" "$P/libuiegood.so" "$P/libuieevil.so" "$SECS"
	expect_rc 0 "mapping swap"
	expect_out "REFUSED EVIL never made executable" "mapping swap"
	note "$OUT"

	# The caller a vfork child (one thread, its own process) in the address space of a
	# process whose thread swaps the mapping.
	note "mapping swap during mprotect of a vfork child (${fan:-fanotify})"
	run_uie $fan -- "$P/mprotect_swap" "$P/libuiegood.so" "$P/libuieevil.so" "$SECS" vfork
	expect_rc 0 "mapping swap beside a vfork child"
	expect_out "REFUSED mprotect(PROT_EXEC) of GOOD in a vfork child" "mapping swap beside a vfork child"
	expect_err "runs in the address space of its parent .* (a vfork child)" "mapping swap beside a vfork child"
	note "$OUT"
	# A vfork child whose parent is ours: it would not know its sharer by its parent.
	note "mapping swap beside a vfork child of our parent (${fan:-fanotify})"
	run_uie $fan -- "$P/mprotect_swap" "$P/libuiegood.so" "$P/libuieevil.so" "$SECS" vfork-parent
	expect_rc 0 "mapping swap beside a CLONE_PARENT vfork child"
	expect_out "REFUSED clone(CLONE_VM | CLONE_VFORK | CLONE_PARENT): EPERM" \
		"mapping swap beside a CLONE_PARENT vfork child"
	# The other way round: a thread of the vfork parent calls, the child swaps.  The
	# parent's thread in vfork cannot stop until its child is done, so no grant happens.
	note "mapping swap by a vfork child during mprotect of its parent (${fan:-fanotify})"
	run_uie $fan -- "$P/mprotect_swap" "$P/libuiegood.so" "$P/libuieevil.so" "$SECS" vfork-swapper
	expect_rc 0 "mapping swap by a vfork child"
	expect_out "REFUSED mprotect(PROT_EXEC) beside a vfork child" "mapping swap by a vfork child"
	expect_err "cannot stop its other threads" "mapping swap by a vfork child"
	note "$OUT"
done

# The authoritative exec check is fanotify's, on the file the kernel opened.
mkdir "$T/swap"
note "path swap during execve (fanotify)"
run_uie -- "$P/pathswap" "$T/swap" /usr/bin/true "$P/payload" "$SECS"
expect_rc 0 "path swap"
expect_out "REFUSED EVIL never executed" "path swap"
note "$OUT"

# The same swap to ld.so, which the policy allows only as an interpreter: the
# loader run as the program (its --version banner) is a role the policy refuses,
# though ld.so is one of the files exec.c allowed for that execve (as /usr/bin/true's
# interpreter).  The first exec open must be the program exec.c allowed.
LDSO=$(readlink -f /lib64/ld-linux-x86-64.so.2)
mkdir "$T/swap2"
"$P/pathswap" "$T/swap2" /usr/bin/true "$LDSO" "$SECS" --version >"$T/native.out" 2>&1
grep -q "^ld.so .*version" "$T/native.out" ||
	fail "path swap to ld.so natively: the loader never ran as the program: $(tail -3 "$T/native.out")"
note "path swap to ld.so as the program (fanotify)"
run_uie -- "$P/pathswap" "$T/swap2" /usr/bin/true "$LDSO" "$SECS" --version
echo "$OUT" | grep -q "^ld.so .*version" && { show; fail "ld.so ran as the program through a swapped path"; }
expect_out "GOOD ran" "path swap to ld.so"
note "$(echo "$OUT" | tail -1)"

# The exec watch knows an execve by the pending entry exec.c made for it.  A
# root of the tree can hold the kernel's exec open with a fanotify group of its
# own (served before ours) for as long as it likes, and start other execves
# meanwhile; when the hold ends, the interpreter's name may point elsewhere.
# The entry must outlive any hold (HOLD: longer than the 5 s after which an
# entry used to end) and any crowd (70: more than the 64 entries kept), else
# the held execve's opens pass as another process's.
HOLD=${UIE_HOLD_SECONDS:-6}
native "held exec open" "$P/execstall" "$T/held" /usr/bin/true "$P/payload" 0
note "exec open held ${HOLD} s, its interpreter swapped meanwhile"
run_uie -- "$P/execstall" "$T/held" /usr/bin/true "$P/payload" "$HOLD"
expect_rc 0 "held exec open"
expect_out "REFUSED EVIL as the interpreter" "held exec open"
note "$OUT"
note "exec open held among 70 others, its interpreter swapped meanwhile"
run_uie -- "$P/execstall" "$T/held" /usr/bin/true "$P/payload" 0 70
expect_rc 0 "held exec open among others"
expect_out "REFUSED EVIL as the interpreter" "held exec open among others"
# The entries of held execves are not given up: the execves beyond them are refused.
expect_err "the exec watch cannot follow it" "held exec open among others"
note "$OUT"
# Without the exec watch too: the entries keep the freezer from seizing a thread in an
# execve (which would wait for the execve, held by another group, while the tree waits
# for us), so an execve without one does not run.  Nothing is swapped here: without the
# watch a swap after the check by path goes through (docs/THREAT-MODEL.md).
note "execves held among 70 others, without the exec watch"
run_uie --no-fanotify -- "$P/execstall" "$T/held" /usr/bin/true /usr/bin/true 0 70
expect_rc 0 "held execves without the exec watch"
expect_err "the freezer cannot follow it" "held execves without the exec watch"
echo "$OUT" | grep -q "crowd of 70: .* [1-9][0-9]* failed" ||
	fail "held execves without the exec watch: none of the crowd was refused: $OUT"
note "$OUT"
# But an entry whose execve is over goes when its slot is needed, also while its
# thread computes (on a CPU or waiting for one, which /proc does not tell from a
# call): 64 such execves, then one more.
"$P/execfleet" 64 "$P/spin_static" /usr/bin/true >"$T/native.out" 2>&1 ||
	fail "execfleet natively: $(cat "$T/native.out")"
note "64 execves over, their programs computing, then one more"
run_uie -- "$P/execfleet" 64 "$P/spin_static" /usr/bin/true
expect_rc 0 "execfleet"
expect_out "/usr/bin/true ran" "execfleet"
note "$OUT (natively: $(cat "$T/native.out"))"
echo PASS
