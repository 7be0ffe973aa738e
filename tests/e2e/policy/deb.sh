#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# `uie ref scan --deb FILE.deb` (docs/POLICY.md section 2): a package built
# here with dpkg-deb (xz, zstd, gzip, none) is measured without installing
# it, and gives exactly the digests and roles `uie ref scan` finds in the
# package's own tree (its programs, a library, an executable script, a GNU
# long name with bytes to encode), its maintainer scripts under
# /var/lib/dpkg/info/PACKAGE.SCRIPT; hard links are listed once. Corrupt
# packages (not an archive, truncated, a flipped byte in the compressed
# data, a corrupt tar header in an uncompressed data member) are named with
# what is wrong, exit 1 and leave no manifest.
# Environment from meson: UIE.
set -u

. "$(dirname "$0")/../common.sh"
e2e_start uie-ref-scan-deb UIE

note "a package with programs, a library, scripts and a long name"
P=$T/pkg
long="usr/share/uie-test/$(printf 'd%.0s' $(seq 120))/a b%c.sh"
mkdir -p "$P/DEBIAN" "$P/usr/bin" "$P/usr/lib/uie-test" "$(dirname "$P/$long")"
cat >"$P/DEBIAN/control" <<'EOF'
Package: uie-test-hello
Version: 2.0
Architecture: amd64
Maintainer: PS-UIE tests <tests@localhost>
Description: test package of uie ref scan --deb
EOF
printf '#!/bin/sh\necho postinst "$@"\n' >"$P/DEBIAN/postinst"
printf '#!/bin/sh\nexit 0\n' >"$P/DEBIAN/prerm"
chmod 755 "$P/DEBIAN/postinst" "$P/DEBIAN/prerm"
cp /usr/bin/true "$P/usr/bin/hello"
ln "$P/usr/bin/hello" "$P/usr/bin/hello-again"
ln -s hello "$P/usr/bin/hello-link"
cp "$(readlink -f /lib/x86_64-linux-gnu/libjansson.so.4)" "$P/usr/lib/uie-test/libx.so.1"
printf '#!/bin/sh\necho run\n' >"$P/usr/lib/uie-test/run"
printf '#!/bin/sh\necho data\n' >"$P/usr/lib/uie-test/not-executable"
chmod 755 "$P/usr/lib/uie-test/run"
chmod 644 "$P/usr/lib/uie-test/not-executable"
printf '#!/bin/sh\necho long\n' >"$P/$long"
chmod 755 "$P/$long"

# The reference: the tree itself, paths relative to its root, hard links once.
"$UIE" ref scan "$P/usr" >"$T/tree.m" || fail "ref scan of the package's tree"
grep -v '^#\|/usr/bin/hello-again$' "$T/tree.m" | sed "s| path=$P| path=|" | sort >"$T/want"
for s in postinst prerm; do
	"$UIE" ref scan "$P/DEBIAN/$s" | grep '^role=' |
		sed "s| path=.*| path=/var/lib/dpkg/info/uie-test-hello.$s|" >>"$T/want"
done
sort -o "$T/want" "$T/want"
[ "$(wc -l <"$T/want")" = 6 ] || { cat "$T/want" >&2; fail "the reference should have 6 objects"; }

for z in xz zstd gzip none; do
	dpkg-deb --root-owner-group -Z"$z" -b "$P" "$T/hello-$z.deb" >/dev/null || fail "dpkg-deb -Z$z"
	"$UIE" ref scan --deb "$T/hello-$z.deb" -o "$T/deb-$z.m" 2>"$T/err" || { cat "$T/err" >&2; fail "ref scan --deb ($z)"; }
	grep -v '^#' "$T/deb-$z.m" | sort >"$T/got"
	diff "$T/want" "$T/got" >&2 || fail "ref scan --deb ($z) differs from the package's tree"
	grep -q '^# 6 objects$' "$T/deb-$z.m" || fail "object count ($z)"
done
grep -q '^role=SCRIPT .* path=/var/lib/dpkg/info/uie-test-hello.postinst$' "$T/deb-xz.m" || fail "postinst not listed"
grep -q 'a%20b%25c.sh$' "$T/deb-xz.m" || fail "the long name is not percent-encoded"
grep -q 'not-executable\|hello-link\|hello-again' "$T/deb-xz.m" && fail "a data file, symlink or second hard link listed"
# The manifest of the update joins the installed one (the policy of the update window).
cat "$T/tree.m" "$T/deb-xz.m" >"$T/window.m"
"$UIE" policy compile "$T/window.m" -o "$T/window.table" || fail "the joined manifests do not compile"

note "corrupt packages are named, exit 1, leave no manifest"
# corrupt NAME WHY: ref scan --deb of $T/NAME fails, says WHY about the file, writes nothing.
corrupt() {
	note "$1"
	"$UIE" ref scan --deb "$T/$1" -o "$T/bad.m" >/dev/null 2>"$T/err"
	local rc=$?
	[ "$rc" = 1 ] || { cat "$T/err" >&2; fail "$1: exit $rc"; }
	[ ! -e "$T/bad.m" ] || fail "$1: a manifest was written"
	grep -q "uie ref scan: $T/$1: .*$2" "$T/err" || { cat "$T/err" >&2; fail "$1: not named with '$2'"; }
	grep -q "nothing written" "$T/err" || fail "$1: does not say nothing was written"
	sed "s/^/    /" "$T/err" >&2
}
head -c 4096 /dev/urandom >"$T/garbage.deb"
corrupt garbage.deb "dpkg-deb --ctrl-tarfile failed"
size=$(stat -c %s "$T/hello-xz.deb")
head -c $((size - 200)) "$T/hello-xz.deb" >"$T/truncated.deb"
corrupt truncated.deb "dpkg-deb --fsys-tarfile"
cp "$T/hello-xz.deb" "$T/flipped.deb"
flip_byte "$T/flipped.deb" $((size - 400)) || fail "cannot alter the package"
corrupt flipped.deb "dpkg-deb --fsys-tarfile"
corrupt missing.deb "No such file or directory"
# A data member that decompresses (none) but whose tar header is corrupt: the reader's own check.
mkdir "$T/ar" && (cd "$T/ar" && ar x "$T/hello-none.deb") || fail "ar x"
printf 'X' | dd of="$T/ar/data.tar" bs=1 seek=600 conv=notrunc status=none # a name byte of member 2
(cd "$T/ar" && ar rc "$T/badtar.deb" debian-binary control.tar* data.tar) || fail "ar rc"
corrupt badtar.deb "dpkg-deb --fsys-tarfile: offset 512: header checksum does not match"
echo "policy_ref_scan_deb: all checks passed"
