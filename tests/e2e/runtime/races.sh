#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Check-then-use races in ENFORCE: a descriptor swapped by another thread
# during mmap, a mapping swapped during mprotect, a path swapped during
# execve.  GOOD is allowed, EVIL is not; EVIL must never become executable,
# while GOOD keeps working.
. "$(dirname "$0")/lib.sh"
gen_key
start_runtime_monitor --trust-key "$T/pub.pem"
P=$PROGS
install_policy enforce "$P/fdswap" "$P/mprotect_swap" "$P/pathswap" "$P/libuiegood.so" /usr/bin/true
SECS=${UIE_RACE_SECONDS:-3}

for fan in "" --no-fanotify; do
	note "fd swap during mmap (${fan:-fanotify})"
	run_uie $fan -- "$P/fdswap" "$P/libuiegood.so" "$P/libuieevil.so" "$SECS"
	expect_rc 0 "fd swap"
	expect_out "REFUSED EVIL never mapped" "fd swap"
	note "$OUT"

	note "mapping swap during mprotect (${fan:-fanotify})"
	run_uie $fan -- "$P/mprotect_swap" "$P/libuiegood.so" "$P/libuieevil.so" "$SECS"
	expect_rc 0 "mapping swap"
	expect_out "REFUSED EVIL never made executable" "mapping swap"
	note "$OUT"
done

# The authoritative exec check is fanotify's, on the file the kernel opened.
mkdir "$T/swap"
note "path swap during execve (fanotify)"
run_uie -- "$P/pathswap" "$T/swap" /usr/bin/true "$P/payload" "$SECS"
expect_rc 0 "path swap"
expect_out "REFUSED EVIL never executed" "path swap"
note "$OUT"
echo PASS
