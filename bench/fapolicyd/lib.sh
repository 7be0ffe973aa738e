# SPDX-License-Identifier: Apache-2.0
# Functions to run Debian's fapolicyd as the benchmark's peer; sourced by bench/run
# (so the daemon is a child of the benchmark) and by bench/fapolicyd/ctl.
# FAPO_STATE is a directory of the caller's: saved /etc/fapolicyd, pid, log.

fapo_etc=/etc/fapolicyd
fapo_lib=/var/lib/fapolicyd
fapo_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

# fapo_setup SCRATCH FILE...: save Debian's configuration, install ours, trust FILE...
# (directories are walked).  Trusted entries carry size and SHA-256.
fapo_setup() {
	local scratch=$1 f
	shift
	command -v fapolicyd >/dev/null || { echo "fapolicyd is not installed" >&2; return 1; }
	mkdir -p "$FAPO_STATE"
	[[ -d $FAPO_STATE/etc.orig ]] || cp -a "$fapo_etc" "$FAPO_STATE/etc.orig"
	install -m 0644 "$fapo_dir/fapolicyd.conf" "$fapo_etc/fapolicyd.conf"
	rm -f "$fapo_etc"/rules.d/*.rules "$fapo_etc"/trust.d/* "$fapo_etc/compiled.rules"
	sed "s|@SCRATCH@|$scratch|g" "$fapo_dir/bench.rules.in" > "$fapo_etc/rules.d/50-uie-bench.rules"
	: > "$fapo_etc/fapolicyd.trust"
	for f in "$@"; do
		fapolicyd-cli --file add "$f" --trust-file uie-bench >/dev/null || return 1
	done
	fagenrules >/dev/null 2>&1 || true
	[[ -s $fapo_etc/compiled.rules ]] || { echo "fagenrules failed" >&2; return 1; }
}

fapo_running() { [[ -n ${FAPO_PID:-} ]] && kill -0 "$FAPO_PID" 2>/dev/null; }

# fapo_start: starts the daemon in the foreground as our child, returns when it
# listens (its fanotify marks are in place).
fapo_start() {
	fapo_running && { echo "fapolicyd already running" >&2; return 1; }
	rm -rf "${fapo_lib:?}"/*
	fapolicyd --debug-deny > "$FAPO_STATE/fapolicyd.log" 2>&1 &
	FAPO_PID=$!
	echo "$FAPO_PID" > "$FAPO_STATE/pid"
	for _ in $(seq 600); do
		grep -q "Starting to listen" "$FAPO_STATE/fapolicyd.log" && return 0
		fapo_running || break
		sleep 0.05
	done
	echo "fapolicyd did not come up:" >&2
	tail -5 "$FAPO_STATE/fapolicyd.log" >&2
	fapo_stop
	return 1
}

# fapo_stop: stops the daemon by pid (ours, or the one recorded in the state dir).
fapo_stop() {
	local pid=${FAPO_PID:-}
	[[ -z $pid && -s $FAPO_STATE/pid ]] && pid=$(cat "$FAPO_STATE/pid")
	if [[ -n $pid ]] && kill -0 "$pid" 2>/dev/null; then
		kill -TERM "$pid" 2>/dev/null || true
		for _ in $(seq 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
		kill -KILL "$pid" 2>/dev/null || true
		wait "$pid" 2>/dev/null || true
	fi
	FAPO_PID=
	rm -f "$FAPO_STATE/pid"
}

# fapo_restore: stop, put Debian's configuration back, purge the daemon's state.
fapo_restore() {
	fapo_stop
	if [[ -d $FAPO_STATE/etc.orig ]]; then
		rm -rf "$fapo_etc"
		cp -a "$FAPO_STATE/etc.orig" "$fapo_etc"
		rm -rf "$FAPO_STATE/etc.orig"
	fi
	rm -rf "${fapo_lib:?}"/* /run/fapolicyd/*
}
