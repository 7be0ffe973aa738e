# SPDX-License-Identifier: Apache-2.0
# VM mode, boot 2: the supervised init.  Installs the host's policy through
# the guest, runs an approved and a modified program, exports the evidence;
# then the attacks on approved code (issue 18, as tests/e2e/runtime/seal.sh
# in process mode): execmod refused, mremap growth over unmeasured bytes
# refused (issue 25), a write to a mapped approved file kills
# its victim and is logged, the evidence after them exported too (both in a
# tar on uie.out); then kills the interceptor to show that no exec is left.
# Environment: UIE, V, W (the host's shared directory with policy.pkg),
# PROGS (the build's tests/progs), N2, N3 (nonces); W also holds the verifier's credentials
# (cred: made to the EK boot 1's attestation vouched for; cred.other: for another TPM's AK).
. "$V/checks.sh"
ctl=/run/uie/control.sock
read -r comm </proc/1/comm
check "uie-init is PID 1" test "$comm" = uie-init
cp /usr/bin/echo /tmp/echo-modified
off=$(readelf -SW /tmp/echo-modified | awk '$2 == ".text" { print $5 }')
printf '\314' | dd of=/tmp/echo-modified bs=1 seek=$((0x$off + 16)) conv=notrunc status=none
check "policy installed through the guest" "$UIE" policy install --socket $ctl "$W/policy.pkg"
check "approved programs run" sh -c 'ls -d / >/dev/null && cat /etc/hostname >/dev/null'
# A refused exec is 126; one that ran would stop at the int3 put into its code.
/tmp/echo-modified MODIFIED-RAN >/dev/null 2>&1
check_rc "modified program refused" 126 $?
check "run evidence exported through the guest" \
	"$UIE" evidence export --socket $ctl --nonce "$N2" -o /tmp/run.ae
# The fleet (docs/VERIFIER.md 3.8): no AK given by hand; the agent enrols by attestation at
# verifier a and attests to verifier b, through QEMU's restricted user network (vm/init).
check "enrolled by attestation at verifier a (nonce, report, credential), then attested" \
	"$UIE" attest --enrol --fleet vmfleet --verifier http://10.0.2.100 --reference "$W/reference.manifest" \
	--policy "$W/policy.pkg" --machine vm-guest --socket $ctl
check "attested at verifier b with the AK enrolled by attestation" \
	"$UIE" attest --verifier http://10.0.2.101 --machine vm-guest --socket $ctl
# An accepted round checkpoints the monitor (the verifier holds those records): later exports
# start at the record count after it.
since=$("$UIE" status --socket $ctl | awk '$1 == "records:" { print $2 }')
lib=$PROGS/libuiegood.so
# execmod: new bytes in a private mapping of an approved file, then executable.
for m in copy wx wxprot race; do
	out=$("$PROGS/execmod" $m "$lib" 3 2>&1)
	rc=$?
	case $rc:$out in
	0:*REFUSED*) echo "vm-check ok: execmod $m refused" ;;
	*) echo "vm-check FAIL: execmod $m refused (exit $rc: $out)" ;;
	esac
done
# mremap growth of an approved code segment over a page no digest covers (issue 25, as
# tests/e2e/runtime/mremap.sh in process mode).
cp "$lib" /tmp/grow.so && "$PROGS/growexec" plant /tmp/grow.so
for m in grow move fixed dontunmap race; do
	out=$("$PROGS/growexec" $m /tmp/grow.so 3 2>&1)
	rc=$?
	case $rc:$out in
	0:*REFUSED*) echo "vm-check ok: growexec $m refused" ;;
	*) echo "vm-check FAIL: growexec $m refused (exit $rc: $out)" ;;
	esac
done
# Whole-boot mode (uie-init --allow-mounts): the BPF LSM guard refuses new code written
# over approved code through /proc/self/mem, and a new user namespace (both succeed
# natively; vm/init's switch_root leaves no chroot, which would refuse the latter itself).
out=$("$PROGS/procmem" direct 2>&1)
case $?:$out in
0:*"REFUSED open(/proc/self/mem, O_RDWR): EPERM"*) echo "vm-check ok: /proc/self/mem write open refused (whole boot)" ;;
*) echo "vm-check FAIL: /proc/self/mem write open refused (whole boot) ($out)" ;;
esac
# The identity attack in the whole boot: PR_SET_MM_MAP is refused in the filter, so the
# program stays itself, and tests/progs/jit's JIT rule does not cover its anonymous code.
out=$("$PROGS/identity" "$PROGS/jit" map 2>&1)
case $?:$out in
0:*"REFUSED PR_SET_MM_MAP: EPERM"*"REFUSED anonymous mprotect(PROT_EXEC): EACCES"*)
	echo "vm-check ok: identity attack refused (whole boot)" ;;
*) echo "vm-check FAIL: identity attack refused (whole boot) ($out)" ;;
esac
out=$("$PROGS/userns" 2>&1)
case $?:$out in
0:*"REFUSED unshare(CLONE_NEWUSER): EPERM"*) echo "vm-check ok: user namespace refused (whole boot)" ;;
*) echo "vm-check FAIL: user namespace refused (whole boot) ($out)" ;;
esac
# A write to an approved file mapped executable: the victim dies, the write is logged.
for m in shared writerun; do
	cp "$lib" /tmp/$m.so
	"$PROGS/sealattack" $m /tmp/$m.so
	check_rc "sealattack $m: the mapping process is killed" 137 $?
done
check "evidence after the attacks exported through the guest" \
	"$UIE" evidence export --socket $ctl --nonce "$N3" --since "${since:-0}" -o /tmp/seal.ae
# The verifier's credential, made to the EK boot 1's attestation vouched for (issue 26).
check "the guest's vTPM answers the credential made to its attested EK" \
	"$UIE" credential activate --socket $ctl -o /tmp/cred.got "$W/cred"
out=$("$UIE" credential activate --socket $ctl -o /tmp/cred.other "$W/cred.other" 2>&1)
case $?:$out in
1:*"for this AK's name"*) echo "vm-check ok: a credential for another TPM's AK is refused by the guest's vTPM" ;;
*) echo "vm-check FAIL: a credential for another TPM's AK is refused by the guest's vTPM ($out)" ;;
esac
check "evidence sent to the host" tar -cf /dev/virtio-ports/uie.out -C /tmp run.ae seal.ae cred.got
echo 0 >/dev/virtio-ports/uie.status # what vm/run reports: the checks are on the console
# Guest root kills the interceptor (our parent; we, its direct child, die with
# it).  A process left behind (this subshell, no exec needed to wait) then
# tries to exec.
sup=$PPID
(
	while [ -d /proc/$sup ]; do :; done
	refute "exec refused after the interceptor died" ls /
) &
kill -9 $sup
wait
