#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# What a new user of the fleet verifier trips over (issue 28): enrolment
# checks every input (a malformed reference, a package whose table does not
# load: 400, nothing stored); `uie attest` checks the machine id before it
# sends anything; a chunked body too large gets its 413 and the
# connection is closed; a client trickling a header line a second is cut
# off by the whole-request deadline (--request-timeout); the verifier's
# messages name what is wrong (a busy port, a token that is a directory or
# readable by others, a certificate without its key, an empty body).
#
#   inputs.sh UIE-VERIFIERD UIE SCHEMA_DIR
set -u
VD=$(realpath "$1") UIE=$(realpath "$2") SCHEMA=$(realpath "$3")
HOSTILE=$(dirname "$(realpath "$0")")/hostile.py
. "$(dirname "$0")/../common.sh"
. "$(dirname "$0")/pg.sh"
fleet_need_pg
e2e_setup uie-fleet-inputs
trap 'fleet_cleanup; e2e_cleanup' EXIT
e2e_keep_going

pg_start fsync=off || { echo "FAIL: PostgreSQL did not start"; exit 1; }
vd_start a "$VD" "$SCHEMA" --request-timeout 3 || { echo "FAIL: verifier did not start"; exit 1; }
A_PORT=$VD_PORT
A=http://127.0.0.1:$A_PORT

# post PATH JSON-FILE: the HTTP status; the body in $T/reply.
post() { curl -s -o "$T/reply" -w '%{http_code}' -X POST -H 'Content-Type: application/json' --data-binary @"$2" "$A$1"; }

note "enrolment checks every input: 400 and nothing stored"
openssl ecparam -name prime256v1 -genkey -noout 2>/dev/null | openssl ec -pubout 2>/dev/null >"$T/ak.pub" || fail "AK"
printf 'policy_name=p policy_version=1.0.0\nDEFAULT action=DENY\nop=EXECVE role=MAIN digest=sha256:%s action=ALLOW\n' \
	"$(printf '1%.0s' $(seq 64))" >"$T/p.pol"
"$UIE" policy compile "$T/p.pol" -o "$T/p.t" 2>/dev/null && "$UIE" key gen -o "$T/k" --pub "$T/k.pub" >/dev/null &&
	"$UIE" policy sign --key "$T/k" --epoch 1 --bind-seq 1 --bind-pcr "$(printf '0%.0s' $(seq 64))" "$T/p.t" \
		-o "$T/p.pkg" 2>/dev/null || fail "a policy package"
# The same package with its table's first byte changed: it parses, but its table does not load.
python3 - "$T/p.pkg" "$T/p.t" "$T/bad.pkg" <<'PY'
import sys
pkg, table = open(sys.argv[1], "rb").read(), open(sys.argv[2], "rb").read()
i = pkg.index(table)
open(sys.argv[3], "wb").write(pkg[:i] + bytes([pkg[i] ^ 0xff]) + pkg[i + 1:])
PY
enrol_json() { # ID REFERENCE-TEXT PACKAGE-FILE...
	python3 - "$@" <<'PY'
import base64, json, sys
body = {"id": sys.argv[1], "ak_pub": open(sys.argv[4]).read(), "interval": 60}
if sys.argv[2]:
    body["reference"] = sys.argv[2]
if len(sys.argv) > 5:
    body["policies"] = [base64.b64encode(open(f, "rb").read()).decode() for f in sys.argv[5:]]
print(json.dumps(body))
PY
}
good_ref="role=MAIN digest=sha256:$(printf 'a%.0s' $(seq 64)) path=/usr/bin/true"
enrol_json m-ref "role=BOGUS x" "" "$T/ak.pub" >"$T/e1.json"
code=$(post /v1/machines "$T/e1.json")
[ "$code" = 400 ] && grep -q '"error":"bad_field"' "$T/reply" && grep -q 'reference.* line 1' "$T/reply" ||
	fail "a malformed reference: HTTP $code $(cat "$T/reply")"
enrol_json m-pkg "$good_ref" "" "$T/ak.pub" "$T/bad.pkg" >"$T/e2.json"
code=$(post /v1/machines "$T/e2.json")
[ "$code" = 400 ] && grep -q '"error":"bad_field"' "$T/reply" && grep -q 'policies.*\[0\]' "$T/reply" ||
	fail "a package whose table does not load: HTTP $code $(cat "$T/reply")"
[ "$(pg_sql "SELECT count(*) FROM machines")" = 0 ] && [ "$(pg_sql "SELECT count(*) FROM policies")" = 0 ] ||
	fail "a refused enrolment stored something"
enrol_json m-good "$good_ref" "" "$T/ak.pub" "$T/p.pkg" >"$T/e3.json"
code=$(post /v1/machines "$T/e3.json")
[ "$code" = 201 ] || fail "a good enrolment: HTTP $code $(cat "$T/reply")"

note "uie attest checks the machine id before it asks the verifier"
for id in ../x a/b "" "$(printf 'x%.0s' $(seq 65))"; do
	"$UIE" attest --verifier "$A" --machine "$id" --socket "$T/none.sock" >/dev/null 2>"$T/attest.err"
	rc=$?
	[ $rc = 2 ] && grep -qF -- "--machine '$id': an id is 1-64 characters" "$T/attest.err" ||
		fail "uie attest --machine '$id': exit $rc, $(cat "$T/attest.err")"
done

note "uie-verifierd names what is wrong"
code=$(curl -s -o "$T/reply" -w '%{http_code}' -X POST -H 'Content-Type: application/json' "$A/v1/machines")
[ "$code" = 400 ] && grep -q '"reason":"empty body: a JSON object is needed"' "$T/reply" ||
	fail "an empty body: HTTP $code $(cat "$T/reply")"
start_fails() { # RC MESSAGE OPTION...
	local want=$1 msg=$2 rc
	shift 2
	"$VD" --db "$PG_CONN" --schema-dir "$SCHEMA" "$@" >/dev/null 2>"$T/opt.err"
	rc=$?
	[ $rc = "$want" ] && grep -qF -- "$msg" "$T/opt.err" || fail "uie-verifierd $*: exit $rc, $(cat "$T/opt.err")"
}
start_fails 1 "--listen 127.0.0.1:$A_PORT: Address already in use" --listen "127.0.0.1:$A_PORT"
start_fails 1 "--admin-token $T: Is a directory" --listen 127.0.0.1:0 --admin-token "$T"
start_fails 2 "--tls-cert and --tls-key go together" --listen 127.0.0.1:0 --tls-cert "$T/ak.pub"
openssl rand -base64 32 >"$T/open.token" && chmod 644 "$T/open.token"
vd_start open "$VD" "$SCHEMA" --admin-token "$T/open.token" || fail "a verifier with a token readable by others"
grep -q "warning: --admin-token $T/open.token is readable or writable by others (mode 644)" "$T/vd-open.log" ||
	fail "no warning for a token file readable by others: $(cat "$T/vd-open.log")"

note "slow clients: a chunked body too large, a header trickling in"
python3 "$HOSTILE" chunked "$A_PORT" /v1/machines 10 || fail "chunked 10 MiB body"
python3 "$HOSTILE" trickle "$A_PORT" 3 || fail "trickled header"

for p in "${VD_PIDS[@]}"; do kill -0 "$p" 2>/dev/null || fail "a verifier died (pid $p)"; done
e2e_finish fleet_inputs
