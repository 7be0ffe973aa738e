#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# A monitor refused over its state directory changes nothing (issue 28): a
# second monitor on a directory in use, a directory that is not ours alone,
# a damaged log, and a directory whose parent is missing are refused before
# the vTPM key, its clock file or the socket are touched, and no missing
# parent of a state path is created.
# Environment from meson: UIE, UIE_MONITORD.
set -u

. "$(dirname "$0")/../common.sh"
e2e_start uie-statedir UIE UIE_MONITORD

# refused NAME STATE-DIR: a monitor over STATE-DIR with its own socket and
# vTPM key in $T/NAME.* must exit 1 having created neither.
refused() {
	local name=$1 dir=$2
	"$UIE_MONITORD" --foreground --socket "$T/$name.sock" --vtpm "builtin:$T/$name.ak.pem" \
		--state-dir "$dir" --log-file "$T/$name.log" && fail "$name: the monitor started"
	[ -e "$T/$name.sock" ] && fail "$name: a socket was left"
	[ -e "$T/$name.ak.pem" ] && fail "$name: an AK was made"
	[ -e "$T/$name.ak.pem.clock" ] && fail "$name: a vTPM clock file was made"
	return 0
}

note "a second monitor on a state directory in use"
start_monitor "$UIE_MONITORD" "$T/s1" "builtin:$T/ak.pem" || fail "first monitor"
cp "$T/ak.pem.clock" "$T/clock.before" || fail "no vTPM clock file"
ls "$T/state" > "$T/state.before"
"$UIE_MONITORD" --foreground --socket "$T/s2" --vtpm "builtin:$T/ak.pem" --state-dir "$T/state" \
	--log-file "$T/second.log" && fail "two monitors on one state directory"
grep -q "state directory $T/state: in use by another monitor" "$T/second.log" ||
	{ cat "$T/second.log" >&2; fail "no reason for the refusal"; }
cmp -s "$T/clock.before" "$T/ak.pem.clock" || fail "the second monitor rewrote the running one's clock file"
[ -e "$T/s2" ] && fail "the second monitor left its socket"
ls "$T/state" | cmp -s - "$T/state.before" || fail "the second monitor changed the state directory"
"$UIE" status --socket "$T/s1" >/dev/null || fail "the first monitor no longer answers"
refused second "$T/state"
stop_monitor || fail "first monitor's exit status"

note "a state directory writable by others, a damaged log"
mkdir "$T/open" && chmod 777 "$T/open"
refused open "$T/open"
grep -q "$T/open: not a directory of ours" "$T/open.log" || fail "open directory not named"
mkdir -m 700 "$T/damaged" && head -c 100 /dev/urandom > "$T/damaged/log.1"
refused damaged "$T/damaged"
grep -q "$T/damaged/log.1" "$T/damaged.log" || fail "damaged log not named"
[ -e "$T/damaged/log.2" ] || [ -e "$T/damaged/log.2.tmp" ] && fail "a new run started over a damaged log"

note "a state directory whose parent is missing: nothing is created on the way"
gone=/nonexist-uie-statedir-$$
refused missing "$gone/st"
[ -e "$gone" ] && { rmdir "$gone/st" "$gone" 2>/dev/null; fail "the monitor created $gone"; }
grep -q "state directory $gone/st: cannot create it: No such file or directory" "$T/missing.log" ||
	{ cat "$T/missing.log" >&2; fail "missing parent not named"; }

echo "uie-statedir: all checks passed"
