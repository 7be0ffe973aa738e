#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Real workloads under ENFORCE with a policy the tools alone made (issue 12):
# `uie ref scan --package` over the Debian packages that hold the programs
# and what they load (a test helper only names the packages, from dpkg -S),
# `--jit` for node, `uie policy compile`, `uie verify --state` and
# `uie policy sign --bind-from` (no value extracted by hand), `uie policy
# install`.  Then, each under `uie run`:
#   - python3.11 importing C extension modules from lib-dynload;
#   - node (it maps its own binary again and JITs into anonymous memory),
#     and the same node refused under a policy without its JIT entry;
#   - gcc compiling and linking a C file (gcc, cc1, as, collect2, ld), and
#     make -j2 building a program of two files in parallel;
#   - a copy of an approved library in the test's /tmp directory, loaded by
#     python (same digest: approved, and sealed like the original);
#   - grep -P: PCRE2's JIT refused quietly without a rule (it falls back), allowed with one;
#   - a #! script (its interpreter from a package), and a changed copy refused;
#   - a program run from a sealed memfd (measured by digest), and from an
#     unsealed one (refused: fileless).
# Environment from meson: UIE, UIE_MONITORD, PROGS (tests/progs build dir).
set -u

. "$(dirname "$0")/../common.sh"
e2e_start uie-workloads UIE UIE_MONITORD PROGS
SOCK=$T/monitor.sock
PY=/usr/bin/python3.11
NODE=/usr/bin/node
CC1=$(gcc-12 -print-prog-name=cc1 2>/dev/null)
for p in "$PY" "$NODE" /usr/bin/gcc-12 "$CC1"; do
	[ -x "$p" ] || { echo "SKIP: $p missing (scripts/install-deps installs python3, nodejs, gcc)"; exit 77; }
done

# packages_of FILE...: the Debian packages that hold the files and the
# libraries ldd lists for them.  dpkg knows each file under one name only,
# /bin/... or /usr/bin/... (merged /usr, also lib and sbin), so both are asked for.
packages_of() {
	for f in "$@"; do
		echo "$f"
		ldd "$f" 2>/dev/null | awk '/=> \// { print $3 } /^\t\/.*ld-linux/ { print $1 }'
	done | sed -E 's,^/usr/(bin|sbin|lib|lib64)/,/\1/,; p; s,^/(bin|sbin|lib|lib64)/,/usr/\1/,' |
		sort -u | xargs -r dpkg -S 2>/dev/null |
		grep -v '^diversion by' | sed 's/: .*//; s/, /\n/g' | sort -u
}

"$UIE" key gen -o "$T/priv.pem" --pub "$T/pub.pem" >/dev/null || fail "key gen"
start_monitor "$UIE_MONITORD" "$SOCK" "builtin:$T/ak.pem" --trust-key "$T/pub.pem" ||
	fail "monitor did not start"

# The workloads' own files.
cat > "$T/hello.c" <<'C'
#include <stdio.h>
int main(void) { puts("compiled under enforce"); return 0; }
C
mkdir "$T/mk"
printf 'int part(void);\nint main(void) { return part() - 42; }\n' > "$T/mk/a.c"
printf 'int part(void) { return 42; }\n' > "$T/mk/b.c"
printf 'prog: a.o b.o\n\tgcc-12 -o $@ a.o b.o\n%%.o: %%.c\n\tgcc-12 -c -o $@ $<\n' > "$T/mk/Makefile"
printf '#!/bin/sh\necho "script ran: $1"\n' > "$T/script.sh"
printf '#!%s\nimport sys\nprint("python script ran", sys.argv[1])\n' "$PY" > "$T/script.py"
chmod 755 "$T/script.sh" "$T/script.py"

MODS=/usr/lib/python3.11/lib-dynload
LTO=$(gcc-12 -print-prog-name=liblto_plugin.so)
packages_of /bin/sh /usr/bin/cat /usr/bin/grep /usr/bin/true "$PY" "$MODS/_bz2.cpython-311-x86_64-linux-gnu.so" \
	"$MODS/_lzma.cpython-311-x86_64-linux-gnu.so" "$NODE" /usr/bin/gcc-12 "$CC1" \
	"$(readlink -f /usr/bin/as)" "$(readlink -f /usr/bin/ld)" "$LTO" /usr/bin/make > "$T/packages"
grep -qx libpython3.11-stdlib:amd64 "$T/packages" || grep -qx libpython3.11-stdlib "$T/packages" ||
	fail "lib-dynload's package not found: $(cat "$T/packages")"
args=()
while read -r p; do args+=(--package "$p"); done < "$T/packages"
note "packages: $(tr '\n' ' ' < "$T/packages")"

# scan_policy NAME [more ref scan args]: manifest $T/NAME.manifest (JSON) and table $T/NAME.table.
scan_policy() {
	local name=$1
	shift
	# memfd_exec with its libraries: a gcc sanitizer build links libasan.so, in no package above.
	# shellcheck disable=SC2046 # one path per line
	"$UIE" ref scan "${args[@]}" "$@" "$T/script.sh" "$T/script.py" $(closure "$PROGS/memfd_exec") --json \
		-o "$T/$name.manifest" 2>"$T/scan.err" || { cat "$T/scan.err" >&2; fail "ref scan ($name)"; }
	# shellcheck disable=SC2086
	"$UIE" policy compile --mode enforce --default deny $TRUST_FS "$T/$name.manifest" -o "$T/$name.table" \
		2>/dev/null || fail "policy compile of the JSON manifest ($name)"
}

# provision TABLE: verify the monitor's evidence, sign bound to it, install.
EPOCH_FILE=$T/verifier.state
provision() {
	local n
	n=$(od -An -tx1 -N16 /dev/urandom | tr -d ' \n')
	"$UIE" evidence export --socket "$SOCK" --nonce "$n" -o "$T/ae" --pubkey-out "$T/ak.pub" \
		>/dev/null || fail "evidence export"
	"$UIE" verify "$T/ae" --nonce "$n" --ak-pub "$T/ak.pub" --state "$EPOCH_FILE" >/dev/null ||
		fail "verify"
	"$UIE" policy sign --key "$T/priv.pem" --bind-from "$EPOCH_FILE" "$1" -o "$T/pkg" \
		2>/dev/null || fail "policy sign --bind-from"
	"$UIE" policy install "$T/pkg" --socket "$SOCK" >/dev/null || fail "policy install"
	"$UIE" status --socket "$SOCK" | grep -q 'mode: ENFORCE' || fail "policy not in force"
}

expect_ok() { [ "$RC" = 0 ] && echo "$OUT" | grep -q -- "$2" || { show; fail "$1"; }; }

note "policy without a JIT entry: node is refused"
scan_policy nojit
provision "$T/nojit.table"
run_uie -- "$NODE" -e 'console.log("node ran")'
[ "$RC" != 0 ] || { show; fail "node ran without a JIT rule"; }
echo "$ERR" | grep -q "anonymous memory executable were refused: no JIT rule names the program" ||
	{ show; fail "node's failure does not name the refused anonymous memory"; }
run_uie -v -- "$NODE" -e 'console.log("node ran")'
echo "$ERR" | grep -q "denied m[a-z]* of anonymous memory (pid [0-9]*): refused by the monitor: anonymous memory may not become executable" ||
	{ show; fail "uie run -v does not name node's refused anonymous memory"; }
note "grep -P without a JIT rule: PCRE2 falls back to its interpreter, quietly"
run_uie -- /usr/bin/grep -P 'o\d+' "$T/hello.c"
[ "$RC" = 1 ] && [ -z "$ERR" ] || { show; fail "grep -P without a JIT rule"; }
echo 'foo123' > "$T/grep.in"
run_uie -- /usr/bin/grep -P '\d+' "$T/grep.in"
expect_ok "grep -P" foo123
[ -z "$ERR" ] || { show; fail "grep -P printed a refusal"; }

note "policy with node's JIT entry (ref scan --jit)"
scan_policy jit --jit "$NODE" --jit /usr/bin/grep
provision "$T/jit.table"
"$UIE" policy show --manifest "$T/jit.manifest" "$T/pkg" > "$T/shown" || fail "policy show"
grep -q "op=MPROTECT_EXEC role=ANON .*# $NODE" "$T/shown" || fail "policy show names no JIT rule for node"
"$UIE" policy check --manifest "$T/jit.manifest" "$T/pkg" >"$T/check" 2>&1 ||
	{ cat "$T/check" >&2; fail "policy check finds the fresh policy out of date"; }

run_uie -- "$NODE" -e 'let s = 0; for (let i = 0; i < 1e6; i++) s += i; console.log("node ran", s)'
expect_ok "node with its JIT rule" "node ran 499999500000"

run_uie -vv -- /usr/bin/grep -P '\d+' "$T/grep.in"
expect_ok "grep -P with its JIT rule" foo123
echo "$ERR" | grep -q "allowed mmap of anonymous memory\|allowed mprotect of anonymous memory" ||
	{ show; fail "grep -P's JIT was not allowed by its rule"; }

run_uie -- "$PY" -c 'import _bz2, _lzma, json; print("python ran", _bz2.__file__.rsplit("/", 2)[1], json.dumps([1]))'
expect_ok "python with C extension modules" "python ran lib-dynload \[1\]"

run_uie -- /usr/bin/gcc-12 -o "$T/hello" "$T/hello.c"
[ "$RC" = 0 ] || { show; fail "gcc under enforce"; }
[ -x "$T/hello" ] || fail "gcc wrote no program"
run_uie -- /usr/bin/make -j2 -C "$T/mk"
[ "$RC" = 0 ] && [ -x "$T/mk/prog" ] || { show; fail "make -j2 under enforce"; }
"$T/mk/prog" || fail "make -j2 built a wrong program"

BZ2=$(ls "$MODS"/_bz2.cpython-311-*.so)
cp "$BZ2" "$T/copy_bz2.so"
run_uie -- "$PY" -c 'import importlib.util as u, sys
s = u.spec_from_file_location("_bz2", sys.argv[1]); m = u.module_from_spec(s); s.loader.exec_module(m)
print("copy loaded", m.BZ2Decompressor().decompress(b"BZh9\x17rE8P\x90\x00\x00\x00\x00"))' "$T/copy_bz2.so"
expect_ok "a copy of an approved library from the test's /tmp directory" "copy loaded b''"

run_uie -- "$T/script.sh" one
expect_ok "#! script" "script ran: one"
run_uie -- "$T/script.py" two
expect_ok "#! python script" "python script ran two"

note "memfd: sealed, measured by digest; unsealed, fileless"
run_uie -- "$PROGS/memfd_exec" sealed-fexecve /usr/bin/true
[ "$RC" = 0 ] && [ -z "$OUT" ] || { show; fail "a listed program from a sealed memfd"; }
run_uie -- "$PROGS/memfd_exec" sealed-mmap "$PROGS/payload"
expect_ok "an unlisted object in a sealed memfd" "REFUSED"
echo "$ERR" | grep -q "no rule matched the digest" || { show; fail "sealed memfd not decided by digest"; }
run_uie -- "$PROGS/memfd_exec" fexecve /usr/bin/true
expect_ok "a listed program from an unsealed memfd" "REFUSED"

note "what the policy does not name is still refused"
# The freshly compiled program: not scanned, so not in the policy.
run_uie -- "$T/hello"
[ "$RC" = 126 ] || { show; fail "an unscanned program ran"; }
printf 'echo changed\n' >> "$T/script.sh"
run_uie -- "$T/script.sh" three
[ "$RC" = 126 ] && echo "$ERR" | grep -q "denied execve of .*script.sh" || { show; fail "a changed script ran"; }
"$UIE" policy check --manifest "$T/jit.manifest" "$T/pkg" >"$T/check" 2>/dev/null &&
	fail "policy check missed the changed script"
grep -q "^changed SCRIPT $T/script.sh" "$T/check" && grep -q "^stale sha256:" "$T/check" ||
	{ cat "$T/check" >&2; fail "policy check does not report the changed script"; }
echo PASS
