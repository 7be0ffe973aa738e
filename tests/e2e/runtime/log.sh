#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Every grant and refusal of the interceptor appears in the monitor's log
# with the right event, role, decision and digest: the log is exported as a
# canonical event log (uie evidence export --cel) and compared with the
# digests `uie ref scan` computes for the same files.
. "$(dirname "$0")/lib.sh"
gen_key
start_runtime_monitor --trust-key "$T/pub.pem"
P=$PROGS
install_policy enforce "$P/dlopen_n" "$P/jit" "$P/libuiedso1.so"

run_uie -- "$P/dlopen_n" "$P/libuiedso1.so" "$P/libuieevil.so"
expect_rc 11 "unlisted shared object"
run_uie -- "$P/jit" mprotect
expect_out REFUSED "anonymous mprotect"
run_uie -- "$P/payload"
expect_rc 126 "unlisted program"

ld=$(closure "$P/dlopen_n" | grep ld-linux)
"$UIE" ref scan "$P/dlopen_n" "$ld" "$P/libuiedso1.so" "$P/libuieevil.so" "$P/payload" \
	-o "$T/ref" 2>/dev/null || fail "ref scan"
"$UIE" evidence export --socket "$SOCK" --nonce 0011223344556677 -o "$T/ae" --cel "$T/cel.json" \
	>/dev/null 2>&1 || fail "evidence export"

python3 - "$T/cel.json" "$T/ref" "$P" "$ld" <<'PY' || fail "log check"
import json, sys
cel, ref, progs, ld = sys.argv[1:]
dig = {}
for line in open(ref):
    if line.startswith('role='):
        f = dict(kv.split('=', 1) for kv in line.split())
        dig[f['path']] = f['digest'].split(':', 1)[1]
recs = [e['content'] for e in json.load(open(cel)) if e.get('content_type') == 'uie_log_record']
# (what, event, role, decision, digest or None, reason or None)
want = [
    ('main executable allowed', 1, 1, 1, dig[progs + '/dlopen_n'], None),
    ('interpreter allowed', 1, 2, 1, dig[ld], None),
    ('listed object allowed', 2, 3, 1, dig[progs + '/libuiedso1.so'], None),
    ('unlisted object denied', 2, 3, 0, dig[progs + '/libuieevil.so'], None),
    ('unlisted program denied', 1, 1, 0, dig[progs + '/payload'], None),
    ('anonymous NX->X denied', 3, 5, 0, None, 5),
]
bad = 0
for what, ev, role, dec, d, reason in want:
    hits = [r for r in recs if r['event_type'] == ev and r['role'] == role and
            r['decision'] == dec and (d is None or r['digest'] == d) and
            (reason is None or r['reason'] == reason)]
    print(('ok   ' if hits else 'MISS ') + what, file=sys.stderr)
    bad += not hits
sys.exit(1 if bad else 0)
PY
echo PASS
