#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# Approved code stays what was measured (issue 18).  Each attack first runs
# natively, where it must gain (or the test says why it cannot apply), then
# under ENFORCE, where it must be refused, or, for a write to a mapped file
# (which cannot be refused), its WRITE_VIOLATION record must exist before the
# write proceeds and the mapping process be dead.  Also: a rename over a
# mapped file (how dpkg upgrades) is no violation, the seal of a file nobody
# maps any more goes, and a file that cannot be sealed is refused.
. "$(dirname "$0")/lib.sh"
P=$PROGS
LIB=$P/libuiegood.so

# lease_of FILE: the /proc/locks line of a lease on FILE's inode, if any.
lease_of() { grep -E "LEASE .* [0-9a-f]+:[0-9a-f]+:$(stat -c %i "$1") " /proc/locks; }

note "the kernel: a read lease makes an open for writing wait and tells the holder"
cp "$LIB" "$T/probe.so"
python3 - "$T/probe.so" <<'PY' || fail "read leases do not work here (on $(stat -f -c %T "$T")): sealing cannot be tested"
import fcntl, os, signal, subprocess, sys, time
F_SETLEASE, F_GETLEASE = 1024, 1025
got = []
signal.signal(signal.SIGIO, lambda *a: got.append(1))
fd = os.open(sys.argv[1], os.O_RDONLY)
fcntl.fcntl(fd, F_SETLEASE, fcntl.F_RDLCK)
w = subprocess.Popen(["sh", "-c", 'exec 3>>"$0"', sys.argv[1]])
time.sleep(0.3)
assert w.poll() is None, "the writer did not wait for the lease"
assert got, "no SIGIO"
fcntl.fcntl(fd, F_SETLEASE, fcntl.F_UNLCK)
assert w.wait(5) == 0
PY

note "each attack gains natively"
for m in copy wx wxprot; do native "execmod $m" "$P/execmod" $m "$LIB"; done
native "execmod race" "$P/execmod" race "$LIB" 3
for m in shared writerun race; do
	cp "$LIB" "$T/n-$m.so"
	native "sealattack $m" "$P/sealattack" $m "$T/n-$m.so" 3
done
# On overlayfs the mapping maps the file of a layer, written here beside the
# overlay: in the lower layer; in the upper one after a copy-up made before
# the grant; after a copy-up between two grants (the second maps the copy);
# in the lower layer, with a decoy (same bytes, size and times) put in the
# upper layer once the overlay had looked the file up in the lower one.
mkdir "$T/ovl" "$T/ovl/l" "$T/ovl/u" "$T/ovl/w" "$T/ovlm" # (e2e_cleanup unmounts $T/*)
for f in n-lower n-upper n-copyup n-race n-decoy lower upper copyup race decoy; do cp "$LIB" "$T/ovl/l/$f.so"; done
ovl_applies=0
if mount -t overlay -o "lowerdir=$T/ovl/l,upperdir=$T/ovl/u,workdir=$T/ovl/w" ovl "$T/ovlm"; then
	ovl_applies=1
	chmod 755 "$T/ovlm/n-upper.so" "$T/ovlm/upper.so" # copied up
	[ -e "$T/ovl/u/upper.so" ] || fail "chmod on overlayfs copied nothing up"
	for f in n-decoy decoy; do
		stat "$T/ovlm/$f.so" >/dev/null # looked up: the overlay keeps the lower file
		cp -p "$T/ovl/l/$f.so" "$T/ovl/u/$f.so"
	done
	native "sealattack shared (overlay, lower layer)" "$P/sealattack" shared "$T/ovlm/n-lower.so" 3 "$T/ovl/l/n-lower.so"
	native "sealattack writerun (overlay, upper layer)" "$P/sealattack" writerun "$T/ovlm/n-upper.so" 3 \
		"$T/ovl/u/n-upper.so"
	native "sealattack copyup (overlay)" "$P/sealattack" copyup "$T/ovlm/n-copyup.so" 3 "$T/ovl/u/n-copyup.so"
	native "sealattack race (overlay, lower layer)" "$P/sealattack" race "$T/ovlm/n-race.so" 3 "$T/ovl/l/n-race.so"
	native "sealattack writerun (overlay, lower layer, a decoy above)" "$P/sealattack" writerun \
		"$T/ovlm/n-decoy.so" 3 "$T/ovl/l/n-decoy.so"
else
	note "no overlayfs here: the layer attacks cannot apply"
fi

# heldmap needs pre-content events (Linux 6.14) to hold a granted mmap back.
HOLD=${UIE_HOLD_SECONDS:-3}
cp "$LIB" "$T/n-held.so"
"$P/heldmap" "$T/n-held.so" 1 >"$T/native.out" 2>&1
case $? in
10) held_applies=1 ;;
3) held_applies=0; note "heldmap cannot apply: $(cat "$T/native.out")" ;;
*) fail "heldmap natively: $(cat "$T/native.out")" ;;
esac
if [ "$held_applies" = 1 ]; then
	cp "$LIB" "$T/n-decoy.so"
	native "heldmap decoy" "$P/heldmap" "$T/n-decoy.so" 1 decoy
	cp "$LIB" "$T/n-crowd.so"
	"$P/heldmap" "$T/n-crowd.so" crowd >"$T/native.out" 2>&1 && grep -q "crowd: 0 of 140" "$T/native.out" ||
		fail "heldmap crowd natively: $(cat "$T/native.out")"
	cp "$LIB" "$T/n-other.so" && cp "$LIB" "$T/n-other2.so"
	"$P/heldmap" "$T/n-other.so" 1 other "$T/n-other2.so" >"$T/native.out" 2>&1 &&
		grep -q "REFUSED the approved code ran" "$T/native.out" ||
		fail "heldmap other natively: $(cat "$T/native.out")"
fi

for how in alone thread; do
	cp "$LIB" "$T/n-spin-$how.so"
	"$P/spinmap" "$T/n-spin-$how.so" $how >"$T/native.out" 2>&1 && grep -q "outlived the write" "$T/native.out" ||
		fail "spinmap $how natively: $(cat "$T/native.out")"
done

gen_key
start_runtime_monitor --trust-key "$T/pub.pem"
install_policy enforce "$P/execmod" "$P/sealattack" "$P/heldmap" "$P/mapwait" "$P/spinmap" /bin/sh /usr/bin/sleep "$LIB"
"$UIE" status --socket "$SOCK" | grep -q 'mode: ENFORCE' || fail "policy not in force"

note "ENFORCE: no execmod, no writable and executable file mapping"
for m in copy wx wxprot; do
	run_uie -- "$P/execmod" $m "$LIB"
	expect_rc 0 "execmod $m"
	expect_out REFUSED "execmod $m"
	expect_err "refused by the monitor: pages a write copied" "execmod $m (its reason)"
done
note "ENFORCE: a thread writes while the grant is checked"
run_uie -- "$P/execmod" race "$LIB" "${UIE_RACE_SECONDS:-3}"
expect_rc 0 "execmod race"
expect_out REFUSED "execmod race"
note "$OUT"
rc=$(verify_rc execmod)
[ "$rc" = 0 ] || { cat "$T/execmod.out" >&2; fail "evidence with execmod refusals: exit $rc"; }
grep -q "execmod: .* requests refused" "$T/execmod.out" ||
	{ cat "$T/execmod.out" >&2; fail "verify does not name the execmod refusals"; }

# sealed MODE FILE [WRITTEN]: the attack under ENFORCE (the writer opens
# WRITTEN, FILE by default): the victim dies before the write, after the
# monitor logged it; the evidence is refused, naming that record.
sealed() {
	run_uie -- "$P/sealattack" "$1" "$2" 3 "${3:-$2}"
	expect_rc 137 "sealattack $1 (the mapping process is killed)"
	expect_err "killed pid .*$2, which it maps executable, is being opened for writing" "sealattack $1"
	seq=$(echo "$ERR" | sed -n "s|^uie: violation: $2, mapped executable by pid .* (record \([0-9]*\))$|\1|p")
	[ -n "$seq" ] || { show; fail "sealattack $1: no violation logged"; }
	rc=$(verify_rc "$1")
	[ "$rc" = 22 ] || { cat "$T/$1.out" >&2; fail "sealattack $1: verify exit $rc, want 22"; }
	grep -q "first record at fault: $seq$" "$T/$1.out" ||
		{ cat "$T/$1.out" >&2; fail "sealattack $1: verify does not name record $seq"; }
}
note "ENFORCE: a shared writable mapping of a copy in $T, made after the grant"
cp "$LIB" "$T/shared.so"
sealed shared "$T/shared.so"

# restart: a fresh log, whose first record at fault is the next attack's.
restart() {
	stop_monitor
	start_runtime_monitor --trust-key "$T/pub.pem"
	install_policy enforce "$P/execmod" "$P/sealattack" "$P/heldmap" "$P/mapwait" "$P/spinmap" /bin/sh \
		/usr/bin/sleep "$LIB"
}

note "ENFORCE: write, run and exit within a millisecond"
restart
cp "$LIB" "$T/writerun.so"
sealed writerun "$T/writerun.so"

if [ "$ovl_applies" = 1 ]; then
	note "ENFORCE: overlayfs, the lower layer's file written beside the overlay"
	restart
	sealed shared "$T/ovlm/lower.so" "$T/ovl/l/lower.so"
	note "ENFORCE: overlayfs, the upper layer's file (copied up before the grant) written beside it"
	restart
	sealed writerun "$T/ovlm/upper.so" "$T/ovl/u/upper.so"
	note "ENFORCE: overlayfs, copied up between two grants, the copy written beside it"
	restart
	sealed copyup "$T/ovlm/copyup.so" "$T/ovl/u/copyup.so"
	note "ENFORCE: overlayfs, the lower layer's file written, a decoy with its bytes and times above it"
	restart
	sealed writerun "$T/ovlm/decoy.so" "$T/ovl/l/decoy.so"
	# Its layer directory moved after the mount: the layer's file is not found
	# where the mount table says, so the grant cannot be sealed.
	note "ENFORCE: overlayfs whose lower layer moved: refused as unsealable"
	mkdir "$T/ovl2" "$T/ovl2/l" "$T/ovl2/u" "$T/ovl2/w" "$T/ovlm2"
	cp "$LIB" "$T/ovl2/l/moved.so"
	mount -t overlay -o "lowerdir=$T/ovl2/l,upperdir=$T/ovl2/u,workdir=$T/ovl2/w" ovl "$T/ovlm2" ||
		fail "a second overlay mount"
	mv "$T/ovl2/l" "$T/ovl2/elsewhere"
	rm -f "$T/ready" && touch "$T/go"
	run_uie -- "$P/mapwait" "$T/ovlm2/moved.so" "$T/ready" "$T/go"
	expect_rc 1 "overlay layer moved"
	expect_err "denied mmap of $T/ovlm2/moved.so.*cannot be sealed against writes" "overlay layer moved"
fi

# A grant whose call the kernel has not finished counts as a mapping however
# long it takes (HOLD: longer than the 2 s after which it did not before).
if [ "$held_applies" = 1 ]; then
	note "ENFORCE: a granted mmap held back ${HOLD} s by another fanotify group, the file rewritten meanwhile"
	cp "$LIB" "$T/held.so"
	run_uie -- "$P/heldmap" "$T/held.so" "$HOLD"
	expect_rc 0 "heldmap"
	expect_out "REFUSED the victim was killed before the write" "heldmap"
	expect_err "killed pid .*$T/held.so, which it maps executable, is being opened for writing" "heldmap"
	expect_err "uie: violation: $T/held.so, mapped executable by pid .* (record [0-9]*)" "heldmap (its record)"
	# Every grant whose call may be unfinished counts, not only the file's latest.
	note "ENFORCE: the same, and a decoy maps and unmaps the file while the victim's mmap is held"
	cp "$LIB" "$T/decoy.so"
	run_uie -- "$P/heldmap" "$T/decoy.so" "$HOLD" decoy
	expect_rc 0 "heldmap decoy"
	expect_out "REFUSED the victim was killed before the write" "heldmap decoy"
	expect_err "uie: violation: $T/decoy.so, mapped executable by pid .* (record [0-9]*)" "heldmap decoy (its record)"
	# More unfinished grants of one file than are kept track of: the rest refused.
	note "ENFORCE: 140 processes' mmaps of one file held at once"
	cp "$LIB" "$T/crowd.so"
	run_uie -- "$P/heldmap" "$T/crowd.so" crowd
	expect_rc 0 "heldmap crowd"
	expect_out "crowd: 12 of 140 mmaps refused" "heldmap crowd (128 kept track of)"
	expect_err "128 grants of the file are in calls not yet finished" "heldmap crowd (the reason)"
	# A grant's call is told by its arguments: the same thread in its next mmap
	# (held, of another file) is no mapper of the file it unmapped.
	note "ENFORCE: the victim maps and unmaps the file, its next mmap (another file) held while the file is rewritten"
	cp "$LIB" "$T/other.so" && cp "$LIB" "$T/other2.so"
	run_uie -- "$P/heldmap" "$T/other.so" "$HOLD" other "$T/other2.so"
	expect_rc 0 "heldmap other"
	expect_out "REFUSED the approved code ran" "heldmap other (not killed)"
	echo "$ERR" | grep -q "violation\|killed" && { show; fail "heldmap other: a finished grant taken for a mapper"; }
fi

# A thread that is on a CPU when the file is written may be in user space or in
# its call; it is stopped for a moment to tell, and one whose grant is over
# (the file unmapped) is no mapper, whether it computes alone or beside another.
for how in alone thread; do
	note "ENFORCE: a thread maps and unmaps the file, then computes while the file is rewritten ($how)"
	cp "$LIB" "$T/spin-$how.so"
	run_uie -- "$P/spinmap" "$T/spin-$how.so" $how
	expect_rc 0 "spinmap $how"
	expect_out "outlived the write" "spinmap $how"
	echo "$ERR" | grep -q "violation\|killed" && { show; fail "spinmap $how: a finished grant of a computing thread taken for a mapper"; }
done

# raced FILE [WRITTEN]: grants of FILE racing a writer that keeps opening
# WRITTEN (FILE by default) under ENFORCE: each grant refused or the victim
# killed after its record; the payload never runs.
raced() {
	run_uie -- "$P/sealattack" race "$1" "${UIE_RACE_SECONDS:-3}" "${2:-$1}"
	case $RC in
	0) expect_out REFUSED "sealattack race $1" ;; # every grant met a writer
	137) expect_err "uie: violation: $1, mapped executable by pid .* (record [0-9]*)" \
		"sealattack race $1 (killed: its record)" ;;
	*) show; fail "sealattack race $1: exit $RC, want 0 or 137" ;;
	esac
	note "$(echo "$OUT" | head -1) (exit $RC)"
}
note "ENFORCE: grants racing a writer that keeps opening the file"
cp "$LIB" "$T/race.so"
raced "$T/race.so"
if [ "$ovl_applies" = 1 ]; then
	note "ENFORCE: grants of an overlayfs file racing a writer of its lower layer's file"
	raced "$T/ovlm/race.so" "$T/ovl/l/race.so"
fi

note "ENFORCE: a rename over a mapped file (dpkg's upgrade) is no violation"
nviol=$(grep -c 'write violation' "$T/monitord.log")
cp "$LIB" "$T/up.so"
rm -f "$T/ready" "$T/go"
"$UIE" run --socket "$SOCK" -- "$P/mapwait" "$T/up.so" "$T/ready" "$T/go" >"$T/out" 2>"$T/err" &
upid=$!
wait_file "$T/ready" || { cat "$T/err" >&2; fail "the mapping was not granted"; }
lease_of "$T/up.so" >/dev/null || fail "the granted file is not sealed"
cp "$P/libuiedso2.so" "$T/up.so.new" && mv -f "$T/up.so.new" "$T/up.so" || fail "rename"
touch "$T/go"
wait $upid || { cat "$T/err" >&2; fail "mapwait did not survive the upgrade"; }
grep -q "violation\|killed" "$T/err" && { cat "$T/err" >&2; fail "the upgrade was taken for a violation"; }

note "ENFORCE: the seal goes with the last executable mapping"
cp "$LIB" "$T/gone.so"
rm -f "$T/ready" "$T/go" "$T/go2"
"$UIE" run --socket "$SOCK" -- /bin/sh -c "'$P/mapwait' '$T/gone.so' '$T/ready' '$T/go'; \
	while [ ! -e '$T/go2' ]; do sleep 0.1; done" >"$T/out" 2>"$T/err" &
upid=$!
wait_file "$T/ready" || { cat "$T/err" >&2; fail "the mapping was not granted (gone)"; }
lease_of "$T/gone.so" >/dev/null || fail "the granted file is not sealed (gone)"
touch "$T/go"
for _ in $(seq 100); do lease_of "$T/gone.so" >/dev/null || break; sleep 0.1; done
lease=$(lease_of "$T/gone.so")
touch "$T/go2"
wait $upid
[ -z "$lease" ] || fail "the seal outlived the mapping: $lease"
[ "$(grep -c 'write violation' "$T/monitord.log")" = "$nviol" ] ||
	{ cat "$T/monitord.log" >&2; fail "the upgrade or the unmapping was logged as a violation"; }

note "ENFORCE: a file that cannot be sealed is refused with its own reason"
cp "$LIB" "$T/unsealable.so"
chown 12345 "$T/unsealable.so"
rm -f "$T/ready" "$T/go"
touch "$T/go"
# Without CAP_LEASE, root may lease only the files it owns.
setpriv --bounding-set -lease "$UIE" run --socket "$SOCK" -- "$P/mapwait" "$T/unsealable.so" "$T/ready" "$T/go" \
	>"$T/out" 2>"$T/err"
RC=$?; OUT=$(cat "$T/out"); ERR=$(cat "$T/err")
expect_rc 1 "unsealable file"
expect_err "denied mmap of $T/unsealable.so.*cannot be sealed against writes" "unsealable file"
stop_monitor

note "MEASURE: write, run and exit: the record precedes the write"
start_runtime_monitor --trust-key "$T/pub.pem"
install_policy measure "$P/sealattack" "$LIB"
cp "$LIB" "$T/measured.so"
run_uie -- "$P/sealattack" writerun "$T/measured.so"
expect_rc 10 "MEASURE lets the write through"
seq=$(echo "$ERR" | sed -n "s|^uie: violation: $T/measured.so, mapped executable by pid .* (record \([0-9]*\))$|\1|p")
[ -n "$seq" ] || { show; fail "MEASURE: no violation logged"; }
rc=$(verify_rc measured)
[ "$rc" = 22 ] || { cat "$T/measured.out" >&2; fail "MEASURE writerun: verify exit $rc, want 22"; }
grep -q "first record at fault: $seq$" "$T/measured.out" ||
	{ cat "$T/measured.out" >&2; fail "MEASURE writerun: verify does not name record $seq"; }

# A file granted unsealed has only the write watch, which sees the write
# after it happened: a grant whose mmap is still held counts there too.
if [ "$held_applies" = 1 ]; then
	note "MEASURE: a granted mmap of a file that cannot be sealed held back, the file rewritten meanwhile"
	cp "$LIB" "$T/uheld.so"
	chown 12345 "$T/uheld.so"
	setpriv --bounding-set -lease "$UIE" run --socket "$SOCK" -- "$P/heldmap" "$T/uheld.so" "$HOLD" \
		>"$T/out" 2>"$T/err"
	RC=$?; OUT=$(cat "$T/out"); ERR=$(cat "$T/err")
	expect_rc 10 "MEASURE lets the held unsealed mapping run the write"
	expect_err "uie: violation: $T/uheld.so, mapped executable by pid .* (record [0-9]*)" "MEASURE unsealed heldmap (its record)"
fi
echo PASS
