#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# End-to-end: the EK -> AK credential challenge against a running monitor
# under its seccomp filter, on the built-in vTPM and on swtpm (tpm2-tss):
# `uie ek show` gives the EK and AK public areas, `uie credential make` seals a
# secret to the EK for the AK (checked against the AK PEM quotes are verified
# with), `uie credential activate` has the monitor's vTPM open it.  A
# credential sealed to the other vTPM's EK, an altered one, an AK that is not
# a restricted signing key and an AK PEM of another key are refused, naming why.
#   credential.sh UIE UIE_MONITORD
set -u
UIE=$1
MONITORD=$2
command -v swtpm >/dev/null || { echo "SKIP: no swtpm"; exit 77; }
. "$(dirname "$0")/../common.sh"
e2e_setup uie-e2e-credential
SOCK=$T/run/monitor.sock

# challenge NAME: runs the whole exchange against the monitor on $SOCK, files $T/NAME.*.
challenge() {
	local n=$1
	"$UIE" ek show --socket "$SOCK" --ek-out "$T/$n.ek" --ak-out "$T/$n.ak" >"$T/$n.show" ||
		fail "$n: ek show"
	grep -q '^ek rsa2048 000b[0-9a-f]\{64\}$' "$T/$n.show" && grep -q '^ak ecc-p256 000b' "$T/$n.show" ||
		fail "$n: ek show printed $(cat "$T/$n.show")"
	"$UIE" evidence export --socket "$SOCK" --nonce 0011223344556677 -o "$T/$n.ae" --pubkey-out "$T/$n.pem" ||
		fail "$n: export"
	"$UIE" credential make --ek "$T/$n.ek" --ak "$T/$n.ak" --ak-pub "$T/$n.pem" --secret-out "$T/$n.secret" \
		-o "$T/$n.cred" || fail "$n: credential make"
	[ "$(stat -c %s "$T/$n.secret")" = 32 ] && [ "$(stat -c %a "$T/$n.secret")" = 600 ] ||
		fail "$n: the secret file"
	"$UIE" credential activate --socket "$SOCK" -o "$T/$n.got" "$T/$n.cred" || fail "$n: credential activate"
	cmp -s "$T/$n.secret" "$T/$n.got" || fail "$n: the vTPM returned another secret"
	# One byte of the blob's HMAC altered (the file: 8 bytes of header, then the blob's size fields).
	cp "$T/$n.cred" "$T/$n.bad"
	flip_byte "$T/$n.bad" 20 || fail "cannot alter the credential"
	if "$UIE" credential activate --socket "$SOCK" "$T/$n.bad" 2>"$T/err"; then fail "$n: altered blob accepted"; fi
	grep -q "integrity HMAC" "$T/err" || fail "$n: altered blob: $(cat "$T/err")"
	# The AK with `restricted` (bit 16 of objectAttributes, byte 7 of the file) cleared.
	cp "$T/$n.ak" "$T/$n.ak-open"
	printf '\x04' | dd of="$T/$n.ak-open" bs=1 seek=7 conv=notrunc status=none
	if "$UIE" credential make --ek "$T/$n.ek" --ak "$T/$n.ak-open" --secret-out "$T/s" -o "$T/c" 2>"$T/err"; then
		fail "$n: an unrestricted AK got a credential"
	fi
	grep -q "AK: objectAttributes" "$T/err" || fail "$n: unrestricted AK: $(cat "$T/err")"
	[ ! -e "$T/c" ] || fail "$n: a refused make wrote its output"
}

start_monitor "$MONITORD" "$SOCK" "builtin:$T/keys/ak.pem" || fail "built-in monitor not ready"
grep -q '^Seccomp:[[:space:]]*2' "/proc/$MON_PID/status" || fail "no seccomp filter"
challenge builtin
[ "$(stat -c %a "$T/keys/ak.pem.ek")" = 600 ] || fail "the built-in EK file is not 0600"
# Another key as the AK PEM: refused before any credential is made.
openssl ecparam -name prime256v1 -genkey -noout 2>/dev/null | openssl ec -pubout -out "$T/other.pem" 2>/dev/null
if "$UIE" credential make --ek "$T/builtin.ek" --ak "$T/builtin.ak" --ak-pub "$T/other.pem" --secret-out "$T/s" \
	-o "$T/c" 2>"$T/err"; then fail "an AK PEM of another key was taken"; fi
grep -q "does not hold this key" "$T/err" || fail "other AK PEM: $(cat "$T/err")"
stop_monitor || fail "built-in monitor exit status $?"

start_swtpm || fail "swtpm did not start"
rm -rf "$T/state"
start_monitor "$MONITORD" "$SOCK" "swtpm:127.0.0.1:$SW_PORT" || fail "swtpm monitor not ready"
challenge swtpm
# Sealed to the built-in vTPM's EK for this AK: this TPM cannot open it.
"$UIE" credential make --ek "$T/builtin.ek" --ak "$T/swtpm.ak" --secret-out "$T/s" -o "$T/c" || fail "make"
if "$UIE" credential activate --socket "$SOCK" "$T/c" 2>"$T/err"; then fail "another EK's credential opened"; fi
grep -q "does not open with this TPM's EK" "$T/err" || fail "another EK: $(cat "$T/err")"
# For the built-in vTPM's AK, sealed to this TPM's EK: refused by the HMAC over the AK's name.
"$UIE" credential make --ek "$T/swtpm.ek" --ak "$T/builtin.ak" --secret-out "$T/s" -o "$T/c" || fail "make"
if "$UIE" credential activate --socket "$SOCK" "$T/c" 2>"$T/err"; then fail "another AK's credential opened"; fi
grep -q "for this AK's name" "$T/err" || fail "another AK: $(cat "$T/err")"
stop_monitor || fail "swtpm monitor exit status $? (killed by its filter?)"
echo "credential: all checks passed"
