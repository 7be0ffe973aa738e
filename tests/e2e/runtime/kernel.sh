#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Kernel features and their fallbacks (guest/kernel.c, docs/VM.md): each
# check runs with every feature the kernel has, then with the newer ones
# switched off (UIE_KERNEL_LACKS=all: no PIDFD_THREAD, SYNC_WAKE_UP,
# PROCMAP_QUERY, PIDFD_GET_INFO, Landlock ABI 2), as on Debian 12's 6.1.
# Mappings from a thread other than the leader work; a thread's own
# descriptor table cannot slip an unmeasured file past the check; mprotect
# finds its mappings; a feature nothing replaces is a clear start-up error.
. "$(dirname "$0")/lib.sh"
gen_key
start_runtime_monitor --trust-key "$T/pub.pem"
P=$PROGS
install_policy enforce /bin/sh /usr/bin/ln /usr/bin/true "$P/thread_files" "$P/dlopen_n" \
	"$P/mprotect_swap" "$P/libuiegood.so" "$P/libuiedso1.so"
mkdir "$T/a" "$T/b"

for lacks in none all; do
	export UIE_KERNEL_LACKS=$lacks
	for fan in "" --no-fanotify; do
		how="lacks $lacks${fan:+, $fan}"
		run_uie $fan -v -- "$P/thread_files" "$P/libuiegood.so" "$P/libuieevil.so"
		expect_rc 0 "mmap from a thread ($how)"
		expect_out "MAPPED GOOD from a thread" "mmap from a thread ($how)"
		expect_out "REFUSED EVIL from a thread's own fd table" "thread's own fd table ($how)"
		if [ $lacks = all ]; then
			expect_err "no PIDFD_THREAD (Linux 6.9)" "fallback reported ($how)"
			expect_err "no PROCMAP_QUERY (Linux 6.11)" "fallback reported ($how)"
		fi

		run_uie $fan -- "$P/dlopen_n" -t "$P/libuiedso1.so" "$P/libuiegood.so"
		expect_rc 0 "dlopen beside a second thread ($how)"

		run_uie $fan -- "$P/mprotect_swap" "$P/libuiegood.so" "$P/libuieevil.so" 1
		expect_rc 0 "mprotect ($how)"
		expect_out "REFUSED EVIL never made executable" "mprotect ($how)"
	done
done

# Landlock ABI 2 (Linux 5.19) lets the tree link across directories; ABI 1 cannot.
echo x >"$T/a/f"
UIE_KERNEL_LACKS=none run_uie -- /usr/bin/ln "$T/a/f" "$T/b/f"
expect_rc 0 "link across directories with Landlock ABI 2"
UIE_KERNEL_LACKS=landlock_refer run_uie -- /usr/bin/ln "$T/a/f" "$T/b/g"
[ "$RC" != 0 ] && [ ! -e "$T/b/g" ] || { show; fail "Landlock ABI 1 allowed a link across directories"; }

# Programs on overlayfs (container file systems).  Before Linux 6.8 the maps
# name an overlay file's underlying inode, not the one fstat shows; the
# reconciliation after a threaded grant must still know the files allowed.
mkdir "$T/ovl" "$T/ovl/l" "$T/ovl/u" "$T/ovl/w" "$T/ovlm" # (e2e_cleanup unmounts $T/*)
cp "$P/dlopen_n" "$P/libuiedso1.so" "$P/libuiegood.so" "$T/ovl/l/"
if mount -t overlay -o "lowerdir=$T/ovl/l,upperdir=$T/ovl/u,workdir=$T/ovl/w" ovl "$T/ovlm"; then
	for lacks in none all; do
		for fan in "" --no-fanotify; do
			UIE_KERNEL_LACKS=$lacks run_uie $fan -- "$T/ovlm/dlopen_n" -t \
				"$T/ovlm/libuiedso1.so" "$T/ovlm/libuiegood.so"
			expect_rc 0 "threaded dlopen on overlayfs (lacks $lacks${fan:+, $fan})"
		done
	done
	umount "$T/ovlm"
else
	note "no overlayfs here: overlay check skipped"
fi

# No Landlock: refused before anything runs, naming the feature and the kernel.
UIE_KERNEL_LACKS=landlock run_uie -- /usr/bin/true
expect_rc 125 "no Landlock"
expect_err "lacks Landlock (Linux 5.13)" "no Landlock"
echo "PASS"
