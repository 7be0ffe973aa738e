#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# End-to-end, process mode (issue 26 item 4): the monitor stands for an SVSM
# (--snp-sim, a simulated chain) under its seccomp filter, on the built-in
# vTPM and on swtpm.  From the verifier's nonce to a quote it trusts, with no
# key copied by hand: `uie snp request` gets the report, `uie snp verify`
# checks it against the simulated root given explicitly (and says so) and
# hands out the EK the report binds, the credential challenge goes to that
# EK for the AK the monitor names, and `uie verify` then accepts evidence
# signed by the activated AK.  Refused, each at its step: the report for
# another nonce, the report under AMD's built-in roots, a credential made
# for another TPM's EK, and a request to a monitor without --snp-sim.
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
		-o "$T/$n.cred" || fail "$n: credential make"
	"$UIE" credential activate --socket "$SOCK" -o "$T/$n.got" "$T/$n.cred" || fail "$n: activate"
	cmp -s "$T/$n.secret" "$T/$n.got" || fail "$n: the vTPM returned another secret"
	# Evidence signed by the activated AK verifies.
	"$UIE" verify --ak-pub "$T/$n.pem" --nonce 0011223344556677 "$T/$n.ae" >"$T/$n.v" 2>&1 ||
		fail "$n: uie verify: $(cat "$T/$n.v")"
}

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
