# SPDX-License-Identifier: Apache-2.0
# VM mode, boot 1, the unsupervised part (vm/init's job, as root in the
# guest): uie-init as PID 1 of a PID namespace runs boot1-init.sh under the
# interceptor; then what a hostile root does outside supervision.  The
# guest's /tmp/out goes back to the host over the uie.out port.
# Environment: UIE, INIT, PROBE (binaries), K (the host's key directory,
# which must not exist here), V (this directory), N1 and N4 (the verifier's nonces),
# PROGS (the build's tests/progs).
. "$V/checks.sh"
mkdir -p /tmp/out
# The mremap attack (issue 25) works on this kernel, unsupervised.  (Under
# bootstrap the growth would be allowed and its range digest recorded, which
# `uie verify --reference` then rejects as unknown code that ran.)
cp "$PROGS/libuiegood.so" /tmp/grow.so && "$PROGS/growexec" plant /tmp/grow.so
"$PROGS/growexec" grow /tmp/grow.so >/dev/null 2>&1
check_rc "growexec grow gains natively on the guest's kernel" 10 $?
# The identity attack (issue 25): as root, PR_SET_MM_MAP with an exe_fd makes this program
# tests/progs/jit (its /proc/self/exe), then it runs anonymous code.
out=$("$PROGS/identity" "$PROGS/jit" map 2>&1)
case $?:$out in
10:*"IDENTITY $(readlink -f "$PROGS/jit")"*) echo "vm-check ok: identity attack gains natively on the guest's kernel" ;;
*) echo "vm-check FAIL: identity attack gains natively on the guest's kernel ($out)" ;;
esac
check "uie-init runs the init supervised and ends cleanly" \
	unshare --pid --fork --mount-proc "$INIT" --uie "$UIE" -- /bin/sh "$V/boot1-init.sh"
# No channel to the monitor: uie-init must not start the init at all.
out=$(unshare --pid --fork --mount-proc "$INIT" --port /dev/virtio-ports/none --uie "$UIE" -- \
	/bin/sh -c 'echo INIT-RAN-WITHOUT-MONITOR')
check_rc "uie-init without a monitor exits 1" 1 $?
refute "uie-init without a monitor does not start the init" \
	sh -c 'echo "$1" | grep -q INIT-RAN-WITHOUT-MONITOR' sh "$out"
check "hostile root's requests on the channel are refused (vm_probe)" \
	"$PROBE" /dev/virtio-ports/uie.bridge 1024
for f in "$K/ak.pem" "$K/ttp.key" "$K/ram" "$K/amd/vcek.key"; do
	refute "host key not in the guest: $f" test -e "$f"
done
tar -cf /dev/virtio-ports/uie.out -C /tmp/out .
