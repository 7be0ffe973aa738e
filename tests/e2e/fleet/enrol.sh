#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Enrolment by attestation end to end (docs/VERIFIER.md 3.8): a PostgreSQL
# cluster in a temporary directory, two uie-verifierd processes on it (A with
# --admin-token, B without and with --nonce-ttl 3), and test_enrol: machines in
# process answering as an SVSM with a simulated SEV-SNP chain, the happy path
# across both verifiers and each refusal at its step; then `uie attest --enrol`
# against a real uie-monitord standing for an SVSM (--snp-sim): enrolled with
# no key copied by hand, then its evidence accepted; refused under a fleet of
# AMD's roots only, and with a stale configfs-tsm answer (--configfs).
#
#   enrol.sh UIE-VERIFIERD TEST_ENROL SCHEMA_DIR UIE UIE-MONITORD
set -u
VD=$(realpath "$1") TEST_ENROL=$(realpath "$2") SCHEMA=$(realpath "$3") UIE=$(realpath "$4") MONITORD=$(realpath "$5")
. "$(dirname "$0")/../common.sh"
. "$(dirname "$0")/pg.sh"
fleet_begin uie-enrol
vd_start a "$VD" "$SCHEMA" --admin-token "$T/admin.token" || { echo "FAIL: verifier a did not start"; exit 1; }
A=http://127.0.0.1:$VD_PORT
vd_start b "$VD" "$SCHEMA" --nonce-ttl 3 || { echo "FAIL: verifier b did not start"; exit 1; }
B=http://127.0.0.1:$VD_PORT

note "enrolment by attestation (A $A, B $B)"
"$TEST_ENROL" "$A" "$B" "$TOKEN" || fail "test_enrol"

note "what is stored: the attested machine's row, no fleet from a refused body, no pending enrolment left of e-good"
[ "$(pg_sql "SELECT attested_simulated FROM machines WHERE id = 'e-good'")" = t ] || fail "e-good is not recorded as attested (simulated)"
[ "$(pg_sql "SELECT count(*) FROM fleets WHERE name = 'bad'")" = 0 ] || fail "a refused fleet was stored"
[ "$(pg_sql "SELECT count(*) FROM enrolments WHERE machine_id = 'e-good'")" = 0 ] || fail "e-good's enrolments were not cleared"
[ "$(pg_sql "SELECT count(*) FROM machines WHERE id LIKE 'e-%' AND id <> 'e-good'")" = 0 ] || fail "a refused machine was enrolled"

note "uie attest --enrol against a monitor standing for an SVSM (--snp-sim)"
MEAS=$(head -c 48 /dev/urandom | od -An -tx1 -v | tr -d ' \n')
"$UIE" snp sim-chain -o "$T/chain" >/dev/null || fail "sim-chain"
fleet_json_simulated "$T/chain" "$MEAS" >"$T/fleet.json"
put_fleet() {
	curl -s -o "$T/put.out" -w '%{http_code}' -X PUT -H "Authorization: Bearer $TOKEN" \
		-H 'Content-Type: application/json' --data-binary "@$2" "$A/v1/fleets/$1"
}
[ "$(put_fleet proc "$T/fleet.json")" = 201 ] || fail "PUT fleet proc: $(cat "$T/put.out")"
echo '{"vmpl": 0, "measurements": "any"}' >"$T/amd.json"
[ "$(put_fleet amd-only "$T/amd.json")" = 201 ] || fail "PUT fleet amd-only: $(cat "$T/put.out")"
mkdir -p "$T/m"
start_monitor "$MONITORD" "$T/m/mon.sock" "builtin:$T/m/ak.key" --snp-sim "$T/chain" --snp-measurement "$MEAS" ||
	fail "monitor did not start"
AGENT=("$UIE" attest --socket "$T/m/mon.sock" --machine p-1)
"${AGENT[@]}" --verifier "$A" --enrol --fleet amd-only >"$T/amd.out" 2>"$T/amd.err" &&
	fail "enrolled under AMD's roots with a simulated report"
grep -q '403 attestation: report: ' "$T/amd.err" || fail "amd-only: $(cat "$T/amd.err")"
# A configfs-tsm answer made for another nonce: the agent writes the verifier's nonce as inblob,
# and what it reads back (here, a copy that no kernel regenerates) is refused at the binding.
"$UIE" ek show --socket "$T/m/mon.sock" --ek-out "$T/m/ek.tpm2b" >/dev/null || fail "ek show"
tail -c +3 "$T/m/ek.tpm2b" >"$T/m/ek.tpmt"
"$UIE" snp sim-attest --chain "$T/chain" --nonce "$(head -c 64 /dev/urandom | od -An -tx1 -v | tr -d ' \n')" \
	--ek "$T/m/ek.tpmt" --measurement "$MEAS" -o "$T/tsm" || fail "sim-attest"
"${AGENT[@]}" --verifier "$B" --enrol --fleet proc --configfs "$T/tsm" >"$T/cfs.out" 2>"$T/cfs.err" &&
	fail "enrolled with a stale configfs answer"
grep -q '403 attestation: binding: REPORT_DATA' "$T/cfs.err" || fail "configfs: $(cat "$T/cfs.err")"
[ "$(stat -c %s "$T/tsm/inblob")" = 64 ] && [ "$(cat "$T/tsm/service_provider")" = svsm ] ||
	fail "--configfs did not ask for the nonce as configfs-tsm wants"
# The monitor's own report: enrolled at B (no token), then the first round accepted.
"${AGENT[@]}" --verifier "$B" --enrol --fleet proc >"$T/enrol.out" 2>"$T/enrol.err" ||
	fail "uie attest --enrol: $(cat "$T/enrol.err")"
head -1 "$T/enrol.out" | grep -q '"attestation": *{"fleet": *"proc", *"measurement": *"'"$MEAS"'", *"simulated": *true}' ||
	fail "enrolment answer: $(head -1 "$T/enrol.out")"
sed -n 2p "$T/enrol.out" | grep -q '"accepted": *true' || fail "first round: $(cat "$T/enrol.out" "$T/enrol.err")"
# Enrolled already: --enrol goes straight to the round.
"${AGENT[@]}" --verifier "$A" --enrol --fleet proc >"$T/again.out" 2>"$T/again.err" || fail "again: $(cat "$T/again.err")"
grep -q "enrolled already" "$T/again.err" || fail "again: $(cat "$T/again.err")"
stop_monitor || fail "monitor exit status $?"

grep -h . "$T/vd-a.log" "$T/vd-b.log" && fail "a verifier logged errors (above)"
e2e_finish fleet_enrol
