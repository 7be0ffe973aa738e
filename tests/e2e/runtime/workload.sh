#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# ENFORCE with a policy made by `uie ref scan` alone, for layouts real
# workloads bring: a shared object whose executable segment starts at file
# offset 0 (ld -z noseparate-code, like LLVM's LLVMgold.so, which ld loads
# on every gcc link), and a program on overlayfs under the exec watch.
. "$(dirname "$0")/lib.sh"
gen_key
start_runtime_monitor --trust-key "$T/pub.pem"
P=$PROGS
python3 - "$P/libuienosep.so" <<'PY' || fail "libuienosep.so: first PT_LOAD is not executable from offset 0"
import struct, sys
d = open(sys.argv[1], "rb").read()
phoff, = struct.unpack_from("<Q", d, 32); n, = struct.unpack_from("<H", d, 56)
loads = [struct.unpack_from("<IIQ", d, phoff + 56 * i) for i in range(n)]
t, f, o = [l for l in loads if l[0] == 1][0]
sys.exit(0 if f & 1 and o == 0 else 1)
PY

# A program on overlayfs: the kernel opens the overlay file and then, for
# overlayfs itself, the file of the layer below.
mkdir "$T/lower" "$T/upper" "$T/work" "$T/merged"
cp /usr/bin/true "$T/lower/prog"
printf '#!/bin/sh\necho script-ran\n' > "$T/lower/script" && chmod 755 "$T/lower/script"
mount -t overlay overlay -o "lowerdir=$T/lower,upperdir=$T/upper,workdir=$T/work" "$T/merged" ||
	fail "mount -t overlay"

script_entry "$T/merged/script" > "$T/extra"
install_policy enforce "$P/dlopen_n" "$P/libuiedso1.so" "$P/libuienosep.so" "$T/merged/prog" /bin/sh
rm "$T/extra"
"$UIE" status --socket "$SOCK" | grep -q 'mode: ENFORCE' || fail "policy not in force"
for fan in "" --no-fanotify; do
	note "exec watch: ${fan:-fanotify}"
	run_uie $fan -- "$P/dlopen_n" "$P/libuiedso1.so" "$P/libuienosep.so"
	expect_rc 0 "shared object with its code at offset 0"
	run_uie $fan -- "$T/merged/prog"
	expect_rc 0 "program on overlayfs"
	run_uie $fan -- "$T/merged/script"
	expect_rc 0 "script on overlayfs"
	expect_out script-ran "script on overlayfs"
done
# A copy with another byte where only the loader's first mapping makes file
# bytes executable (past the code's pages, inside the image's extent) is
# another object: its mapping is refused (docs/FORMATS.md 1.3).
python3 - "$P/libuienosep.so" "$T/libcrafted.so" <<'PY' || fail "libcrafted.so: no byte to change"
import struct, sys
d = bytearray(open(sys.argv[1], "rb").read())
phoff, = struct.unpack_from("<Q", d, 32); n, = struct.unpack_from("<H", d, 56)
loads = [struct.unpack_from("<IIQQQQQ", d, phoff + 56 * i) for i in range(n)]
loads = [l for l in loads if l[0] == 1]
up = lambda v: -(-v // 4096) * 4096
_, _, off, va, _, fsz, _ = loads[0]
end = min(len(d), off // 4096 * 4096 + up(max(l[3] + l[6] for l in loads)) - va // 4096 * 4096)
if end - 1 < up(off + fsz):
    sys.exit(1)
d[end - 1] ^= 0xff
open(sys.argv[2], "wb").write(d)
PY
run_uie -- "$P/dlopen_n" "$P/libuiedso1.so" "$T/libcrafted.so"
expect_rc 11 "copy of an allowed object with code at offset 0, other bytes in its first mapping"
expect_err "denied mmap of .*libcrafted.so.*refused by the monitor" "copy with other bytes in its first mapping"

# A hand-written policy (docs/POLICY.md) naming the program for op=EXECVE
# role=MAIN only: the layer's file that overlayfs opens in its turn is the
# main program too, not an interpreter.
install_policy enforce "$T/merged/prog"
awk '/^role=MAIN/ { print "op=EXECVE role=MAIN " $2 " action=ALLOW" }
     /^role=INTERP/ { print "op=EXECVE role=INTERP " $2 " action=ALLOW" }
     /^role=DSO/ { print "op=MMAP_EXEC role=DSO " $2 " action=ALLOW" }' "$T/manifest" > "$T/rules"
{ echo "policy_name=overlay policy_version=1.0.0"; echo "DEFAULT action=DENY"; cat "$T/rules"; } \
	> "$T/policy.txt"
# shellcheck disable=SC2086
"$UIE" policy compile $TRUST_FS "$T/policy.txt" -o "$T/table" || fail "policy compile (text)"
st=$("$UIE" status --socket "$SOCK") || fail "status"
"$UIE" policy sign --key "$T/priv.pem" --epoch $(( $(echo "$st" | awk '/^epoch:/ { print $2 }') + 1 )) \
	--bind-seq "$(echo "$st" | awk '/^records:/ { print $2 }')" \
	--bind-pcr "$(echo "$st" | awk '/^vpcr16:/ { print $2 }')" "$T/table" -o "$T/pkg" >/dev/null ||
	fail "policy sign"
"$UIE" policy install "$T/pkg" --socket "$SOCK" >/dev/null || fail "policy install"
for fan in "" --no-fanotify; do
	run_uie $fan -- "$T/merged/prog"
	expect_rc 0 "program on overlayfs, policy with role=MAIN only (${fan:-fanotify})"
done

# Controls: the same layouts are still refused when not in the policy.
install_policy enforce "$P/dlopen_n" "$P/libuiedso1.so" /usr/bin/true
run_uie -- "$P/dlopen_n" "$P/libuiedso1.so" "$P/libuienosep.so"
expect_rc 11 "shared object with its code at offset 0, not in the policy"
expect_err "denied mmap of .*libuienosep.so.*refused by the monitor" "shared object with its code at offset 0, not in the policy"
cp /usr/bin/ls "$T/lower/other"
run_uie -- "$T/merged/other"
expect_rc 126 "program on overlayfs, not in the policy"
echo PASS
