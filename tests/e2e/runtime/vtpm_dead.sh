#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# A dead vTPM (issue 11, point 5): the monitor runs on swtpm, swtpm is
# killed.  `uie status` exits non-zero naming the TPM, every grant fails
# closed, and nothing is logged that the TPM did not see.
. "$(dirname "$0")/lib.sh"
command -v swtpm >/dev/null || { echo "SKIP: no swtpm"; exit 77; }

status_field() { "$UIE" status --socket "$SOCK" 2>/dev/null | awk -v k="$1:" '$1 == k { print $2 }'; }

start_swtpm || fail "swtpm did not start"
start_monitor "$UIE_MONITORD" "$SOCK" "swtpm:127.0.0.1:$SW_PORT" || fail "monitor did not start"
run_uie -- /usr/bin/true
expect_rc 0 "grant with a live vTPM"
"$UIE" status --socket "$SOCK" >/dev/null || fail "status unhealthy with a live vTPM"

stop_swtpm
"$UIE" status --socket "$SOCK" >"$T/st" 2>"$T/st.err" && fail "status healthy after the vTPM died"
grep -q "unhealthy: TPM error" "$T/st.err" || { cat "$T/st.err" >&2; fail "status does not name the vTPM"; }
grep -q "health: vTPM" "$T/monitord.log" || fail "the diagnostics do not name the vTPM"
before=$(status_field records)
run_uie -- /usr/bin/true
[ "$RC" = 0 ] && fail "grant allowed with the vTPM dead"
expect_err "TPM error" "dead vTPM"
[ "$(status_field records)" = "$before" ] || fail "records logged that the vTPM never saw"
"$UIE" status --socket "$SOCK" >/dev/null 2>&1 && fail "status healthy after a failed extend"
kill -0 "$MON_PID" 2>/dev/null || fail "the monitor died with its vTPM"
echo PASS
