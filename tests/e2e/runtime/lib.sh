# SPDX-License-Identifier: Apache-2.0
# Shared by the interceptor's end-to-end tests (sourced, not run).
# Environment from meson: UIE (the uie command), UIE_MONITORD, PROGS (tests/progs
# build directory).  Each test gets its own monitor on its own socket and
# removes everything it made on exit.
set -u

. "$(dirname "$0")/../common.sh"
e2e_start uie-e2e UIE UIE_MONITORD PROGS
SOCK=$T/monitor.sock

# start_runtime_monitor [extra options]: a fresh monitor (bootstrap mode) on $SOCK;
# fails the test when it does not come up.
start_runtime_monitor() {
	rm -f "$SOCK"
	start_monitor "$UIE_MONITORD" "$SOCK" "builtin:$T/ak.pem" "$@" || fail "monitor did not start"
}

# status_field NAME: the value of the line "NAME: VALUE" of `uie status` (empty
# when the monitor does not answer).
status_field() { "$UIE" status --socket "$SOCK" 2>/dev/null | awk -v k="$1:" '$1 == k { print $2 }'; }

# script_entry FILE: a manifest line allowing the #! script FILE (role SCRIPT:
# range digest of the whole file, docs/FORMATS.md 1.6).
script_entry() {
	python3 -c '
import hashlib, struct, sys
d = open(sys.argv[1], "rb").read()
h = hashlib.sha256(b"PSUIE-RNG-v1" + struct.pack("<QQ", 0, len(d)) + d).hexdigest()
print("role=SCRIPT digest=sha256:%s path=%s" % (h, sys.argv[1]))' "$1"
}

# install_policy MODE FILE...: installs a signed policy allowing exactly FILE...
# (and what they load), default DENY, plus the manifest lines in $T/extra, trusting
# the file system kinds of $TRUST_FS (common.sh) and compiled with the options
# in $POLICY_ARGS (e.g. --require-immutable).  The monitor must have been started with
# --trust-key "$T/pub.pem" after gen_key.
gen_key() { "$UIE" key gen -o "$T/priv.pem" --pub "$T/pub.pem" >/dev/null || fail "key gen"; }
install_policy() {
	mode=$1; shift
	closure "$@" > "$T/files"
	# shellcheck disable=SC2046
	"$UIE" ref scan $(cat "$T/files") -o "$T/manifest" 2>/dev/null || fail "ref scan"
	[ -f "$T/extra" ] && cat "$T/extra" >> "$T/manifest"
	# shellcheck disable=SC2086
	"$UIE" policy compile --mode "$mode" --default deny $TRUST_FS ${POLICY_ARGS:-} "$T/manifest" \
		-o "$T/table" ||
		fail "policy compile"
	st=$("$UIE" status --socket "$SOCK") || fail "status"
	seq=$(echo "$st" | awk '/^records:/ { print $2 }')
	pcr=$(echo "$st" | awk '/^vpcr16:/ { print $2 }')
	epoch=$(( $(echo "$st" | awk '/^epoch:/ { print $2 }') + 1 ))
	"$UIE" policy sign --key "$T/priv.pem" --epoch "$epoch" --bind-seq "$seq" --bind-pcr "$pcr" \
		"$T/table" -o "$T/pkg" >/dev/null || fail "policy sign"
	"$UIE" policy install "$T/pkg" --socket "$SOCK" >/dev/null || fail "policy install"
}

# native WHAT CMD...: the attack must gain (exit 10) without `uie run`.
native() {
	local what=$1 rc
	shift
	"$@" >"$T/native.out" 2>&1
	rc=$?
	[ "$rc" = 10 ] || fail "$what natively: exit $rc, want 10 (the attack does not work on this kernel: $(cat "$T/native.out"))"
}

# wait_file FILE: up to 30 s.
wait_file() { for _ in $(seq 600); do [ -e "$1" ] && return 0; sleep 0.05; done; return 1; }

# verify_rc TAG: exports fresh evidence and prints `uie verify`'s exit code (its
# output in $T/TAG.out).
verify_rc() {
	local nonce
	nonce=$(od -An -tx1 -N16 /dev/urandom | tr -d ' \n')
	"$UIE" evidence export --socket "$SOCK" --nonce "$nonce" -o "$T/$1.ae" \
		--pubkey-out "$T/ak.pub" >/dev/null 2>"$T/$1.err" || { cat "$T/$1.err" >&2; fail "export ($1)"; }
	"$UIE" verify "$T/$1.ae" --nonce "$nonce" --ak-pub "$T/ak.pub" >"$T/$1.out" 2>&1
	echo $?
}
