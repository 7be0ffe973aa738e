#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# `uie snp verify`, `snp sim-chain` and `snp sim-attest` from the command
# line: the real Milan report of ../shared/snp (or $UIE_SNP_DATA) passes
# with its appraisal and is refused, with the reason, under the Genoa roots
# and a higher minimum TCB; a simulated SVSM answer read as configfs-tsm's
# directory verifies only with its simulated root given explicitly, says
# "simulated", hands out the vTPM EK it binds, and is refused for another
# nonce, under the roots its auxblob carries (not pinned) and with a CRL
# revoking its ASK.
#   snp_cli.sh UIE SNP_DATA
set -u
uie=$1 data=${UIE_SNP_DATA:-$2}
tmp=$(mktemp -d /tmp/uie-snp-cli-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
fails=0
bad() { echo "FAIL: $*" >&2; fails=$((fails + 1)); }

# expect STATUS WORDS COMMAND...: COMMAND exits STATUS and says WORDS.
expect() {
	local want=$1 words=$2 out rc
	shift 2
	out=$("$@" 2>&1)
	rc=$?
	[ "$rc" = "$want" ] || bad "exit $rc, not $want: $* ($out)"
	grep -qF -- "$words" <<< "$out" || bad "no '$words' from: $* ($out)"
}

meas=7a1e5c266c0108dbc9bb94fa926951320940915d0aafb42464bd88b579ea158d3e1a0dc39b2c60bd95b9c480cd81841f
real=("$uie" snp verify "$data/milan-report.bin" --vcek "$data/milan-vcek.der")
expect 0 ": ok" "${real[@]}" --vmpl 0 --min-abi 1.52 --min-tcb 0300000000000873 --measurement $meas
expect 0 '"measurement": "'$meas "${real[@]}" --json
expect 1 "refused: VCEK: " "${real[@]}" --product genoa
expect 1 "REPORTED_TCB.MICROCODE 115 is below the minimum 116" "${real[@]}" --min-tcb 0300000000000874
expect 1 "ARK: SHA-256 fingerprint" "${real[@]}" --ask "$data/milan-ask.pem" --ark "$data/genoa-ask.pem"
expect 2 "usage" "$uie" snp verify "$data/milan-report.bin"

# An RSA-2048 EK's TPMT_PUBLIC (the TCG EK template L-1) with a random modulus.
{
	printf '0001000b000300b20020'
	printf '837197674484b3f81a90cc8d46a5d724fd52d76e06520b64f2a1da1b331469aa'
	printf '00060080004300100800000000000100'
	head -c 256 /dev/urandom | od -An -tx1 -v | tr -d ' \n'
} | xxd -r -p > "$tmp/ek"
nonce=$(head -c 64 /dev/urandom | od -An -tx1 -v | tr -d ' \n')
other=$(head -c 64 /dev/urandom | od -An -tx1 -v | tr -d ' \n')
"$uie" snp sim-chain -o "$tmp/chain" --product genoa || bad "sim-chain failed"
"$uie" snp sim-attest --chain "$tmp/chain" --nonce "$nonce" --ek "$tmp/ek" -o "$tmp/tsm" || bad "sim-attest failed"
sim=("$uie" snp verify --configfs "$tmp/tsm")
roots=(--ask "$tmp/chain/ask.pem" --ark "$tmp/chain/ark.pem" --simulated)
expect 0 "ok (simulated root), bound to the vTPM's EK" "${sim[@]}" --nonce "$nonce" "${roots[@]}" --ek-out "$tmp/ek.out"
# --ek-out is a TPM2B_PUBLIC (what `uie credential make --ek` reads): the size, then the TPMT_PUBLIC.
{ printf '013a' | xxd -r -p; cat "$tmp/ek"; } > "$tmp/ek.2b"
cmp -s "$tmp/ek.2b" "$tmp/ek.out" || bad "--ek-out is not the EK the manifest names"
expect 1 "REPORT_DATA is not SHA-512(nonce || manifest)" "${sim[@]}" --nonce "$other" "${roots[@]}"
expect 1 "ARK: SHA-256 fingerprint" "${sim[@]}" --nonce "$nonce"
expect 1 "refused: VCEK: " "${sim[@]}" --nonce "$nonce" --product genoa
expect 2 "usage" "${sim[@]}" --nonce "$nonce" --simulated

# CRLs by the simulated ARK (openssl ca): one revoking nothing (PEM), one revoking the ASK (DER).
(
	cd "$tmp" || exit 1
	printf '[ca]\ndefault_ca = d\n[d]\ndatabase = index.txt\ncrlnumber = crlnumber\n' > ca.cnf
	printf 'default_md = sha384\ndefault_crl_days = 30\n' >> ca.cnf
	: > index.txt
	echo 01 > crlnumber
	ca=(openssl ca -config ca.cnf -keyfile chain/ark.key -cert chain/ark.pem)
	"${ca[@]}" -gencrl -out crl-none.pem && "${ca[@]}" -revoke chain/ask.pem &&
		"${ca[@]}" -gencrl -out crl-ask.pem && openssl crl -in crl-ask.pem -outform DER -out crl-ask.der
) > "$tmp/ca.log" 2>&1 || bad "openssl ca: $(cat "$tmp/ca.log")"
expect 0 "ok (simulated root)" "${sim[@]}" --nonce "$nonce" "${roots[@]}" --crl "$tmp/crl-none.pem"
expect 1 "ASK: revoked by the CRL" "${sim[@]}" --nonce "$nonce" "${roots[@]}" --crl "$tmp/crl-ask.der"
expect 1 "not a CRL" "${sim[@]}" --nonce "$nonce" "${roots[@]}" --crl "$tmp/ek"

[ "$fails" = 0 ] && echo "snp_cli: ok"
exit $((fails > 0))
