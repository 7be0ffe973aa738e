#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# `meson install --destdir` gives a system everything it needs, and each
# piece works:
#   install_tree.sh BUILD_ROOT PREFIX BINDIR SBINDIR MANDIR DATADIR UNITDIR
# binaries that run from the tree; the service units (systemd-analyze verify,
# the monitor's ExecStart and sandboxing options, the agent's ExecStart,
# ordering and configuration file); sysusers.d and tmpfiles.d entries
# applied to a scratch root (user, directories, modes); a manual page for
# every command, rendered by man without warnings; bash completion of
# commands and options.  As root, the installed monitor is then started as
# the unit starts it, as the user that sysusers.d makes, with its state,
# socket and key in the test's own directory (never the machine's /var/lib/uie).
set -u
build=$1 prefix=$2 bindir=$3 sbindir=$4 mandir=$5 datadir=$6 unitdir=$7 libexecdir=$8
abs() { case $1 in /*) echo "$1" ;; *) echo "$prefix/$1" ;; esac; }
T=$(mktemp -d /tmp/uie-install.XXXXXX) || exit 1
MON_PID=
cleanup() { [ -z "$MON_PID" ] || { kill "$MON_PID"; wait "$MON_PID"; } 2>/dev/null; rm -rf "$T"; }
trap cleanup EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
D=$T/root

meson install -C "$build" --no-rebuild --destdir "$D" --quiet > "$T/install.log" 2>&1 ||
	{ cat "$T/install.log" >&2; fail "meson install --destdir"; }
uie=$D$(abs "$bindir")/uie
monitord=$D$(abs "$sbindir")/uie-monitord
unit=$D$(abs "$unitdir")/uie-monitord.service
sysusers=$D$prefix/lib/sysusers.d/uie.conf
tmpfiles=$D$prefix/lib/tmpfiles.d/uie.conf
completion=$D$(abs "$datadir")/bash-completion/completions/uie
man=$D$(abs "$mandir")
for f in "$uie" "$monitord"; do [ -x "$f" ] || fail "$f not installed executable"; done
for f in "$unit" "$sysusers" "$tmpfiles" "$completion"; do [ -s "$f" ] || fail "$f not installed"; done
"$uie" --help | grep -q '^  run ' || fail "installed uie does not run"
# The installed uie finds the installed uie-tool (its --help above is uie-tool's).
[ -x "$D$(abs "$libexecdir")/uie/uie-tool" ] || fail "uie-tool not installed in $(abs "$libexecdir")/uie"
[ -x "$D$(abs "$bindir")/uie-attest" ] || fail "uie-attest not installed beside uie"
"$monitord" --help | grep -q -- '--syslog' || fail "installed uie-monitord does not run"

# --- the unit -------------------------------------------------------------
grep -qx "ExecStart=$(abs "$sbindir")/uie-monitord --foreground --user uie-monitor --syslog /run/systemd/journal/dev-log" "$unit" ||
	fail "ExecStart does not run the installed monitor as the sysusers user"
for opt in StateDirectory=uie RuntimeDirectory=uie NoNewPrivileges=yes ProtectSystem=strict \
	ProtectHome=yes PrivateDevices=yes PrivateNetwork=yes MemoryDenyWriteExecute=yes \
	RestrictAddressFamilies=AF_UNIX SystemCallArchitectures=native 'CapabilityBoundingSet=CAP_SETUID CAP_SETGID CAP_CHOWN'; do
	grep -qx "$opt" "$unit" || fail "unit lacks $opt"
done
# The fleet agent's unit: uie attest after the monitor, configured by an environment file.
attest_unit=$D$(abs "$unitdir")/uie-attest.service
attest_conf=$D$(abs "$datadir")/uie/attest.conf
[ -s "$attest_unit" ] && [ -s "$attest_conf" ] || fail "uie-attest.service or its example attest.conf not installed"
grep -qxF "ExecStart=$(abs "$bindir")/uie attest --verifier \${UIE_VERIFIER} --machine \${UIE_MACHINE} --interval \${UIE_INTERVAL} \$UIE_ATTEST_OPTS" "$attest_unit" ||
	fail "uie-attest.service does not run the installed uie attest with the configured verifier and machine"
for opt in After=uie-monitord.service Wants=uie-monitord.service; do
	grep -q "^${opt%%=*}=.*${opt#*=}" "$attest_unit" || fail "uie-attest.service lacks $opt"
done
grep -q '^EnvironmentFile=/.*/uie/attest.conf$' "$attest_unit" || fail "uie-attest.service reads no attest.conf"
(set -e; . "$attest_conf"; [ -n "$UIE_VERIFIER" ] && [ -n "$UIE_MACHINE" ] && [ -n "$UIE_INTERVAL" ]) ||
	fail "the example attest.conf does not set what the unit reads"
if command -v systemd-analyze > /dev/null; then
	# verify checks that ExecStart is executable: point it into the tree.
	sed "s#^ExecStart=$(abs "$sbindir")#ExecStart=$D$(abs "$sbindir")#" "$unit" > "$T/uie-monitord.service"
	sed "s#^ExecStart=$(abs "$bindir")#ExecStart=$D$(abs "$bindir")#" "$attest_unit" > "$T/uie-attest.service"
	for u in uie-monitord uie-attest; do
		systemd-analyze verify --man=no "$T/$u.service" > "$T/verify.log" 2>&1 ||
			{ cat "$T/verify.log" >&2; fail "systemd-analyze verify $u.service"; }
	done
	for u in uie-monitord:1.6 uie-attest:1.8; do
		exposure=$(systemd-analyze security --offline=true "$T/${u%:*}.service" 2>/dev/null |
			awk '/Overall exposure level/ { print $(NF-2) }')
		echo "${u%:*}.service verified; systemd-analyze security exposure: ${exposure:-?}"
		awk -v e="${exposure:-10}" 'BEGIN { exit !(e + 0 <= 3.0) }' ||
			fail "exposure $exposure: ${u%:*}.service lost its sandboxing (was ${u#*:})"
	done
else
	echo "SKIP (part): no systemd-analyze, units not verified"
fi

# --- sysusers.d and tmpfiles.d on a scratch root ----------------------------
if command -v systemd-sysusers > /dev/null && command -v systemd-tmpfiles > /dev/null; then
	R=$T/sysroot
	mkdir -p "$R/etc"
	systemd-sysusers --root="$R" "$sysusers" > "$T/sysusers.log" 2>&1 ||
		{ cat "$T/sysusers.log" >&2; fail "systemd-sysusers"; }
	grep -q '^uie-monitor:x:[0-9]*:[0-9]*:PS-UIE integrity monitor:/nonexistent:/usr/sbin/nologin$' "$R/etc/passwd" ||
		{ cat "$R/etc/passwd" >&2; fail "sysusers.d did not make the uie-monitor user"; }
	uid=$(awk -F: '$1 == "uie-monitor" { print $3 }' "$R/etc/passwd")
	[ "$uid" -gt 0 ] && [ "$uid" -lt 1000 ] || fail "uie-monitor is not a system user (uid $uid)"
	grep -q '^uie-monitor:' "$R/etc/group" || fail "sysusers.d did not make the uie-monitor group"
	systemd-tmpfiles --create --root="$R" "$tmpfiles" > "$T/tmpfiles.log" 2>&1 ||
		{ cat "$T/tmpfiles.log" >&2; fail "systemd-tmpfiles"; }
	[ "$(stat -c '%a %U' "$R/var/lib/uie")" = "700 root" ] || fail "/var/lib/uie: $(stat -c '%a %U' "$R/var/lib/uie")"
	[ "$(stat -c '%a %U' "$R/run/uie")" = "750 root" ] || fail "/run/uie: $(stat -c '%a %U' "$R/run/uie")"
	[ -d "$R/etc/uie" ] || fail "/etc/uie not made"
else
	echo "no systemd-sysusers/systemd-tmpfiles: entries not applied"
fi

# --- manual pages ----------------------------------------------------------
. "$(dirname "$0")/commands.sh"
commands=$(uie_commands "$uie")
for page in man1/uie.1 man8/uie-monitord.8 $(for c in $commands; do echo "man1/uie-$c.1"; done); do
	[ -s "$man/$page" ] || fail "manual page $page not installed"
	if command -v man > /dev/null; then
		out=$(MANWIDTH=80 man --warnings -l "$man/$page" 2>&1 >/dev/null)
		[ -z "$out" ] || fail "$page renders with warnings: $out"
		MANWIDTH=80 man -l "$man/$page" 2>/dev/null | grep -q '^NAME' || fail "$page has no NAME section"
	fi
done

# --- bash completion -------------------------------------------------------
if [ -f /usr/share/bash-completion/bash_completion ]; then
	complete_words() { # WORDS...: what completing the last word offers
		bash -c '
			. /usr/share/bash-completion/bash_completion
			. "$1"; shift
			COMP_WORDS=("$@"); COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
			COMP_LINE="$*"; COMP_POINT=${#COMP_LINE}
			_uie; echo "${COMPREPLY[*]}"' _ "$completion" "$@"
	}
	PATH=$(dirname "$uie"):$PATH
	export PATH
	[ "$(complete_words uie pol)" = policy ] || fail "completion of 'uie pol': $(complete_words uie pol)"
	[ "$(complete_words uie policy s)" = "show sign" ] || fail "completion of 'uie policy s'"
	[ "$(complete_words uie run --no-f)" = "--no-fanotify --no-fast-path" ] ||
		fail "completion of 'uie run --no-f': $(complete_words uie run --no-f)"
	[ "$(complete_words uie policy compile --mode m)" = measure ] || fail "completion of --mode"
else
	echo "no bash-completion: completion not exercised"
fi

# --- the packaged start: as root, as the unit does, as the sysusers user ----
if [ "$(id -u)" = 0 ] && command -v systemd-sysusers > /dev/null; then
	systemd-sysusers "$sysusers" || fail "systemd-sysusers on this system"
	chmod 755 "$T"
	"$monitord" --foreground --user uie-monitor --syslog none --socket "$T/run/monitor.sock" --state-dir "$T/state" \
		--vtpm "builtin:$T/state/ak.pem" --ready-fd 3 3> "$T/ready" 2> "$T/monitord.log" &
	MON_PID=$!
	for _ in $(seq 100); do grep -q READY "$T/ready" 2>/dev/null && break; sleep 0.1; done
	grep -q READY "$T/ready" || { cat "$T/monitord.log" >&2; fail "installed monitor did not start"; }
	"$uie" status --socket "$T/run/monitor.sock" | grep -q '^mode: BOOTSTRAP$' ||
		fail "installed uie status against the installed monitor"
	[ "$(ps -o user= -p "$MON_PID")" = uie-monitor ] || fail "monitor does not run as uie-monitor"
fi
echo "PASS: installed tree complete ($(find "$D" -type f | wc -l) files)"
