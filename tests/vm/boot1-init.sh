# SPDX-License-Identifier: Apache-2.0
# VM mode, boot 1: the guest's "real init", supervised from its first exec
# (bootstrap: measured, not enforced).  The `uie` tools in the tree reach
# the monitor through the relay's control socket only.
. "$V/checks.sh"
ctl=/run/uie/control.sock
check "bootstrap workload runs" sh -c 'ls / >/dev/null && cat /etc/hostname >/dev/null'
check "uie status through the relay's control socket" "$UIE" status --socket $ctl
check "bootstrap evidence exported through the guest" \
	"$UIE" evidence export --socket $ctl --nonce "$N1" -o /tmp/out/boot.ae
# What configfs-tsm would give on an SEV-SNP guest with an SVSM: here the monitor, outside the
# guest, answers for the verifier's nonce N4 (issue 26).
check "SEV-SNP attestation through the relay (the monitor stands for the SVSM)" \
	"$UIE" snp request --socket $ctl --nonce "$N4" -o /tmp/out/snp
check "vTPM keys through the relay" \
	"$UIE" ek show --socket $ctl --ek-out /tmp/out/ek.tpm --ak-out /tmp/out/ak.tpm
# Guest root in the tree goes for the channel, then kills the relay (uie-init's
# first child, PID 2 here): it still cannot open the port; requests fail,
# execs are refused.
read -r comm </proc/2/comm
check "the relay is PID 2" test "$comm" = uie-init
check "root in the tree cannot reach the channel, not even after killing the relay (vm_probe --tree)" \
	"$PROBE" --tree /dev/virtio-ports/uie.bridge $ctl 2
refute "exec refused once the relay is dead" ls /
