#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The policy lifecycle end to end (issue 5): scan, compile, start in bootstrap,
# export and verify the bootstrap evidence, sign bound to it, install, enforce
# (allowed runs, unlisted refused), every kind of bad package refused with the
# monitor's state unchanged, update to a new epoch that adds a program, which
# then runs, and final evidence that verifies against both packages and fails
# replay once a record is modified or the log truncated.
# Environment from meson: UIE (the uie command), UIE_MONITORD.  Root only.
# The vTPM is a real TPM 2.0 (swtpm) when available, else the built-in one
# (UIE_LIFECYCLE_VTPM=builtin forces it).
set -u

. "$(dirname "$0")/../common.sh"
e2e_start uie-lifecycle UIE UIE_MONITORD
VTPM_KIND=${UIE_LIFECYCLE_VTPM:-swtpm}
command -v swtpm >/dev/null || VTPM_KIND=builtin
SOCK=$T/monitor.sock

# field NAME: a line "NAME: VALUE" of `uie status`.
status() { "$UIE" status --socket "$SOCK" > "$T/status" || fail "uie status"; }
field() { awk -v k="$1:" '$1 == k { print $2 }' "$T/status"; }

# export_verify TAG [verify args]: fresh nonce, export, verify; sets SEQ and PCR.
export_verify() {
	tag=$1; shift
	nonce=$(od -An -tx1 -N16 /dev/urandom | tr -d ' \n')
	"$UIE" evidence export --socket "$SOCK" --nonce "$nonce" -o "$T/$tag.ae" \
		--pubkey-out "$T/ak.pub" 2>"$T/$tag.err" || { cat "$T/$tag.err" >&2; fail "evidence export ($tag)"; }
	"$UIE" verify "$T/$tag.ae" --nonce "$nonce" --ak-pub "$T/ak.pub" --reference "$T/ref" \
		"$@" --json > "$T/$tag.json"
	rc=$?
	[ "$rc" = 0 ] || { cat "$T/$tag.json" >&2; fail "verify ($tag) exit $rc"; }
	SEQ=$(python3 -c "import json,sys; j=json.load(open(sys.argv[1])); print(j['first_seq'] + j['nrecords'])" "$T/$tag.json")
	PCR=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['vpcr16'])" "$T/$tag.json")
	[ -n "$SEQ" ] && [ -n "$PCR" ] || fail "verify ($tag) gave no record count or vPCR16"
}

# run_uie PROGRAM ARGS: sets RC (stdout/stderr in $T/out, $T/err).
run_uie() { "$UIE" run --socket "$SOCK" -- "$@" >"$T/out" 2>"$T/err"; RC=$?; }
expect_runs() {
	run_uie "$@"
	[ "$RC" = 0 ] || { cat "$T/err" >&2; fail "$* should run, exit $RC"; }
}
expect_refused() {
	run_uie "$@"
	[ "$RC" = 126 ] || { cat "$T/err" >&2; fail "$* should be refused (126), exit $RC"; }
}

# expect_rejected WHAT PACKAGE: the monitor refuses it and nothing but the log moves.
expect_rejected() {
	status
	mode=$(field mode); epoch=$(field epoch); policy=$(field policy); n=$(field records)
	if "$UIE" policy install "$2" --socket "$SOCK" 2>"$T/inst.err"; then
		fail "$1: package was installed"
	fi
	grep -q "rejected by the monitor" "$T/inst.err" || { cat "$T/inst.err" >&2; fail "$1: no rejection reason"; }
	status
	[ "$(field mode)" = "$mode" ] && [ "$(field epoch)" = "$epoch" ] && [ "$(field policy)" = "$policy" ] ||
		fail "$1: monitor state changed"
	[ "$(field records)" = $((n + 1)) ] || fail "$1: rejection not logged as exactly one record"
	note "rejected as expected: $1 ($(sed 's/.*: //' "$T/inst.err"))"
}

# TTP: keys, reference manifest, policy (the allowed set excludes /usr/bin/id).
"$UIE" key gen -o "$T/ttp.pem" --pub "$T/ttp.pub" >/dev/null || fail "key gen"
"$UIE" key gen -o "$T/stranger.pem" --pub "$T/stranger.pub" >/dev/null || fail "key gen"
# shellcheck disable=SC2046
"$UIE" ref scan $(closure /bin/sh /usr/bin/true /usr/bin/cat /usr/bin/ls) -o "$T/ref" ||
	fail "ref scan"
grep -q "^role=INTERP" "$T/ref" && grep -q "^role=MAIN" "$T/ref" && grep -q "^role=DSO" "$T/ref" ||
	fail "manifest lacks a role"
# shellcheck disable=SC2086
"$UIE" policy compile --mode enforce --default deny $TRUST_FS "$T/ref" -o "$T/table1" || fail "compile"
"$UIE" policy show "$T/table1" > "$T/table1.txt" || fail "show"
"$UIE" policy compile "$T/table1.txt" -o "$T/table1.again" 2>/dev/null || fail "compile of show"
cmp -s "$T/table1" "$T/table1.again" || fail "show does not round-trip"

note "bootstrap"
if [ "$VTPM_KIND" = swtpm ]; then
	start_swtpm || fail "swtpm did not start"
	VTPM=swtpm:127.0.0.1:$SW_PORT
else
	VTPM=builtin:$T/ak.pem
fi
note "vTPM: $VTPM"
start_monitor "$UIE_MONITORD" "$SOCK" "$VTPM" --trust-key "$T/ttp.pub" || fail "monitor did not start"
status
[ "$(field mode)" = BOOTSTRAP ] || fail "monitor not in bootstrap"
expect_runs /bin/sh -c 'ls / >/dev/null && echo hi | cat'
# (Running /usr/bin/id here would run too -- bootstrap never blocks -- but the
# TTP's verification against the reference manifest would then fail.)

note "first provisioning: export, verify, sign bound to the verified state"
export_verify boot
"$UIE" policy sign --key "$T/ttp.pem" --epoch 1 --bind-seq "$SEQ" --bind-pcr "$PCR" --bloom \
	"$T/table1" -o "$T/pkg1" 2>/dev/null || fail "sign"
# Events after the export must not break the binding (it names a log prefix).
expect_runs /usr/bin/true

note "rejections before installation"
"$UIE" policy sign --key "$T/stranger.pem" --epoch 1 --bind-seq "$SEQ" --bind-pcr "$PCR" \
	"$T/table1" -o "$T/bad-key" 2>/dev/null || fail "sign (stranger)"
expect_rejected "unknown key" "$T/bad-key"
# flip <in> <out> <offset>: one bit changed (offset 140 is in the first rule's digest).
flip() { python3 -c "import sys; d=bytearray(open(sys.argv[1],'rb').read()); d[int(sys.argv[3])]^=1; open(sys.argv[2],'wb').write(d)" "$@"; }
flip "$T/pkg1" "$T/bad-sig" 140
expect_rejected "bad signature" "$T/bad-sig"
rest=$(echo "$PCR" | cut -c2-)
case $PCR in 0*) wrong=1$rest ;; *) wrong=0$rest ;; esac
"$UIE" policy sign --key "$T/ttp.pem" --epoch 1 --bind-seq "$SEQ" --bind-pcr "$wrong" \
	"$T/table1" -o "$T/bad-pcr" 2>/dev/null || fail "sign (wrong pcr)"
expect_rejected "vPCR16 mismatch" "$T/bad-pcr"
"$UIE" policy sign --key "$T/ttp.pem" --epoch 1 --bind-seq 1000000 --bind-pcr "$PCR" \
	"$T/table1" -o "$T/bad-seq" 2>/dev/null || fail "sign (future seq)"
expect_rejected "binding beyond the log" "$T/bad-seq"
head -c 150 "$T/pkg1" > "$T/truncated"
expect_rejected "truncated package" "$T/truncated"
flip "$T/pkg1" "$T/bad-version" 9 # version 0x0101
expect_rejected "unknown version" "$T/bad-version"

note "install and enforce"
"$UIE" policy install "$T/pkg1" --socket "$SOCK" >/dev/null || fail "install of the bound package"
status
[ "$(field mode)" = ENFORCE ] && [ "$(field epoch)" = 1 ] || fail "not enforcing epoch 1"
expect_runs /bin/sh -c 'ls / >/dev/null && echo hi | cat'
expect_runs /usr/bin/true
expect_refused /usr/bin/id
grep -q . "$T/err" || fail "refusal gave no message"

note "rollback and replay"
expect_rejected "replay of the installed package" "$T/pkg1"
"$UIE" policy sign --key "$T/ttp.pem" --epoch 1 --bind-seq "$SEQ" --bind-pcr "$PCR" \
	"$T/table1" -o "$T/same-epoch" 2>/dev/null || fail "sign (same epoch)"
expect_rejected "equal epoch" "$T/same-epoch"

note "update to epoch 2 adding /usr/bin/id"
# shellcheck disable=SC2046
"$UIE" ref scan $(closure /bin/sh /usr/bin/true /usr/bin/cat /usr/bin/ls /usr/bin/id) -o "$T/ref" ||
	fail "ref scan (update)"
# shellcheck disable=SC2086
"$UIE" policy compile $TRUST_FS "$T/ref" -o "$T/table2" 2>/dev/null || fail "compile (update)"
export_verify update --policy "$T/pkg1"
"$UIE" policy sign --key "$T/ttp.pem" --epoch 2 --bind-seq "$SEQ" --bind-pcr "$PCR" --bloom \
	"$T/table2" -o "$T/pkg2" 2>/dev/null || fail "sign (update)"
"$UIE" policy install "$T/pkg2" --socket "$SOCK" >/dev/null || fail "install of the update"
status
[ "$(field epoch)" = 2 ] || fail "update not installed"
expect_runs /usr/bin/id
expect_runs /usr/bin/true
"$UIE" policy sign --key "$T/ttp.pem" --epoch 1 --bind-seq "$SEQ" --bind-pcr "$PCR" \
	"$T/table2" -o "$T/rollback" 2>/dev/null || fail "sign (rollback)"
expect_rejected "rollback to epoch 1" "$T/rollback"

note "final evidence verifies against both packages"
export_verify final --policy "$T/pkg1" --policy "$T/pkg2"

# tamper KIND: a copy of the final AE with one record changed ("modify") or the
# last record cut off with the counts adjusted ("truncate"); both must fail replay.
tamper() {
	python3 - "$1" "$T/final.ae" "$T/tampered.ae" <<'PY'
import struct, sys
kind, src, dst = sys.argv[1:]
ae = bytearray(open(src, "rb").read())
n = struct.unpack_from("<H", ae, 8)[0]
rec0, nrec = 66 + n, struct.unpack_from("<Q", ae, 18 + n)[0]
if kind == "modify":
    ae[rec0 + (nrec // 2) * 184 + 40] ^= 1  # OC.pid of a record in the middle
else:
    struct.pack_into("<Q", ae, 18 + n, nrec - 1)
    struct.pack_into("<Q", ae, 58 + n, (nrec - 1) * 184)
    del ae[rec0 + (nrec - 1) * 184:rec0 + nrec * 184]
open(dst, "wb").write(ae)
PY
	"$UIE" verify "$T/tampered.ae" --nonce "$nonce" --ak-pub "$T/ak.pub" --reference "$T/ref" \
		--policy "$T/pkg1" --policy "$T/pkg2" >"$T/tampered.out" 2>&1
	rc=$?
	[ "$rc" = 16 ] || { cat "$T/tampered.out" >&2; fail "tampered evidence ($1): exit $rc, want 16 (replay)"; }
	note "tampered evidence rejected ($1): $(head -n 1 "$T/tampered.out")"
}
tamper modify
tamper truncate
echo PASS
