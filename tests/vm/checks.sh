# SPDX-License-Identifier: Apache-2.0
# One line per check for VM mode (vm/test-vm-mode), in the guest and on the
# host alike: "vm-check ok: NAME" or "vm-check FAIL: NAME".  The host reads
# the guest's lines from the console and fails every expected check that
# did not report.  Sourced; POSIX sh (the guest's init scripts are dash).
# Shell functions and echo only: once the relay or the interceptor is gone,
# no exec is possible in the tree, and a check must still report.

# check NAME CMD...: ok when CMD succeeds.
check() {
	_name=$1
	shift
	if "$@"; then echo "vm-check ok: $_name"; else echo "vm-check FAIL: $_name"; fi
}

# refute NAME CMD...: ok when CMD fails.
refute() {
	_name=$1
	shift
	if "$@"; then echo "vm-check FAIL: $_name"; else echo "vm-check ok: $_name"; fi
}

# check_rc NAME WANT GOT: ok when the exit status GOT is WANT.
check_rc() {
	if [ "$3" = "$2" ]; then echo "vm-check ok: $1"; else echo "vm-check FAIL: $1 (exit $3, want $2)"; fi
}

# quiet CMD...: CMD with its output dropped (for check/refute, whose own line must stay).
quiet() { "$@" >/dev/null 2>&1; }
