#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# The filter's default and program identity (docs/SYSCALLS.md, issue 25).
# 1. A system-call number the census does not list gets ENOSYS in the tree:
#    1000 (no kernel has it) and the header's highest number plus one (a
#    call on newer kernels: natively it exists on 6.18), while getpid, which
#    the census allows, works.
# 2. The identity attack (tests/progs/identity): as root a program unmaps
#    its image, takes the identity of a program a JIT rule names with
#    prctl(PR_SET_MM, PR_SET_MM_MAP / PR_SET_MM_EXE_FILE) and makes anonymous
#    memory executable.  Natively it runs the code (or the test says why it
#    cannot apply); under ENFORCE with the JIT rule for the other program,
#    the prctl is refused (EPERM), the mapping is refused, and the evidence
#    holds no grant of anonymous memory.
. "$(dirname "$0")/lib.sh"
gen_key
start_runtime_monitor --trust-key "$T/pub.pem"
P=$PROGS

top=$(echo '#include <sys/syscall.h>' | ${CC:-cc} -E -dM -x c - |
	awk '$1 == "#define" && $2 ~ /^__NR_/ { print $3 }' | sort -n | tail -1)
[ -n "$top" ] || fail "no __NR_ numbers in <sys/syscall.h>"
next=$((top + 1))
note "native: $("$P/sysnr" 39 1000 $next | tr '\n' ' ')"

"$UIE" ref scan --jit "$P/jit" -o "$T/jit.manifest" 2>/dev/null || fail "ref scan --jit"
grep '^role=JIT ' "$T/jit.manifest" > "$T/extra" || fail "ref scan --jit wrote no JIT rule"
install_policy enforce "$P/sysnr" "$P/identity" "$P/jit"
"$UIE" status --socket "$SOCK" | grep -q 'mode: ENFORCE' || fail "policy not in force"

run_uie -- "$P/sysnr" 39 1000 "$next"
expect_rc 0 "sysnr"
expect_out "^39 ok$" "getpid (in the census) under the filter"
expect_out "^1000 ENOSYS$" "number 1000 (unknown) under the filter"
expect_out "^$next ENOSYS$" "number $next (past the header) under the filter"

run_uie -- "$P/jit" mprotect
expect_rc 10 "the JIT rule's own program"

for how in map exe; do
	"$P/identity" "$P/jit" $how >"$T/native.out" 2>&1
	rc=$?
	if [ $rc != 10 ] || ! grep -q "^IDENTITY $(readlink -f "$P/jit")$" "$T/native.out"; then
		note "identity $how: natively it does not apply here (exit $rc: $(tr '\n' ' ' < "$T/native.out"))"
		continue
	fi
	note "identity $how: natively the program became $P/jit and ran anonymous code"
	before=$(status_field records)
	run_uie -- "$P/identity" "$P/jit" $how
	expect_rc 0 "identity $how under ENFORCE"
	expect_out "^REFUSED PR_SET_MM_" "identity $how: the prctl"
	expect_out "PR_SET_MM_.*: EPERM" "identity $how: the prctl's errno"
	expect_out "^REFUSED anonymous mprotect(PROT_EXEC): EACCES" "identity $how: the mapping"
	rc=$(verify_rc identity_$how)
	[ "$rc" = 0 ] || { cat "$T/identity_$how.out" >&2; fail "identity $how: uie verify exit $rc"; }
	# The records since: the refused anonymous memory, and no grant of any.
	"$UIE" evidence export --socket "$SOCK" --since "$before" -o "$T/since.ae" --cel "$T/since.cel" \
		2>/dev/null || fail "identity $how: export"
	anon=$(python3 -c '
import json, sys
recs = [r["content"] for r in json.load(open(sys.argv[1])) if r["content"].get("role") == 5]
print(sum(r["decision"] == 1 for r in recs), sum(r["decision"] == 0 for r in recs))' "$T/since.cel")
	[ "$anon" = "0 1" ] || fail "identity $how: anonymous memory records (allowed, refused): $anon, want 0 1"
	note "identity $how: refused; the evidence verifies and holds the one refusal, no grant"
done
exit 0
