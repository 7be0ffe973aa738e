# SPDX-License-Identifier: Apache-2.0
# VM mode, boot 2: uie-init is the kernel's init (vm/init only loaded the
# modules and mounted the root); everything from boot2-init.sh on runs
# supervised, in bootstrap until the policy is installed.
exec "$INIT" --poweroff --uie "$UIE" -- /bin/sh "$V/boot2-init.sh"
