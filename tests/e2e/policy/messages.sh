#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Messages that say enough (issue 28): each names the file, peer or name
# at fault and the system error; `uie verify --policy` says when a package
# is for an epoch no record of the evidence is of; an empty manifest
# compiles to a deny-all table with a warning; `uie policy install` tells
# an equal epoch from a rollback.
# Environment from meson: UIE, UIE_MONITORD.
set -u

. "$(dirname "$0")/../common.sh"
e2e_start uie-messages UIE UIE_MONITORD
e2e_keep_going
zeros=$(printf '0%.0s' $(seq 64))

note "an empty manifest: a warning that the table denies everything"
mkdir "$T/empty"
"$UIE" ref scan "$T/empty" -o "$T/empty.m" 2>/dev/null || fail "ref scan of an empty directory"
"$UIE" policy compile "$T/empty.m" -o "$T/empty.t" 2>"$T/err" || fail "compile of an empty manifest"
grep -q "warning: $T/empty.m lists no objects: the table denies every execution" "$T/err" ||
	fail "no warning for an empty manifest: $(cat "$T/err")"

note "uie verify --policy for an epoch the evidence never reached: a warning naming it"
mkdir -m 700 "$T/m"
"$UIE" key gen -o "$T/k" --pub "$T/k.pub" >/dev/null || fail "key gen"
start_monitor "$UIE_MONITORD" "$T/m/sock" "builtin:$T/m/ak.pem" --trust-key "$T/k.pub" || fail "monitor did not start"
printf 'policy_name=p policy_version=1.0.0\nmode=MEASURE\nDEFAULT action=DENY\n' >"$T/p.pol"
"$UIE" policy compile "$T/p.pol" -o "$T/p.t" 2>/dev/null &&
	"$UIE" policy sign --key "$T/k" --epoch 7 --bind-seq 1 --bind-pcr "$zeros" "$T/p.t" -o "$T/p7.pkg" 2>/dev/null ||
	fail "a package for epoch 7"
nonce=$(openssl rand -hex 16)
"$UIE" evidence export --socket "$T/m/sock" --nonce "$nonce" -o "$T/ae" --pubkey-out "$T/ak.pub" 2>/dev/null ||
	fail "evidence export"
"$UIE" verify "$T/ae" --nonce "$nonce" --ak-pub "$T/ak.pub" --policy "$T/p7.pkg" >/dev/null 2>"$T/err" ||
	fail "verify of bootstrap evidence: $(cat "$T/err")"
grep -q "warning: policy package $T/p7.pkg is for epoch 7, which no record of the evidence is of" "$T/err" ||
	fail "no warning for a package of an epoch not in the log: $(cat "$T/err")"

"$UIE" ref scan --json /usr/bin/true 2>/dev/null | head -c 60 >"$T/trunc.json"
"$UIE" verify "$T/ae" --nonce "$nonce" --ak-pub "$T/ak.pub" --reference "$T/trunc.json" >/dev/null 2>"$T/err" &&
	fail "verify with a truncated JSON manifest"
grep -q "reference manifest $T/trunc.json:[1-9][0-9]*: malformed input" "$T/err" ||
	fail "truncated JSON manifest: $(cat "$T/err")"

note "uie policy install says why an epoch is refused: equal, or a rollback"
"$UIE" verify "$T/ae" --nonce "$nonce" --ak-pub "$T/ak.pub" --state "$T/st" >/dev/null 2>&1 || fail "verify --state"
for e in 1 2; do
	"$UIE" policy sign --key "$T/k" --bind-from "$T/st" --epoch $e "$T/p.t" -o "$T/p$e.pkg" 2>/dev/null ||
		fail "sign epoch $e"
done
"$UIE" policy install --socket "$T/m/sock" "$T/p2.pkg" >/dev/null 2>"$T/err" || fail "install epoch 2: $(cat "$T/err")"
"$UIE" policy install --socket "$T/m/sock" "$T/p2.pkg" >/dev/null 2>"$T/err" && fail "epoch 2 installed twice"
grep -q "$T/p2.pkg: epoch 2 is the epoch in force already" "$T/err" || fail "equal epoch: $(cat "$T/err")"
"$UIE" policy install --socket "$T/m/sock" "$T/p1.pkg" >/dev/null 2>"$T/err" && fail "epoch 1 installed after 2"
grep -q "$T/p1.pkg: epoch 1 is below the epoch in force 2 (a rollback)" "$T/err" || fail "rollback: $(cat "$T/err")"

note "uie evidence export says why it has no records from --since"
"$UIE" evidence checkpoint --socket "$T/m/sock" --state "$T/st" >/dev/null 2>"$T/err" || fail "checkpoint: $(cat "$T/err")"
"$UIE" evidence export --socket "$T/m/sock" --nonce 01 --since 0 -o "$T/x.ae" 2>"$T/err" &&
	fail "export of records a checkpoint dropped"
grep -q -- "--since 0: the monitor at $T/m/sock no longer holds those records: a checkpoint" "$T/err" ||
	fail "export before the checkpoint: $(cat "$T/err")"
"$UIE" evidence export --socket "$T/m/sock" --nonce 01 --since 99999 -o "$T/x.ae" 2>"$T/err" &&
	fail "export past the end"
grep -q -- "--since 99999: the monitor at $T/m/sock has only [0-9]* records" "$T/err" ||
	fail "export past the end: $(cat "$T/err")"

note "uie-monitord names the socket and what is wrong with it"
mkdir -m 700 "$T/s"
"$UIE_MONITORD" --foreground --state-dir none --socket "$T/m/sock" --vtpm "builtin:$T/s/ak.pem" 2>"$T/err" &&
	fail "a second monitor on a socket in use started"
grep -q -- "--socket $T/m/sock: a running monitor serves it" "$T/err" || fail "socket in use: $(cat "$T/err")"
mkdir "$T/s/dir"
"$UIE_MONITORD" --foreground --state-dir none --socket "$T/s/dir" --vtpm "builtin:$T/s/ak.pem" 2>"$T/err" &&
	fail "a monitor on a directory started"
grep -q -- "--socket $T/s/dir: is a directory" "$T/err" || fail "socket path a directory: $(cat "$T/err")"
"$UIE_MONITORD" --foreground --state-dir none --socket "$T/s/x" --user no-such-user-uie \
	--vtpm "builtin:$T/s/ak.pem" 2>"$T/err" && fail "a monitor for a missing user started"
grep -q -- "--user no-such-user-uie: no such user" "$T/err" || fail "missing user: $(cat "$T/err")"

note "uie attest names the monitor's socket and the system error"
"$UIE" attest --verifier http://127.0.0.1:9 --machine m1 --socket "$T/none.sock" 2>"$T/err" >/dev/null
grep -q "monitor at $T/none.sock: No such file or directory" "$T/err" || fail "attest without a monitor: $(cat "$T/err")"
stop_monitor

e2e_finish messages
