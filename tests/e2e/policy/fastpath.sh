#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The Bloom-hint fast path end to end (issue 5, section 4): with a package
# signed --bloom, a shared object missing from the policy is refused by the
# monitor the first time (its digest is new to the interceptor) and by the
# interceptor itself ("fast path") from then on, and the monitor's evidence
# shows a FASTPATH_REJECT record that the verifier accepts; then, in the SAME
# long-running `uie run` session, an update (epoch 2) that allows the object
# is installed and the object loads: a stale hint only costs speed.
# --no-fast-path leaves every decision to the monitor.
# Environment from meson: UIE, UIE_MONITORD, PROGS (tests/progs build dir).
set -u

. "$(dirname "$0")/../common.sh"
e2e_start uie-fastpath UIE UIE_MONITORD PROGS
SOCK=$T/monitor.sock
P=$PROGS
D1=$P/libuiedso1.so
D2=$P/libuiedso2.so
D3=$P/libuiedso3.so

field() { "$UIE" status --socket "$SOCK" | awk -v k="$1:" '$1 == k { print $2 }'; }

# package N FILE...: signs a policy allowing exactly FILE... (and what they load)
# as epoch N with a Bloom hint, bound to the monitor's current state, into $T/pkgN.
# The hint has 256 bits per digest (false positives about 1e-11), not the default
# 10 (0.8 %): the test needs the objects it expects refused to be definite misses,
# and with a random salt per package a default-sized hint lets about one run in a
# hundred send one to the monitor instead.
package() {
	n=$1; shift
	# shellcheck disable=SC2046
	"$UIE" ref scan $(closure "$@") -o "$T/ref$n" 2>/dev/null || fail "ref scan ($n)"
	# shellcheck disable=SC2086
	"$UIE" policy compile --mode enforce --default deny $TRUST_FS "$T/ref$n" -o "$T/table$n" ||
		fail "policy compile ($n)"
	# One status answer for both: the running session logs records meanwhile.
	"$UIE" status --socket "$SOCK" >"$T/status" || fail "status ($n)"
	"$UIE" policy sign --key "$T/ttp.pem" --epoch "$n" \
		--bind-seq "$(awk '$1 == "records:" { print $2 }' "$T/status")" \
		--bind-pcr "$(awk '$1 == "vpcr16:" { print $2 }' "$T/status")" \
		--bloom-bits 256 "$T/table$n" -o "$T/pkg$n" >/dev/null 2>&1 || fail "policy sign ($n)"
}

# evidence TAG POLICY...: exports, verifies against the packages (the verifier
# checks every fast-path record against the policy of its epoch) and sets
# NFAST to the number of FASTPATH_REJECT records in the log.
evidence() {
	tag=$1; shift
	nonce=$(od -An -tx1 -N16 /dev/urandom | tr -d ' \n')
	"$UIE" evidence export --socket "$SOCK" --nonce "$nonce" -o "$T/$tag.ae" \
		--pubkey-out "$T/ak.pub" 2>"$T/$tag.err" || { cat "$T/$tag.err" >&2; fail "export ($tag)"; }
	args=()
	for p in "$@"; do args+=(--policy "$p"); done
	"$UIE" verify "$T/$tag.ae" --nonce "$nonce" --ak-pub "$T/ak.pub" "${args[@]}" --json \
		>"$T/$tag.json" 2>&1 || { cat "$T/$tag.json" >&2; fail "verify ($tag)"; }
	NFAST=$(python3 - "$T/$tag.ae" <<'PY'
import struct, sys
ae = open(sys.argv[1], "rb").read()
n = struct.unpack_from("<H", ae, 8)[0]
rec0, nrec = 66 + n, struct.unpack_from("<Q", ae, 18 + n)[0]
fast = [r for r in range(nrec) if struct.unpack_from("<H", ae, rec0 + 184 * r + 12)[0] == 19]
for r in fast:  # DENY, reason 9 FASTPATH_MISS, with a digest
    o = rec0 + 184 * r
    assert ae[o + 145] == 0 and struct.unpack_from("<H", ae, o + 146)[0] == 9, "bad fast-path record"
    assert struct.unpack_from("<H", ae, o + 26)[0] != 0, "fast-path record without digest"
print(len(fast))
PY
) || fail "evidence ($tag): cannot read the records"
}

"$UIE" key gen -o "$T/ttp.pem" --pub "$T/ttp.pub" >/dev/null || fail "key gen"
start_monitor "$UIE_MONITORD" "$SOCK" "builtin:$T/ak.pem" --trust-key "$T/ttp.pub" ||
	fail "monitor did not start"

note "epoch 1 with a Bloom hint: $D2 is not in it"
package 1 /bin/sh /usr/bin/sleep "$P/dlopen_n" "$D1"
"$UIE" policy install "$T/pkg1" --socket "$SOCK" >/dev/null || fail "install epoch 1"
[ "$(field mode)" = ENFORCE ] && [ "$(field epoch)" = 1 ] || fail "epoch 1 not in force"

note "one long-running session: refused now (monitor, then fast path), retried after the update"
"$UIE" run --socket "$SOCK" -v -- /bin/sh -c '
	"$1" "$2" "$3"; echo "first=$?"
	"$1" "$2" "$3"; echo "again=$?"
	i=0
	while [ ! -e "$4" ] && [ $i -lt 600 ]; do sleep 0.1; i=$((i + 1)); done
	"$1" "$2" "$3"; echo "second=$?"' sh "$P/dlopen_n" "$D1" "$D2" "$T/go" \
	>"$T/session.out" 2>"$T/session.err" &
SESSION=$!
for _ in $(seq 300); do
	grep -q '^again=' "$T/session.out" && break
	kill -0 $SESSION 2>/dev/null || break
	sleep 0.1
done
grep -q '^first=11$' "$T/session.out" && grep -q '^again=11$' "$T/session.out" ||
	{ cat "$T/session.out" "$T/session.err" >&2; fail "$D2 was not refused under epoch 1"; }
grep -q "denied mmap of .*libuiedso2.so.*refused by the monitor" "$T/session.err" ||
	{ cat "$T/session.err" >&2; fail "the first refusal did not come from the monitor"; }
grep -q "denied mmap of .*libuiedso2.so.*fast path" "$T/session.err" ||
	{ cat "$T/session.err" >&2; fail "the second refusal did not come from the fast path"; }
# Reported in a batch once the session is quiet (1 ms; at the latest 100 ms): while the
# session still runs, the record must appear within a few seconds.
for _ in $(seq 50); do
	evidence e1 "$T/pkg1"
	[ "$NFAST" -ge 1 ] && break
	sleep 0.1
done
[ "$NFAST" -ge 1 ] || fail "no FASTPATH_REJECT record in the monitor's log while the session runs"
note "fast-path refusal logged ($NFAST FASTPATH_REJECT record(s)) while the session runs, evidence verifies"

note "update to epoch 2 allowing $D2, while the session still holds the epoch-1 hint"
package 2 /bin/sh /usr/bin/sleep "$P/dlopen_n" "$D1" "$D2"
"$UIE" policy install "$T/pkg2" --socket "$SOCK" >/dev/null || fail "install epoch 2"
[ "$(field epoch)" = 2 ] || fail "epoch 2 not in force"
touch "$T/go"
wait $SESSION
rc=$?
[ "$rc" = 0 ] || { cat "$T/session.out" "$T/session.err" >&2; fail "session exit $rc"; }
grep -q '^second=0$' "$T/session.out" ||
	{ cat "$T/session.out" "$T/session.err" >&2; fail "$D2 still refused after the update"; }
note "same session: $D2 loads under epoch 2"

note "new sessions: fast path by default, --no-fast-path asks the monitor"
evidence e2 "$T/pkg1" "$T/pkg2"
before=$NFAST
# twice PROGRAM ARG: runs PROGRAM ARG two times in one shell, printing a=RC and b=RC.
twice='"$1" "$2"; echo "a=$?"; "$1" "$2"; echo "b=$?"'
"$UIE" run --socket "$SOCK" -- /bin/sh -c "$twice" sh "$P/dlopen_n" "$D3" >"$T/out" 2>"$T/err"
grep -q '^a=10$' "$T/out" && grep -q '^b=10$' "$T/out" &&
	grep -q "libuiedso3.so.*refused by the monitor" "$T/err" && grep -q "libuiedso3.so.*fast path" "$T/err" ||
	{ cat "$T/out" "$T/err" >&2; fail "$D3: want the monitor's refusal, then the fast path's"; }
"$UIE" run --socket "$SOCK" --no-fast-path -- /bin/sh -c "$twice" sh "$P/dlopen_n" "$D3" \
	>"$T/out" 2>"$T/err"
grep -q '^a=10$' "$T/out" && grep -q '^b=10$' "$T/out" &&
	[ "$(grep -c "libuiedso3.so.*refused by the monitor" "$T/err")" = 2 ] && ! grep -q "fast path" "$T/err" ||
	{ cat "$T/out" "$T/err" >&2; fail "$D3 with --no-fast-path: want two refusals by the monitor"; }
"$UIE" run --socket "$SOCK" -- "$P/dlopen_n" "$D1" "$D2" >"$T/out" 2>"$T/err" ||
	{ cat "$T/err" >&2; fail "allowed objects refused with the fast path on"; }
evidence e3 "$T/pkg1" "$T/pkg2"
[ "$NFAST" = $((before + 1)) ] || fail "FASTPATH_REJECT records: $before -> $NFAST, want one more"
echo PASS
