#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# End-to-end, process mode (issue 26 item 4): the monitor stands for an SVSM
# (--snp-sim, a simulated chain) under its seccomp filter, on the built-in
# vTPM and on swtpm.  From the verifier's nonce to a quote it trusts, with no
# key copied by hand: `uie snp request` gets the report, `uie snp verify`
# checks it against the simulated root given explicitly (and says so) and
# hands out the EK the report binds, the credential challenge goes to that
# EK for the AK the monitor names, and `uie verify` then accepts evidence
# signed by the activated AK, also in one `uie verify` from the same inputs
# (report, certificates, manifest, challenge, answer).  Refused, each at its
# step: the report for another nonce, under AMD's built-in roots, another
# launch measurement; a credential made for another TPM's EK; in uie
# verify a challenge sealed to another EK, an AK from another TPM and a
# wrong answer; a request to a monitor without --snp-sim.
#   snp_monitor.sh UIE UIE_MONITORD
set -u
UIE=$1
MONITORD=$2
command -v swtpm >/dev/null || { echo "SKIP: no swtpm"; exit 77; }
. "$(dirname "$0")/../common.sh"
e2e_setup uie-e2e-snp-monitor
SOCK=$T/run/monitor.sock
MEAS=$(head -c 48 /dev/urandom | od -An -tx1 -v | tr -d ' \n')
"$UIE" snp sim-chain -o "$T/chain" --product milan >/dev/null || fail "sim-chain"
ROOTS=(--ask "$T/chain/ask.pem" --ark "$T/chain/ark.pem" --simulated)

hex64() { head -c 64 /dev/urandom | od -An -tx1 -v | tr -d ' \n'; }

# attest NAME: the whole chain against the monitor on $SOCK; files $T/NAME.*.
attest() {
	local n=$1 nonce other
	nonce=$(hex64)
	other=$(hex64)
	"$UIE" snp request --socket "$SOCK" --nonce "$nonce" -o "$T/$n.tsm" || fail "$n: snp request"
	"$UIE" snp verify --configfs "$T/$n.tsm" --nonce "$nonce" "${ROOTS[@]}" --vmpl 0 --measurement "$MEAS" \
		--ek-out "$T/$n.ek" >"$T/$n.verdict" 2>&1 || fail "$n: snp verify: $(cat "$T/$n.verdict")"
	grep -q "ok (simulated root), bound to the vTPM's EK" "$T/$n.verdict" ||
		fail "$n: verdict $(cat "$T/$n.verdict")"
	# The EK the report binds is the monitor's vTPM's.
	"$UIE" ek show --socket "$SOCK" --ek-out "$T/$n.ek-tpm" --ak-out "$T/$n.ak" >/dev/null || fail "$n: ek show"
	cmp -s "$T/$n.ek" "$T/$n.ek-tpm" || fail "$n: the report binds another EK than the vTPM's"
	# Refusals of the report itself.
	if "$UIE" snp verify --configfs "$T/$n.tsm" --nonce "$other" "${ROOTS[@]}" 2>"$T/err" >&2; then
		fail "$n: the report verified for another nonce"
	fi
	grep -q "REPORT_DATA is not SHA-512(nonce || manifest)" "$T/err" || fail "$n: other nonce: $(cat "$T/err")"
	if "$UIE" snp verify --configfs "$T/$n.tsm" --nonce "$nonce" >"$T/err" 2>&1; then
		fail "$n: a simulated report verified against AMD's built-in roots"
	fi
	grep -q "ARK: SHA-256 fingerprint" "$T/err" || fail "$n: built-in roots: $(cat "$T/err")"
	if "$UIE" snp verify --configfs "$T/$n.tsm" --nonce "$nonce" "${ROOTS[@]}" --measurement "$(hex64 | cut -c1-96)" \
		>"$T/err" 2>&1; then fail "$n: another launch measurement was accepted"; fi
	grep -q "MEASUREMENT" "$T/err" || fail "$n: measurement: $(cat "$T/err")"
	# EK -> AK: the challenge to the EK the report vouches for, for the AK the monitor names.
	"$UIE" evidence export --socket "$SOCK" --nonce 0011223344556677 -o "$T/$n.ae" --pubkey-out "$T/$n.pem" ||
		fail "$n: export"
	"$UIE" credential make --ek "$T/$n.ek" --ak "$T/$n.ak" --ak-pub "$T/$n.pem" --secret-out "$T/$n.secret" \
		--challenge "$T/$n.chal" -o "$T/$n.cred" || fail "$n: credential make"
	"$UIE" credential activate --socket "$SOCK" -o "$T/$n.got" "$T/$n.cred" || fail "$n: activate"
	cmp -s "$T/$n.secret" "$T/$n.got" || fail "$n: the vTPM returned another secret"
	grep -q "$(od -An -tx1 -v "$T/$n.secret" | tr -d ' \n')" "$T/$n.chal" && fail "$n: the challenge file holds the secret"
	# uie verify takes the same inputs, and no key by hand: evidence signed by the activated AK verifies.
	"$UIE" verify "$T/$n.ae" --nonce 0011223344556677 --snp "$T/$n.tsm" --snp-nonce "$nonce" "${ROOTS[@]}" \
		--vmpl 0 --measurement "$MEAS" --ak "$T/$n.ak" --challenge "$T/$n.chal" --activated "$T/$n.got" \
		>"$T/$n.v" 2>&1 || fail "$n: uie verify with the attested AK: $(cat "$T/$n.v")"
	grep -q "ACCEPTED" "$T/$n.v" && grep -q "AK: *attested: SEV-SNP report under a SIMULATED root, launch measurement $MEAS" \
		"$T/$n.v" || fail "$n: uie verify said $(cat "$T/$n.v")"
	# ... and refuses, with exit 23 naming the link: a report for another nonce, another answer.
	verify_refused "$n: another nonce" "REPORT_DATA is not SHA-512" "$T/$n.ae" "$T/$n.tsm" "$other" \
		"$T/$n.ak" "$T/$n.chal" "$T/$n.got"
	head -c 32 /dev/urandom >"$T/$n.wrong"
	verify_refused "$n: another answer" "not the challenge's secret" "$T/$n.ae" "$T/$n.tsm" "$nonce" \
		"$T/$n.ak" "$T/$n.chal" "$T/$n.wrong"
	NONCE_OF[$n]=$nonce
}

# verify_refused WHAT WORDS AE TSM NONCE AK CHALLENGE ACTIVATED: uie verify exits 23 saying WORDS.
verify_refused() {
	local what=$1 words=$2 rc
	"$UIE" verify "$3" --nonce 0011223344556677 --snp "$4" --snp-nonce "$5" "${ROOTS[@]}" --ak "$6" \
		--challenge "$7" --activated "$8" >"$T/err" 2>&1
	rc=$?
	[ $rc = 23 ] && grep -q "$words" "$T/err" || fail "$what: exit $rc: $(cat "$T/err")"
}
declare -A NONCE_OF

start_monitor "$MONITORD" "$SOCK" "builtin:$T/keys/ak.pem" --snp-sim "$T/chain" --snp-measurement "$MEAS" ||
	fail "built-in monitor not ready"
grep -q '^Seccomp:[[:space:]]*2' "/proc/$MON_PID/status" || fail "no seccomp filter"
attest builtin
grep -q "SIMULATED chain" "$T/monitord.log" || fail "the monitor does not say its chain is simulated"
stop_monitor || fail "built-in monitor exit status $?"

start_swtpm || fail "swtpm did not start"
rm -rf "$T/state"
start_monitor "$MONITORD" "$SOCK" "swtpm:127.0.0.1:$SW_PORT" --snp-sim "$T/chain" --snp-measurement "$MEAS" ||
	fail "swtpm monitor not ready"
attest swtpm
# The built-in vTPM's report vouches for its EK: a credential to it cannot be opened here.
"$UIE" credential make --ek "$T/builtin.ek" --ak "$T/swtpm.ak" --secret-out "$T/s" -o "$T/c" || fail "make"
if "$UIE" credential activate --socket "$SOCK" "$T/c" 2>"$T/err"; then fail "another TPM's credential opened"; fi
grep -q "does not open with this TPM's EK" "$T/err" || fail "another EK: $(cat "$T/err")"
# uie verify: a challenge sealed to another EK than the report's, and an AK from another TPM.
verify_refused "challenge to another EK" "sealed to another EK" "$T/swtpm.ae" "$T/swtpm.tsm" \
	"${NONCE_OF[swtpm]}" "$T/swtpm.ak" "$T/builtin.chal" "$T/swtpm.got"
verify_refused "AK from another TPM" "made for another AK" "$T/swtpm.ae" "$T/swtpm.tsm" \
	"${NONCE_OF[swtpm]}" "$T/builtin.ak" "$T/swtpm.chal" "$T/swtpm.got"
stop_monitor || fail "swtpm monitor exit status $? (killed by its filter?)"
stop_swtpm

# Without --snp-sim the monitor has nothing to give, and says so.
rm -rf "$T/state"
start_monitor "$MONITORD" "$SOCK" "builtin:$T/keys/ak.pem" || fail "plain monitor not ready"
if "$UIE" snp request --socket "$SOCK" --nonce "$(hex64)" -o "$T/none" 2>"$T/err"; then
	fail "a monitor without --snp-sim gave a report"
fi
grep -q "no SEV-SNP report to give" "$T/err" || fail "no --snp-sim: $(cat "$T/err")"
stop_monitor || fail "plain monitor exit status $?"
# A bad chain directory stops the start, naming the file, before anything is created.
if "$MONITORD" --socket "$T/run2/m.sock" --vtpm "builtin:$T/keys2/ak.pem" --foreground --state-dir none \
	--snp-sim "$T/nochain" 2>"$T/err"; then fail "a missing chain was accepted"; fi
grep -q "nochain/ark.pem" "$T/err" || fail "missing chain: $(cat "$T/err")"
[ ! -e "$T/keys2" ] || fail "a refused start created the vTPM key"
echo "snp monitor: all checks passed"
