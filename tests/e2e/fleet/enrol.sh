#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Enrolment by attestation end to end (docs/VERIFIER.md 3.8): a PostgreSQL
# cluster in a temporary directory, two uie-verifierd processes on it (A with
# --admin-token, B without and with --nonce-ttl 3), and test_enrol: machines in
# process answering as an SVSM with a simulated SEV-SNP chain, the happy path
# across both verifiers and each refusal at its step.
#
#   enrol.sh UIE-VERIFIERD TEST_ENROL SCHEMA_DIR
set -u
VD=$(realpath "$1") TEST_ENROL=$(realpath "$2") SCHEMA=$(realpath "$3")
. "$(dirname "$0")/../common.sh"
. "$(dirname "$0")/pg.sh"
fleet_need_pg
e2e_setup uie-enrol
trap 'fleet_cleanup; e2e_cleanup' EXIT
e2e_keep_going

pg_start fsync=off || { echo "FAIL: PostgreSQL did not start"; exit 1; }
TOKEN=$(openssl rand -base64 32)
echo "$TOKEN" >"$T/admin.token"
chmod 600 "$T/admin.token"
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

grep -h . "$T/vd-a.log" "$T/vd-b.log" && fail "a verifier logged errors (above)"
e2e_finish fleet_enrol
