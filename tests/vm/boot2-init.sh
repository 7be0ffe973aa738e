# SPDX-License-Identifier: Apache-2.0
# VM mode, boot 2: the supervised init.  Installs the host's policy through
# the guest, runs an approved and a modified program, exports the evidence
# (uie.out) and then kills the interceptor to show that no exec is left.
# Environment: UIE, V, W (the host's shared directory with policy.pkg), N2.
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
	sh -c '"$1" evidence export --socket "$2" --nonce "$3" -o /tmp/run.ae && cat /tmp/run.ae >/dev/virtio-ports/uie.out' \
	sh "$UIE" $ctl "$N2"
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
