# SPDX-License-Identifier: Apache-2.0
# VM mode, boot 2: uie-init is the kernel's init (vm/init only loaded the
# modules and mounted the root); everything from boot2-init.sh on runs
# supervised, in bootstrap until the policy is installed.  As in the Debian
# image (vm/image.d/init), with --allow-mounts: no Landlock domain, the
# whole-boot guard (a BPF LSM program) in its place.
exec "$INIT" --poweroff --allow-mounts --uie "$UIE" -- /bin/sh "$V/boot2-init.sh"
