#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# A package upgrade of a library that a running supervised program maps
# (issue 18): dpkg replaces the file by rename, so under ENFORCE nothing may
# be killed or recorded as a write violation.  The TTP makes the policy
# before the upgrade from the new .deb itself (`uie ref scan --deb`, old and
# new digests, docs/POLICY.md 4.1); dpkg runs supervised too.  Afterwards the
# new library is granted, the old mapping lived on, and the evidence
# verifies; with a policy that lacks the new digest the new library is
# refused.  Packages are installed into a root of the test's own
# (dpkg --root), never into the machine's.
. "$(dirname "$0")/lib.sh"
P=$PROGS
R=$T/root
LIB=$R/usr/lib/uie-test/libuietest.so

# make_deb VERSION SO: $T/vVERSION.deb holding SO as $LIB.
make_deb() {
	local d=$T/pkg$1
	mkdir -p "$d/DEBIAN" "$d/usr/lib/uie-test"
	cp "$2" "$d/usr/lib/uie-test/libuietest.so"
	printf 'Package: uie-test-lib\nVersion: %s\nArchitecture: all\nMaintainer: PS-UIE tests <root@localhost>\nDescription: a library for the upgrade test\n' \
		"$1" >"$d/DEBIAN/control"
	dpkg-deb --root-owner-group -b "$d" "$T/v$1.deb" >/dev/null || fail "dpkg-deb -b v$1"
}
command -v dpkg-deb >/dev/null || fail "dpkg-deb not found: the test needs Debian's dpkg"
make_deb 1 "$P/libuiegood.so"
make_deb 2 "$P/libuiedso2.so"
mkdir -p "$R/var/lib/dpkg/info" "$R/var/lib/dpkg/updates" "$R/var/lib/dpkg/triggers"
touch "$R/var/lib/dpkg/status"
dpkg --root="$R" -i "$T/v1.deb" >"$T/dpkg.out" 2>&1 || { cat "$T/dpkg.out" >&2; fail "dpkg -i v1 (unsupervised)"; }

note "natively: dpkg replaces the mapped file by rename, the mapping's inode stays"
ino=$(stat -c %i "$LIB")
dpkg --root="$R" -i "$T/v2.deb" >"$T/dpkg.out" 2>&1 || { cat "$T/dpkg.out" >&2; fail "dpkg -i v2 (native)"; }
[ "$(stat -c %i "$LIB")" != "$ino" ] || fail "dpkg wrote the old inode instead of renaming over it"
dpkg --root="$R" -i "$T/v1.deb" >"$T/dpkg.out" 2>&1 || { cat "$T/dpkg.out" >&2; fail "dpkg -i v1 (back)"; }
cmp -s "$LIB" "$P/libuiegood.so" || fail "the downgrade to v1 did not restore the old library"

gen_key
start_runtime_monitor --trust-key "$T/pub.pem"
DPKG=(/usr/bin/dpkg /usr/bin/dpkg-deb /usr/bin/dpkg-split /usr/bin/tar /usr/bin/rm)
note "the TTP's next epoch, made from v2.deb before the upgrade: old and new digests"
"$UIE" ref scan --deb "$T/v2.deb" >"$T/extra" 2>"$T/scan.err" || { cat "$T/scan.err" >&2; fail "ref scan --deb"; }
install_policy enforce "$P/mapwait" "${DPKG[@]}" "$LIB"
"$UIE" status --socket "$SOCK" | grep -q 'mode: ENFORCE' || fail "policy not in force"
cp "$T/pkg" "$T/epoch1.pkg"
nviol=$(grep -c 'write violation' "$T/monitord.log")

note "ENFORCE: a supervised program maps the library, dpkg -i (supervised) upgrades it"
rm -f "$T/ready" "$T/go"
"$UIE" run --socket "$SOCK" -- "$P/mapwait" "$LIB" "$T/ready" "$T/go" >"$T/map.out" 2>"$T/map.err" &
mpid=$!
wait_file "$T/ready" || { cat "$T/map.err" >&2; fail "the old library was not granted"; }
grep -qE "LEASE .* [0-9a-f]+:[0-9a-f]+:$(stat -c %i "$LIB") " /proc/locks || fail "the granted library is not sealed"
run_uie -- /usr/bin/dpkg --root="$R" -i "$T/v2.deb"
expect_rc 0 "dpkg -i under ENFORCE"
expect_out "Setting up uie-test-lib (2)" "dpkg -i under ENFORCE"
cmp -s "$LIB" "$P/libuiedso2.so" || fail "the upgrade did not install the new library"
echo "$ERR" | grep -q "violation\|killed\|denied" && { show; fail "dpkg's upgrade was refused or taken for a violation"; }
touch "$T/go"
wait $mpid
mrc=$?
[ "$mrc" = 0 ] || { cat "$T/map.err" >&2; fail "the program mapping the old library did not survive the upgrade: exit $mrc"; }
grep -q "violation\|killed" "$T/map.err" && { cat "$T/map.err" >&2; fail "the upgrade was taken for a violation"; }
[ "$(grep -c 'write violation' "$T/monitord.log")" = "$nviol" ] ||
	{ cat "$T/monitord.log" >&2; fail "the monitor logged the upgrade as a write violation"; }

note "ENFORCE: the new library is granted"
touch "$T/go"
run_uie -- "$P/mapwait" "$LIB" "$T/ready" "$T/go"
expect_rc 0 "the new library under the epoch holding its digest"
rc=$(verify_rc upgraded)
[ "$rc" = 0 ] || { cat "$T/upgraded.out" >&2; fail "the evidence of the upgrade: verify exit $rc, want 0"; }

note "ENFORCE: an epoch without the new digest refuses the new library, the rest runs on"
rm -f "$T/extra"
install_policy enforce "$P/mapwait" "${DPKG[@]}" "$P/libuiegood.so"
run_uie -- "$P/mapwait" "$LIB" "$T/ready" "$T/go"
expect_rc 1 "the new library under an epoch without its digest"
expect_err "denied mmap of $LIB.*(record [0-9]*)" "the new library under an epoch without its digest (its record)"
run_uie -- /usr/bin/dpkg-deb --info "$T/v2.deb"
expect_rc 0 "dpkg-deb still runs under the epoch without the new digest"
nonce=$(od -An -tx1 -N16 /dev/urandom | tr -d ' \n')
"$UIE" evidence export --socket "$SOCK" --nonce "$nonce" -o "$T/refused.ae" --pubkey-out "$T/ak.pub" >/dev/null ||
	fail "export (refused)"
"$UIE" verify "$T/refused.ae" --nonce "$nonce" --ak-pub "$T/ak.pub" --policy "$T/epoch1.pkg" --policy "$T/pkg" \
	>"$T/refused.out" 2>&1
rc=$?
[ "$rc" = 0 ] || { cat "$T/refused.out" >&2; fail "the evidence with the refusal: verify exit $rc, want 0"; }
# Every decision, the refusal among them, replayed against the epoch it was made under.
grep -q "decisions: [1-9][0-9]* checked against the policy, 0 in epochs without a --policy" "$T/refused.out" ||
	{ cat "$T/refused.out" >&2; fail "verify did not check every decision against the two epochs"; }
echo PASS
