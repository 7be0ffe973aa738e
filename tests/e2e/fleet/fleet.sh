#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The fleet verifier end to end (docs/VERIFIER.md): a PostgreSQL cluster in a
# temporary directory, two uie-verifierd processes on it, and
#  - test_fleet: the API driven with genuine evidence of in-process machines
#    (enrolment, nonces across verifiers, incremental posts, concurrent posts,
#    restarts, tampered/skipped/reordered/replayed records refused, every bad input);
#  - retention (--keep-verdicts) and options refused;
#  - uie attest against a real uie-monitord, across a monitor restart, and
#    served while another address floods a rate-limited verifier;
#  - connections held open by one address (slow-loris, half-open bodies);
#  - requests the HTTP library rejects while reading their head, over HTTP and
#    TLS: answered with the documented JSON, one response, connection closed;
#  - TLS with a self-signed server certificate, and client certificates;
#  - the administrator's token (--admin-token) of A: test_fleet, token files refused.
#
#   fleet.sh UIE-VERIFIERD UIE UIE-MONITORD TEST_FLEET SCHEMA_DIR
set -u
VD=$(realpath "$1") UIE=$(realpath "$2") MONITORD=$(realpath "$3") TEST_FLEET=$(realpath "$4") SCHEMA=$(realpath "$5")
HOSTILE=$(dirname "$(realpath "$0")")/hostile.py
. "$(dirname "$0")/../common.sh"
. "$(dirname "$0")/pg.sh"
fleet_begin uie-fleet
ADMIN=(-H "Authorization: Bearer $TOKEN")
vd_start a "$VD" "$SCHEMA" --max-body 1048576 --admin-token "$T/admin.token" ||
	{ echo "FAIL: verifier a did not start"; exit 1; }
A=http://127.0.0.1:$VD_PORT
vd_start b "$VD" "$SCHEMA" --max-body 1048576 --silent-after 1 --nonce-ttl 3 ||
	{ echo "FAIL: verifier b did not start"; exit 1; }
B=http://127.0.0.1:$VD_PORT

note "the API with in-process machines (A $A, B $B)"
"$TEST_FLEET" "$A" "$B" "$TOKEN" || fail "test_fleet"

grep -h . "$T/vd-a.log" "$T/vd-b.log" && fail "a verifier logged errors (above): a database error or a notice"

note "requests the HTTP library rejects while reading their head: the documented JSON (HTTP)"
python3 "$HOSTILE" heads "${B##*:}" >"$T/heads.out" 2>&1 || fail "bad heads over HTTP: $(cat "$T/heads.out")"
cat "$T/heads.out"

note "retention: --keep-verdicts prunes old verdicts, never a machine's first bad one"
verdicts_of() { pg_sql "SELECT count(*) FROM verdicts WHERE machine_id = '$1'"; }
restart_n=$(verdicts_of m-restart)
[ "$(verdicts_of m-basic)" -ge 1 ] && [ "$(verdicts_of m-gap)" -ge 2 ] || fail "test_fleet left fewer verdicts than expected"
pg_sql "UPDATE verdicts SET at = at - interval '2 days' WHERE machine_id IN ('m-basic', 'm-gap')" >/dev/null ||
	fail "ageing verdicts"
vd_start keep "$VD" "$SCHEMA" --keep-verdicts 1 || fail "verifier with --keep-verdicts did not start"
grep -q '^pruned [0-9]* verdicts older than 1 days$' "$T/vd-keep.out" || fail "no pruning reported: $(cat "$T/vd-keep.out")"
[ "$(verdicts_of m-basic)" = 0 ] || fail "m-basic keeps $(verdicts_of m-basic) verdicts older than 1 day"
[ "$(verdicts_of m-gap)" = 1 ] || fail "m-gap keeps $(verdicts_of m-gap) verdicts, want its first bad one"
[ "$(verdicts_of m-restart)" = "$restart_n" ] || fail "recent verdicts were pruned"
curl -s "http://127.0.0.1:$VD_PORT/v1/machines/m-gap" | grep -q '"first_bad":{"verdict":' ||
	fail "m-gap lost its first bad verdict"

note "options out of range are refused before anything starts"
for opt in "--keep-verdicts 0" "--keep-verdicts x" "--rate 5" "--rate 0/s" "--rate 5/m" "--rate 2000000/s" \
	"--burst 0" "--idle-timeout 0" "--admin-token"; do
	# shellcheck disable=SC2086
	"$VD" --listen 127.0.0.1:0 --db "$PG_CONN" --schema-dir "$SCHEMA" $opt >/dev/null 2>"$T/opt.err"
	rc=$?
	[ $rc = 2 ] && grep -q -- "${opt%% *}" "$T/opt.err" || fail "uie-verifierd $opt: exit $rc, $(head -1 "$T/opt.err")"
done

note "token files that are no token are refused at start (exit 1, naming the file)"
printf 'short\n' >"$T/short.token"
printf 'a token with spaces in it\n' >"$T/spaces.token"
for f in "$T/short.token" "$T/spaces.token" "$T/absent.token"; do
	"$VD" --listen 127.0.0.1:0 --db "$PG_CONN" --schema-dir "$SCHEMA" --admin-token "$f" >/dev/null 2>"$T/opt.err"
	rc=$?
	[ $rc = 1 ] && grep -q -- "--admin-token $f" "$T/opt.err" || fail "--admin-token $f: exit $rc, $(head -1 "$T/opt.err")"
done

note "uie attest against a real monitor, across a restart"
mkdir -p "$T/m"
start_monitor "$MONITORD" "$T/m/mon.sock" "builtin:$T/m/ak.key" || fail "monitor did not start"
"$UIE" evidence export --socket "$T/m/mon.sock" -o "$T/m/first.ae" --pubkey-out "$T/m/ak.pub" 2>/dev/null ||
	fail "export of the AK"
python3 - "$T/m/ak.pub" >"$T/m/enrol.json" <<'PY'
import json, sys
print(json.dumps({"id": "real-1", "ak_pub": open(sys.argv[1]).read(), "interval": 60}))
PY
code=$(curl -s -o "$T/m/enrol.out" -w '%{http_code}' -X POST -H 'Content-Type: application/json' \
	--data-binary @"$T/m/enrol.json" "$A/v1/machines")
[ "$code" = 403 ] && grep -q admin_required "$T/m/enrol.out" || fail "enrolment without the token at A: HTTP $code"
code=$(curl -s -o "$T/m/enrol.out" -w '%{http_code}' -X POST -H 'Content-Type: application/json' "${ADMIN[@]}" \
	--data-binary @"$T/m/enrol.json" "$A/v1/machines")
[ "$code" = 201 ] || fail "enrolment of the real machine: HTTP $code $(cat "$T/m/enrol.out")"
"$UIE" attest --verifier "$B" --machine real-1 --socket "$T/m/mon.sock" >"$T/m/v1.json" ||
	fail "first attestation: $(cat "$T/m/v1.json")"
grep -q '"accepted":true' "$T/m/v1.json" || fail "first attestation not accepted"
"$UIE" attest --verifier "$A" --machine real-1 --socket "$T/m/mon.sock" >"$T/m/v2.json" ||
	fail "second attestation"
grep -q '"new_records":0' "$T/m/v2.json" || fail "an incremental round re-counted records: $(cat "$T/m/v2.json")"
stop_monitor
start_monitor "$MONITORD" "$T/m/mon.sock" "builtin:$T/m/ak.key" || fail "monitor did not restart"
"$UIE" attest --verifier "$A" --machine real-1 --socket "$T/m/mon.sock" >"$T/m/v3.json" ||
	fail "attestation after the restart: $(cat "$T/m/v3.json")"
grep -q '"restarted":true' "$T/m/v3.json" || fail "the restart was not seen: $(cat "$T/m/v3.json")"
"$UIE" attest --verifier "$B" --machine real-1 --socket "$T/m/mon.sock" >/dev/null ||
	fail "incremental attestation after the restart"

note "rate limit: an address flooding gets 429 rate_limited and stores nothing; real-1 is served meanwhile"
vd_start rl "$VD" "$SCHEMA" --rate 2/s --burst 4 --max-nonces 1000 || fail "rate-limited verifier did not start"
RL_PORT=$VD_PORT
sed 's/"real-1"/"flood-1"/' "$T/m/enrol.json" >"$T/m/flood.json"
code=$(curl -s -o /dev/null -w '%{http_code}' -X POST -H 'Content-Type: application/json' "${ADMIN[@]}" \
	--data-binary @"$T/m/flood.json" "$A/v1/machines")
[ "$code" = 201 ] || fail "enrolment of flood-1: HTTP $code"
python3 "$HOSTILE" flood "$RL_PORT" /v1/machines/flood-1/nonce 3 >"$T/flood.out" 2>&1 &
flood=$!
sleep 1
"$UIE" attest --verifier "http://127.0.0.1:$RL_PORT" --machine real-1 --socket "$T/m/mon.sock" >"$T/m/rl.json" ||
	fail "real-1 not served while another address floods: $(cat "$T/m/rl.json")"
wait $flood || fail "flood: $(cat "$T/flood.out")"
echo "flood: $(cat "$T/flood.out")"
served=$(awk '$1 == "served" { print $2 }' "$T/flood.out")
[ "$(pg_sql "SELECT count(*) FROM nonces WHERE machine_id = 'flood-1'")" = "$served" ] ||
	fail "nonces stored for flood-1 are not the $served requests served"
stop_monitor
"$UIE" attest --verifier "$A" --machine real-1 --socket "$T/m/mon.sock" >/dev/null 2>&1
[ $? = 1 ] || fail "uie attest without a monitor did not fail with 1"
"$UIE" attest --verifier "$A" >/dev/null 2>&1
[ $? = 2 ] || fail "uie attest without --machine is not a usage error"

note "slow-loris: one address holding connections half-open does not keep others out, and is timed out"
vd_start sl "$VD" "$SCHEMA" --max-per-client 4 --idle-timeout 2 || fail "verifier sl did not start"
python3 "$HOSTILE" loris "$VD_PORT" 4 2 >"$T/loris.out" 2>&1 &
loris=$!
sleep 1
code=$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$VD_PORT/v1/machines/real-1")
[ "$code" = 200 ] || fail "a client of another address was not served while one held connections: $code"
wait $loris || fail "slow-loris: $(cat "$T/loris.out")"
echo "slow-loris: $(cat "$T/loris.out")"

note "TLS: a self-signed server certificate, then client certificates"
cd "$T" || exit 1
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout srv.key -out srv.pem \
	-days 1 -subj /CN=127.0.0.1 -addext subjectAltName=IP:127.0.0.1 2>/dev/null || fail "openssl server cert"
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout ca.key -out ca.pem \
	-days 1 -subj /CN=fleet-ca 2>/dev/null || fail "openssl CA"
openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout cli.key -out cli.csr \
	-subj /CN=agent 2>/dev/null &&
	openssl x509 -req -in cli.csr -CA ca.pem -CAkey ca.key -CAcreateserial -out cli.pem -days 1 2>/dev/null ||
	fail "openssl client cert"
# TLS inputs that are not what they should be: refused at start (exit 1), naming the option.
for args in "--tls-cert srv.pem --tls-key cli.key:--tls-key: key values mismatch" \
	"--tls-cert srv.key --tls-key srv.key:--tls-cert: no PEM certificate in it" \
	"--tls-cert srv.pem --tls-key srv.pem:--tls-key: no PEM private key in it" \
	"--tls-cert srv.pem --tls-key srv.key --tls-client-ca srv.key:--tls-client-ca: no PEM certificate in it"; do
	# shellcheck disable=SC2086
	"$VD" --listen 127.0.0.1:0 --db "$PG_CONN" --schema-dir "$SCHEMA" ${args%%:*} >/dev/null 2>tls.err
	rc=$?
	[ $rc = 1 ] && grep -qF -- "${args#*:}" tls.err || fail "${args%%:*}: exit $rc, $(head -1 tls.err)"
done
vd_start tls "$VD" "$SCHEMA" --tls-cert srv.pem --tls-key srv.key || fail "TLS verifier did not start"
S=https://127.0.0.1:$VD_PORT
code=$(curl -s -o tls.out -w '%{http_code}' --cacert srv.pem "$S/v1/machines/real-1")
[ "$code" = 200 ] && grep -q '"status":"trusted"' tls.out || fail "HTTPS read: $code $(cat tls.out)"
curl -s -o /dev/null "$S/v1/machines" && fail "HTTPS accepted without the server's certificate being trusted"
python3 "$HOSTILE" heads "$VD_PORT" srv.pem >heads-tls.out 2>&1 || fail "bad heads over TLS: $(cat heads-tls.out)"
cat heads-tls.out
vd_start mtls "$VD" "$SCHEMA" --tls-cert srv.pem --tls-key srv.key --tls-client-ca ca.pem ||
	fail "mTLS verifier did not start"
M=https://127.0.0.1:$VD_PORT
code=$(curl -s -o mtls.out -w '%{http_code}' --cacert srv.pem "$M/v1/machines")
[ "$code" = 403 ] && grep -q client_cert mtls.out || fail "mTLS without a client certificate: $code"
code=$(curl -s -o mtls.out -w '%{http_code}' --cacert srv.pem --cert cli.pem --key cli.key "$M/v1/machines")
[ "$code" = 200 ] || fail "mTLS with a client certificate: $code $(cat mtls.out)"
code=$(curl -s -o mtls.out -w '%{http_code}' --cacert srv.pem --cert srv.pem --key srv.key "$M/v1/machines")
[ "$code" = 403 ] || fail "mTLS with a certificate of another CA: $code"

for p in "${VD_PIDS[@]}"; do kill -0 "$p" 2>/dev/null || fail "a verifier died (pid $p)"; done
e2e_finish fleet
