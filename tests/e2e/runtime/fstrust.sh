#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# Sources of granted files (issue 18, items 3 and 4; docs/THREAT-MODEL.md,
# "Writes to code").  A file on a file system that can change without a local
# write (here FUSE: bindfs) is refused under ENFORCE with reason REMOTE_FS
# unless the policy trusts the kind (trust_fs=); the 6.1 guest's own root
# (virtiofs) likewise.  Immutable files (a read-only mount the tree cannot
# remount; fs-verity, in the 6.1 guest) are granted without a lease, and a
# policy with require=immutable refuses every other file (reason MUTABLE).
# Each refused grant first works natively.
. "$(dirname "$0")/lib.sh"
P=$PROGS
LIB=$P/libuiegood.so
LDSO=$(readlink -f /lib64/ld-linux-x86-64.so.2)

# lease_on FILE: the /proc/locks line of a lease on FILE (device and inode), if any.
lease_on() {
	local id
	id=$(printf '%02x:%02x:%d' "$(stat -c %Hd "$1")" "$(stat -c %Ld "$1")" "$(stat -c %i "$1")")
	grep -E " LEASE .* $id " /proc/locks
}

# mapped_lease LIB: runs mapwait on LIB under uie run until it is mapped, prints
# the lease on LIB then (empty: none), and lets it exit.
mapped_lease() {
	local pid
	rm -f "$T/ready" "$T/go"
	"$UIE" run --socket "$SOCK" -- "$P/mapwait" "$1" "$T/ready" "$T/go" >"$T/out" 2>"$T/err" &
	pid=$!
	wait_file "$T/ready" || { cat "$T/err" >&2; fail "mapwait $1 was not granted"; }
	lease_on "$1"
	touch "$T/go"
	wait $pid || { cat "$T/err" >&2; fail "mapwait $1 failed"; }
}

# mapwait_rc LIB: exit status of mapwait mapping LIB under uie run (0 granted, 1 refused).
mapwait_rc() {
	touch "$T/go"
	run_uie -- "$P/mapwait" "$1" "$T/ready" "$T/go"
}

# via_ldso DIR LIB: mapwait copied into DIR run by DIR's copy of ld.so with DIR's
# libraries (every file the process maps is then DIR's), mapping LIB.
via_ldso() {
	touch "$T/go"
	run_uie -- "$1/ld.so" --library-path "$1" "$1/mapwait" "$2" "$T/ready" "$T/go"
}

# ldso_extra DIR: manifest lines that let DIR/ld.so run as a program and map
# DIR/mapwait (docs/POLICY.md: ld.so is an INTERP, a program a MAIN otherwise).
ldso_extra() {
	"$UIE" ref scan "$1/ld.so" "$1/mapwait" 2>/dev/null |
		sed -n 's|^role=INTERP \(.*/ld.so\)$|role=MAIN \1|p; s|^role=MAIN \(.*/mapwait\)$|role=DSO \1|p'
}

# fill DIR: the copies via_ldso needs, and lib.so.
fill() {
	cp "$LDSO" "$1/ld.so" && cp "$P/mapwait" "$LIB" "$1/" && mv "$1/libuiegood.so" "$1/lib.so" &&
		ldd "$P/mapwait" | awk '/=> \// { print $3 }' | xargs -r cp -t "$1" || fail "copies into $1"
}

gen_key
start_runtime_monitor --trust-key "$T/pub.pem"

note "FUSE (bindfs): natively the library maps"
command -v bindfs >/dev/null || fail "no bindfs (scripts/install-deps installs it): the FUSE part cannot run"
mkdir "$T/src" "$T/fuse"
cp "$LIB" "$T/src/lib.so"
bindfs "$T/src" "$T/fuse" || fail "bindfs mount (is /dev/fuse there?)"
findmnt -n -o FSTYPE "$T/fuse" | grep -q '^fuse' || fail "bindfs mounted no FUSE file system"
touch "$T/go"
"$P/mapwait" "$T/fuse/lib.so" "$T/ready" "$T/go" || fail "mapwait of a file on FUSE natively"

note "ENFORCE: a file on FUSE is refused with its own reason unless the policy trusts FUSE"
install_policy enforce "$P/mapwait" "$LIB"
mapwait_rc "$T/fuse/lib.so"
expect_rc 1 "a library on FUSE, policy without trust_fs=fuse"
expect_err "refused by the monitor: the file is on a file system the policy does not trust" \
	"a library on FUSE (its reason)"
mapwait_rc "$T/src/lib.so"
expect_rc 0 "the same library on a local file system"
rc=$(verify_rc remote)
[ "$rc" = 0 ] || { cat "$T/remote.out" >&2; fail "evidence with REMOTE_FS refusals: exit $rc"; }
grep -q "remote fs: 1 grants refused" "$T/remote.out" ||
	{ cat "$T/remote.out" >&2; fail "verify does not count the REMOTE_FS refusal"; }
POLICY_ARGS="--trust-fs fuse" install_policy enforce "$P/mapwait" "$LIB"
"$UIE" policy show --json "$T/table" 2>/dev/null |
	python3 -c 'import json, sys; sys.exit("fuse" not in json.load(sys.stdin)["trust_fs"])' ||
	fail "the compiled policy does not name fuse"
mapwait_rc "$T/fuse/lib.so"
expect_rc 0 "a library on FUSE, policy with trust_fs=fuse"
umount "$T/fuse" || fail "umount of the FUSE mount"

note "the root file system: $(findmnt -n -o FSTYPE /)"
if [ -n "$TRUST_FS" ]; then
	# The 6.1 guest: every test policy trusts the root's kind by name; without it nothing runs.
	TRUST_FS= install_policy enforce /usr/bin/true
	run_uie -- /usr/bin/true
	expect_rc 126 "a program on the root ($TRUST_FS not in the policy)"
	expect_err "the file is on a file system the policy does not trust" "the root, untrusted"
	install_policy enforce /usr/bin/true
	run_uie -- /usr/bin/true
	expect_rc 0 "a program on the root, policy with $TRUST_FS"
else
	note "the root is local: the refusal of an untrusted root shows in the 6.1 guest (virtiofs)"
fi

note "a read-only mount the tree cannot remount: no lease; require=immutable"
mkdir "$T/ro" "$T/rw"
mount -t tmpfs -o size=64m tmpfs "$T/ro" || fail "tmpfs"
fill "$T/ro"
fill "$T/rw"
mount -o remount,ro "$T/ro" || fail "remount read-only"
"$T/ro/ld.so" --library-path "$T/ro" "$T/ro/mapwait" "$T/ro/lib.so" "$T/ready" "$T/go" ||
	fail "mapwait through ld.so natively"
install_policy enforce "$P/mapwait" "$T/ro/lib.so" /bin/sh /usr/bin/sleep
[ -z "$(mapped_lease "$T/ro/lib.so")" ] || fail "a file on a read-only mount was leased"
[ -n "$(mapped_lease "$T/rw/lib.so")" ] || fail "a file on a writable mount was not leased"
note "the interceptor's view of the mount table follows a remount of the superblock"
# A read-only bind mount of the read-only file system: immutable while the
# superblock is read-only too, not once it is made writable through the other
# mount (the bind mount stays read-only, which fstatfs alone cannot tell apart).
mkdir "$T/robind"
mount --bind -o ro "$T/ro" "$T/robind" || fail "read-only bind mount"
rm -f "$T/ready" "$T/go" "$T/ready2" "$T/go2" "$T/remounted"
"$UIE" run --socket "$SOCK" -- /bin/sh -c "'$P/mapwait' '$T/robind/lib.so' '$T/ready' '$T/go' &&
	while [ ! -e '$T/remounted' ]; do sleep 0.05; done &&
	'$P/mapwait' '$T/robind/lib.so' '$T/ready2' '$T/go2'" >"$T/out" 2>"$T/err" &
pid=$!
wait_file "$T/ready" || { cat "$T/err" >&2; fail "the first grant from the read-only bind mount"; }
[ -z "$(lease_on "$T/robind/lib.so")" ] || fail "a file on a read-only mount of a read-only file system was leased"
touch "$T/go"
mount -o remount,rw "$T/ro" || fail "remount of the superblock read-write"
touch "$T/remounted"
wait_file "$T/ready2" || { cat "$T/err" >&2; fail "the grant after the remount"; }
lease=$(lease_on "$T/robind/lib.so")
touch "$T/go2"
wait $pid || { cat "$T/err" >&2; fail "mapwait twice around a remount"; }
[ -n "$lease" ] || fail "after the superblock was made writable the grant took no lease: a stale view of the mount table"
umount "$T/robind" || fail "umount of the bind mount"
mount -o remount,ro "$T/ro" || fail "remount read-only again"
ldso_extra "$T/ro" >"$T/extra"
ldso_extra "$T/rw" >>"$T/extra"
POLICY_ARGS=--require-immutable install_policy enforce "$T/ro/ld.so" "$T/ro/mapwait" "$T/ro/lib.so" \
	"$T/ro"/libc.so.* "$T/rw/ld.so" "$T/rw/mapwait" "$T/rw"/libc.so.*
rm -f "$T/extra"
via_ldso "$T/ro" "$T/ro/lib.so"
expect_rc 0 "require=immutable: everything from the read-only mount"
via_ldso "$T/ro" "$T/rw/lib.so"
expect_rc 1 "require=immutable: a library on a writable mount"
expect_err "refused by the monitor: the policy requires immutable sources" "require=immutable (its reason)"
via_ldso "$T/rw" "$T/rw/lib.so"
expect_rc 126 "require=immutable: a program on a writable mount"
run_uie --allow-mounts -- "$T/ro/ld.so" --library-path "$T/ro" "$T/ro/mapwait" "$T/ro/lib.so" \
	"$T/ready" "$T/go"
expect_rc 126 "require=immutable: a tree that may mount could remount the read-only mount"
rc=$(verify_rc mutable)
[ "$rc" = 0 ] || { cat "$T/mutable.out" >&2; fail "evidence with MUTABLE refusals: exit $rc"; }
grep -q "mutable: .* grants refused" "$T/mutable.out" ||
	{ cat "$T/mutable.out" >&2; fail "verify does not count the MUTABLE refusals"; }

note "fs-verity: no lease; require=immutable"
if [ ! -e /sys/fs/ext4/features/verity ]; then
	note "this kernel ($(uname -r)) has no fs-verity for ext4 (CONFIG_FS_VERITY): the part cannot apply here; it runs in the 6.1 guest"
	echo PASS
	exit 0
fi
command -v fsverity >/dev/null || fail "no fsverity (scripts/install-deps installs it)"
truncate -s 64M "$T/v.img"
mkfs.ext4 -q -b 4096 -O verity "$T/v.img" || fail "mkfs.ext4 -O verity"
mkdir "$T/verity"
mount -o loop "$T/v.img" "$T/verity" || fail "loop mount of the ext4 image"
fill "$T/verity"
cp "$T/verity/lib.so" "$T/verity/lib2.so"
for f in "$T/verity"/*; do
	[ -f "$f" ] || continue # lost+found
	fsverity enable "$f" || fail "fsverity enable $f"
done
install_policy enforce "$P/mapwait" "$T/verity/lib.so"
[ -z "$(mapped_lease "$T/verity/lib.so")" ] || fail "a file with fs-verity was leased"
# Another file with the same content: its cache key is the same fs-verity digest
# (test_cache_verity checks the key; nothing here can tell a hit from a miss).
mapwait_rc "$T/verity/lib2.so"
expect_rc 0 "a copy with fs-verity"
ldso_extra "$T/verity" >"$T/extra"
POLICY_ARGS=--require-immutable install_policy enforce "$T/verity/ld.so" "$T/verity/mapwait" \
	"$T/verity/lib.so" "$T/verity"/libc.so.* "$T/rw/lib.so"
rm -f "$T/extra"
via_ldso "$T/verity" "$T/verity/lib.so"
expect_rc 0 "require=immutable: everything with fs-verity"
via_ldso "$T/verity" "$T/rw/lib.so"
expect_rc 1 "require=immutable: a library without fs-verity"
expect_err "the policy requires immutable sources" "require=immutable, no fs-verity (its reason)"
umount "$T/verity"
echo PASS
