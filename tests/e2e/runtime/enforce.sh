#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# ENFORCE: allowed objects run; unlisted, modified and fileless ones are
# refused with EACCES; every other way of gaining executable memory listed
# in docs/THREAT-MODEL.md is tried and fails.  Run with and without the
# fanotify exec watch.  MEASURE with the same policy: all run, nothing blocked.
. "$(dirname "$0")/lib.sh"
gen_key
start_runtime_monitor --trust-key "$T/pub.pem"
P=$PROGS
cp "$P/libuiegood.so" "$T/modified.so"
# Flip one byte of code in the copy: same name and size, different digest.
off=$(od -An -tu8 -j40 -N8 "$T/modified.so" >/dev/null; python3 -c "
import struct,sys
d=open('$T/modified.so','rb').read()
phoff,=struct.unpack_from('<Q',d,32); n,=struct.unpack_from('<H',d,56)
for i in range(n):
    t,f,o=struct.unpack_from('<IIQ',d,phoff+56*i)
    fs,=struct.unpack_from('<Q',d,phoff+56*i+32)
    if t==1 and f&1: print(o+fs//2); break")
printf '\314' | dd of="$T/modified.so" bs=1 seek="$off" conv=notrunc 2>/dev/null
mkdir "$T/late" && printf '#!%s/late/payload\n' "$T" > "$T/script" && chmod 755 "$T/script"
script_entry "$T/script" > "$T/extra"
# An allowed script whose interpreter is a memfd (memfd_exec interp): fileless code run as an interpreter.
printf '#!/proc/self/fd/9\n' > "$T/memfd-script" && chmod 755 "$T/memfd-script"
script_entry "$T/memfd-script" >> "$T/extra"
"$P/memfd_exec" interp "$P/payload" "$T/memfd-script" > "$T/native.out" 2>&1
[ $? = 10 ] && grep -q '^GAINED payload ran' "$T/native.out" ||
	fail "memfd as a #! interpreter: the attack does not work natively: $(cat "$T/native.out")"
# A userfaultfd fills a page of a granted mapping with the payload: from the system call, and
# from /dev/userfaultfd (Linux 6.1).  Neither applies where the kernel has no userfaultfd
# (CONFIG_USERFAULTFD), no device, or refuses a step natively.
UFFD_NATIVE=
for how in syscall dev; do
	"$P/uffd_fill" $how "$P/libuiegood.so" >"$T/native.out" 2>&1
	case $?:$(head -c 40 "$T/native.out") in
	10:*) UFFD_NATIVE="$UFFD_NATIVE $how" ;;
	2:cannot\ apply* | 0:REFUSED\ *)
		note "userfaultfd ($how) does not apply here: $(cat "$T/native.out")" ;;
	*) fail "userfaultfd ($how): the attack does not work natively: $(cat "$T/native.out")" ;;
	esac
done
install_policy enforce /bin/sh /usr/bin/ls /usr/bin/cat /usr/bin/true "$P/dlopen_n" "$P/jit" \
	"$P/memfd_exec" "$P/shm_exec" "$P/pers" "$P/remap" "$P/abi" "$P/procmem" "$P/vmwritev" "$P/uffd_fill" \
	"$P/ptrace_poke" "$P/fdswap" "$P/mprotect_swap" "$P/pathswap" "$P/libuiegood.so" \
	"$P/libuiedso1.so" "$P/libuiedso2.so"
"$UIE" status --socket "$SOCK" | grep -q 'mode: ENFORCE' || fail "policy not in force"

refused() { # refused WHAT uie-run-args...
	what=$1; shift
	run_uie "$@"
	expect_rc 0 "$what"
	expect_out REFUSED "$what"
}

# Foreign system-call ABIs depend on how the kernel was built and booted
# (ia32 emulation can be off at build or with ia32_emulation=0; x32 is
# usually not built), so each is first tried without the filter.
# i386 (int 0x80): with an ia32 entry the call runs natively (GAINED) and the
# filter must kill the caller (SIGSYS, 159); without one the kernel itself
# ends the caller with SIGSEGV (139) before any filter sees the call, and
# there is nothing for the filter to do.
# (handle_segv=0: in sanitizer builds ASan would turn the SIGSEGV into its own exit.)
ASAN_OPTIONS="$ASAN_OPTIONS:handle_segv=0" "$P/abi" i386 >/dev/null 2>&1
I386_NATIVE=$?
case $I386_NATIVE in
10) note "i386 ABI: the kernel has an ia32 entry (native int 0x80 mprotect succeeds)" ;;
139) note "i386 ABI: no ia32 entry on this kernel (native int 0x80 ends in SIGSEGV); the filter check does not apply" ;;
*) fail "i386 ABI probe: native run exited $I386_NATIVE (want 10 with an ia32 entry, 139 without)" ;;
esac
# x32: with x32 built in the call runs natively; without, the kernel answers
# ENOSYS.  The filter answers EACCES before the kernel looks at the number,
# so EACCES under the filter shows the filter's refusal on either kernel.
"$P/abi" x32 >"$T/x32.out" 2>&1
X32_NATIVE=$?
case $X32_NATIVE in
10) note "x32 ABI: the kernel runs x32 system calls (native x32 mprotect succeeds)" ;;
0) grep -q 'REFUSED x32 mprotect: ENOSYS' "$T/x32.out" ||
	fail "x32 ABI probe: native refusal is not ENOSYS: $(cat "$T/x32.out")"
   note "x32 ABI: the kernel has no x32 entry (native ENOSYS); the filter's EACCES is still checked" ;;
*) fail "x32 ABI probe: native run exited $X32_NATIVE: $(cat "$T/x32.out")" ;;
esac

for fan in "" --no-fanotify; do
	note "exec watch: ${fan:-fanotify}"
	run_uie $fan -- /bin/sh -c 'ls / >/dev/null && echo hello | cat'
	expect_rc 0 "allowed shell pipeline"
	expect_out hello "allowed shell pipeline"
	run_uie $fan -- "$P/dlopen_n" "$P/libuiedso1.so" "$P/libuiedso2.so"
	expect_rc 0 "allowed dlopen"
	run_uie $fan -- "$P/dlopen_n" -t "$P/libuiedso1.so" "$P/libuiegood.so"
	expect_rc 0 "allowed dlopen with a second thread running"

	run_uie $fan -- "$P/payload"
	expect_rc 126 "unlisted program"
	expect_err "denied execve of .*payload.*refused by the monitor" "unlisted program"
	run_uie $fan -- /bin/sh -c "$P/payload; echo status=\$?"
	expect_out "status=126" "unlisted program started by a shell"
	expect_err "Permission denied" "unlisted program started by a shell (EACCES)"
	run_uie $fan -- "$P/dlopen_n" "$P/libuiedso1.so" "$P/libuieevil.so"
	expect_rc 11 "unlisted shared object"
	expect_err "denied mmap of .*libuieevil.so.*refused by the monitor" "unlisted shared object"
	run_uie $fan -- "$P/dlopen_n" "$T/modified.so"
	expect_rc 10 "modified shared object"
	run_uie $fan -- "$P/dlopen_n" "$P/libuiedso3.so"
	expect_rc 10 "shared object not in the policy"

	for how in mprotect mmap pkey; do
		refused "anonymous $how" $fan -- "$P/jit" $how
		expect_out EACCES "anonymous $how"
	done
	for how in fexecve procfd mmap; do
		refused "memfd $how" $fan -- "$P/memfd_exec" $how "$P/payload"
	done
	refused "memfd as a #! interpreter" $fan -- "$P/memfd_exec" interp "$P/payload" "$T/memfd-script"
	expect_err "denied execve of /proc/self/fd/9 .*refused by the monitor" "memfd as a #! interpreter"
	refused "shmat SHM_EXEC" $fan -- "$P/shm_exec"
	refused "personality" $fan -- "$P/pers"
	refused "remap_file_pages" $fan -- "$P/remap" "$P/libuiegood.so"
	refused "x32 ABI" $fan -- "$P/abi" x32
	expect_out "REFUSED x32 mprotect: EACCES" "x32 ABI refused by the filter"
	if [ "$I386_NATIVE" = 10 ]; then
		run_uie $fan -- "$P/abi" i386
		expect_rc 159 "i386 ABI (SIGSYS)"
	fi
	refused "/proc/self/mem" $fan -- "$P/procmem" direct
	refused "/proc/self/mem via symlink" $fan -- "$P/procmem" symlink "$T"
	refused "process_vm_writev" $fan -- "$P/vmwritev"
	refused "ptrace poke" $fan -- "$P/ptrace_poke"
	for how in $UFFD_NATIVE; do
		refused "userfaultfd ($how)" $fan -- "$P/uffd_fill" $how "$P/libuiegood.so"
		expect_out "REFUSED a userfaultfd: EPERM" "userfaultfd ($how)"
	done
done

note "uie run --timing: where the run spent its time"
phases='fanotify=[0-9]* probe=[0-9]* spawn=[0-9]* connect=[0-9]* ask=[0-9]*/[1-9][0-9]* teardown=[0-9]* program=[0-9]* total=[0-9]* us$'
run_uie --timing -- /bin/true
expect_rc 0 "--timing"
expect_err "^uie: timing: $phases" "--timing: every phase, and the program's grants asked"
# The set-up made while the child confines itself (fanotify, connect) lies within the spawn:
# counted once, the program's part is no more than the whole.
echo "$ERR" | awk '/^uie: timing:/ { for (i = 3; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] + 0 }
	ok = v["program"] <= v["total"] && v["spawn"] + v["probe"] + v["program"] <= v["total"] + 3 }
	END { exit !ok }' || { show; fail "--timing: phases add up to more than the run"; }
steps='identify=[0-9.]* seal=[0-9.]* monitor=[0-9.]* answer=[0-9.]* total=[0-9.]* us$'
expect_err "^uie: grants: execve n=1 asks=2 local=0 $steps" "--timing: the exec's steps, program and interpreter asked"
expect_err "^uie: grants: mmap n=[1-9][0-9]* asks=[1-9][0-9]* local=0 $steps" "--timing: the libraries' grants"
run_uie --timing --no-fanotify -- /bin/true
expect_err "^uie: timing: fanotify=0 " "--timing without the exec watch: no fanotify time"
run_uie -- /bin/true
echo "$ERR" | grep -q 'timing' && fail "timing printed without --timing: $ERR"

note "interpreter on a file system mounted after the exec watch started"
"$UIE" run --socket "$SOCK" -- /bin/sh -c "while [ ! -e $T/late/ready ]; do :; done; $T/script; echo status=\$?" \
	>"$T/out" 2>"$T/err" &
UPID=$!
mount -t tmpfs none "$T/late" || fail "mount tmpfs"
cp "$P/payload" "$T/late/payload" && touch "$T/late/ready"
wait "$UPID"; RC=$?; OUT=$(cat "$T/out"); ERR=$(cat "$T/err")
umount "$T/late"
expect_out "status=126" "#! interpreter on an unwatched file system"
expect_err "denied execve of .*late/payload.*refused by the monitor" "#! interpreter on an unwatched file system"

stop_monitor
note "MEASURE: the same objects run and are logged"
start_runtime_monitor --trust-key "$T/pub.pem"
install_policy measure /bin/sh "$P/dlopen_n" "$P/libuiedso1.so"
"$UIE" status --socket "$SOCK" | grep -q 'mode: MEASURE' || fail "policy not in MEASURE"
run_uie -vv -- "$P/payload"
expect_rc 10 "MEASURE runs an unlisted program"
expect_err "allowed execve of .*payload" "MEASURE logs it"
run_uie -- "$P/dlopen_n" "$P/libuieevil.so"
expect_rc 0 "MEASURE loads an unlisted object"
run_uie -- "$P/jit" mprotect
expect_rc 10 "MEASURE runs anonymous code"
echo PASS
