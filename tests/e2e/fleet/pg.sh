# SPDX-License-Identifier: Apache-2.0
# A throw-away PostgreSQL cluster and uie-verifierd processes for the fleet
# tests and the load test (sourced, not run).  Everything lives in $T: the
# cluster runs as nobody (initdb refuses root) on a unix socket in $T/pg,
# never on a network address; the caller's EXIT trap calls fleet_cleanup.

PGBIN=${PGBIN:-$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)}
VD_PIDS=()

# fleet_need_pg: skips (exit 77) unless PostgreSQL's server programs are installed.
fleet_need_pg() {
	[ -x "$PGBIN/initdb" ] && [ -x "$PGBIN/pg_ctl" ] || { echo "SKIP: no PostgreSQL server (apt-get install postgresql)"; exit 77; }
}

# pg_start [postgres -c settings...]: a cluster in $T/pg, database "fleet"; PG_CONN its conninfo.
pg_start() {
	local opts="-k $T/pg -c listen_addresses= -c max_connections=200" s
	for s in "$@"; do opts+=" -c $s"; done
	chmod 711 "$T" && mkdir -p "$T/pg" && chown nobody "$T/pg" && chmod 700 "$T/pg"
	runuser -u nobody -- "$PGBIN/initdb" -D "$T/pg/data" -A trust -U uie --no-sync >"$T/initdb.log" 2>&1 ||
		{ cat "$T/initdb.log" >&2; return 1; }
	runuser -u nobody -- "$PGBIN/pg_ctl" -D "$T/pg/data" -o "$opts" -l "$T/pg/server.log" -w start >/dev/null ||
		{ cat "$T/pg/server.log" >&2; return 1; }
	runuser -u nobody -- "$PGBIN/createdb" -h "$T/pg" -U uie fleet || return 1
	PG_CONN="host=$T/pg user=uie dbname=fleet"
}

# pg_sql SQL: runs it on the database "fleet", rows on stdout unaligned.
pg_sql() {
	runuser -u nobody -- "$PGBIN/psql" -h "$T/pg" -U uie -d fleet -Atc "$1"
}

pg_stop() {
	[ -f "$T/pg/data/postmaster.pid" ] || return 0
	runuser -u nobody -- "$PGBIN/pg_ctl" -D "$T/pg/data" -m immediate -w stop >/dev/null 2>&1
}

# vd_start NAME VERIFIERD SCHEMA_DIR [options]: a verifier on a free loopback port
# (it picks it: --listen 127.0.0.1:0); its port in VD_PORT, pid in VD_PID and VD_PIDS.
vd_start() {
	local name=$1 bin=$2 schema=$3
	shift 3
	"$bin" --listen 127.0.0.1:0 --db "$PG_CONN" --schema-dir "$schema" --name "$name" "$@" \
		>"$T/vd-$name.out" 2>"$T/vd-$name.log" &
	VD_PID=$!
	VD_PIDS+=("$VD_PID")
	for _ in $(seq 100); do
		VD_PORT=$(awk '/^listening on/ {print $3}' "$T/vd-$name.out" 2>/dev/null)
		[ -n "$VD_PORT" ] && return 0
		kill -0 "$VD_PID" 2>/dev/null || break
		sleep 0.1
	done
	cat "$T/vd-$name.log" >&2
	return 1
}

# fleet_json_simulated CHAIN MEASUREMENT: the body of PUT /v1/fleets/NAME (docs/VERIFIER.md 3.8)
# for a fleet that trusts the simulated chain in CHAIN (uie snp sim-chain), said explicitly, at
# VMPL 0 (an SVSM asked), and the one launch MEASUREMENT (96 hex digits).
fleet_json_simulated() {
	python3 -c 'import json, sys
d, m = sys.argv[1], sys.argv[2]
print(json.dumps({"ark": open(d + "/ark.pem").read(), "ask": open(d + "/ask.pem").read(), "simulated": True,
                  "vmpl": 0, "measurements": [m]}))' "$1" "$2"
}

fleet_cleanup() {
	local p
	for p in "${VD_PIDS[@]}"; do kill -TERM "$p" 2>/dev/null; done
	for p in "${VD_PIDS[@]}"; do wait "$p" 2>/dev/null; done
	VD_PIDS=()
	pg_stop
}

# fleet_begin NAME: the start of a fleet test (after common.sh): a temporary directory $T, the
# cleanup at exit, PostgreSQL in $T, and an administrator's token: TOKEN, in $T/admin.token.
fleet_begin() {
	fleet_need_pg
	e2e_setup "$1"
	trap 'fleet_cleanup; e2e_cleanup' EXIT
	e2e_keep_going
	pg_start fsync=off || { echo "FAIL: PostgreSQL did not start"; exit 1; }
	TOKEN=$(openssl rand -base64 32)
	echo "$TOKEN" >"$T/admin.token"
	chmod 600 "$T/admin.token"
}
