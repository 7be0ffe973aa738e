#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# mremap growth of executable memory (issue 25).  A copy of an approved
# library with new code in the page after its code segment keeps the object
# digest (which covers the executable segments only).  Mapping the code
# segment alone is granted; growing that mapping with mremap would make the
# new page executable without asking.  Each attack first runs natively, where
# it must gain, then under ENFORCE (default DENY), where the growth must be
# refused, its DENY record logged and the evidence accepted.  A move of
# approved code alone (MREMAP_DONTUNMAP) stays allowed; anonymous executable
# memory grows under a JIT rule, asked as such.
. "$(dirname "$0")/lib.sh"
P=$PROGS
LIB=$P/libuiegood.so

cp "$LIB" "$T/copy.so"
"$P/growexec" plant "$T/copy.so" || fail "cannot write the payload into the copy"
"$UIE" ref scan "$LIB" "$T/copy.so" 2>/dev/null | awk '/^role=/ { print $2 }' >"$T/digests"
[ "$(sort -u "$T/digests" | wc -l)" = 1 ] || fail "the copy's object digest differs: $(cat "$T/digests")"

note "each attack gains natively"
for m in grow move fixed dontunmap; do native "growexec $m" "$P/growexec" $m "$T/copy.so"; done
native "growexec anon" "$P/growexec" anon
native "growexec race" "$P/growexec" race "$T/copy.so" 2

gen_key
start_runtime_monitor --trust-key "$T/pub.pem"
install_policy enforce "$P/growexec" "$LIB"
"$UIE" status --socket "$SOCK" | grep -q 'mode: ENFORCE' || fail "policy not in force"

note "ENFORCE: the code segment is granted, its growth over the new page refused"
seqs=
for m in grow move fixed dontunmap; do
	run_uie -- "$P/growexec" $m "$T/copy.so"
	expect_rc 0 "growexec $m"
	expect_out "REFUSED mremap growth of the code segment: EACCES" "growexec $m"
	expect_err "denied mremap at .* its executable range was refused" "growexec $m (named)"
	seq=$(echo "$ERR" | sed -n 's/^uie: denied mprotect of .*copy.so.*refused by the monitor: .*(record \([0-9]*\))$/\1/p')
	[ -n "$seq" ] || { show; fail "growexec $m: no DENY record named"; }
	seqs="$seqs $seq"
done

note "ENFORCE: a thread keeps making the mapping executable while another grows it"
run_uie -- "$P/growexec" race "$T/copy.so" "${UIE_RACE_SECONDS:-3}"
expect_rc 0 "growexec race"
expect_out "REFUSED no growth made the payload page executable" "growexec race"
echo "$OUT" | grep -q '^grown [1-9]' || { show; fail "growexec race: no growth of the read-only mapping went through"; }
note "$(echo "$OUT" | head -1)"

note "the evidence holds the refusals, each of a digest the reference does not know"
nonce=$(od -An -tx1 -N16 /dev/urandom | tr -d ' \n')
"$UIE" evidence export --socket "$SOCK" --nonce "$nonce" -o "$T/growth.ae" --pubkey-out "$T/ak.pub" \
	>/dev/null 2>"$T/export.err" || { cat "$T/export.err" >&2; fail "evidence export"; }
"$UIE" verify "$T/growth.ae" --nonce "$nonce" --ak-pub "$T/ak.pub" --reference "$T/manifest" >"$T/growth.out" 2>&1 ||
	{ cat "$T/growth.out" >&2; fail "evidence with mremap refusals: exit $?"; }
range=$(sed -n 's/^  records: *\([0-9]*\)-\([0-9]*\) .*/\1 \2/p' "$T/growth.out")
[ -n "$range" ] || { cat "$T/growth.out" >&2; fail "verify names no records"; }
set -- $range
for s in $seqs; do
	[ "$s" -ge "$1" ] && [ "$s" -le "$2" ] || fail "record $s is not in the evidence ($1-$2)"
done
denied=$(sed -n 's/^  reference: .*, \([0-9]*\) unknown but denied$/\1/p' "$T/growth.out")
[ "${denied:-0}" -ge 4 ] || { cat "$T/growth.out" >&2; fail "verify counts ${denied:-no} unknown digests denied, want 4 or more"; }
note "$(grep 'reference:' "$T/growth.out")"

note "ENFORCE: anonymous executable memory grows under a JIT rule only, asked as such"
run_uie -- "$P/growexec" anon
expect_rc 0 "growexec anon without a JIT rule"
expect_out "REFUSED anonymous mmap(PROT_EXEC)" "growexec anon without a JIT rule"
"$UIE" ref scan --jit "$P/growexec" "$P/growexec" 2>/dev/null | grep '^role=JIT' >"$T/extra"
install_policy enforce "$P/growexec" "$LIB"
run_uie -vv -- "$P/growexec" anon
expect_rc 10 "growexec anon with a JIT rule"
expect_err "allowed mprotect of anonymous memory" "growexec anon: the growth was asked as ANON"
stop_monitor
echo PASS
