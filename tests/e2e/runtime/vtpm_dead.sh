#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# A monitor on swtpm (issue 11, points 1 and 5): restarted, its new run's
# evidence verifies; then swtpm is killed.  `uie status` exits non-zero naming the TPM, every grant fails
# closed, and nothing is logged that the TPM did not see.
. "$(dirname "$0")/lib.sh"
command -v swtpm >/dev/null || { echo "SKIP: no swtpm"; exit 77; }

start_swtpm || fail "swtpm did not start"
start_monitor "$UIE_MONITORD" "$SOCK" "swtpm:127.0.0.1:$SW_PORT" || fail "monitor did not start"
run_uie -- /usr/bin/true
expect_rc 0 "grant with a live vTPM"
"$UIE" status --socket "$SOCK" >/dev/null || fail "status unhealthy with a live vTPM"

# A restart on a TPM that keeps its PCRs: the monitor resets PCR 16, the new run's evidence
# verifies on its own and names the run it continues (docs/FORMATS.md 3.6).
kill -KILL "$MON_PID"; wait "$MON_PID" 2>/dev/null; MON_PID=
start_monitor "$UIE_MONITORD" "$SOCK" "swtpm:127.0.0.1:$SW_PORT" || fail "restart on swtpm"
run_uie -- /usr/bin/true
expect_rc 0 "grant after the restart"
"$UIE" evidence export --socket "$SOCK" --nonce 0badc0de -o "$T/ae" --pubkey-out "$T/ak.pub" \
	>/dev/null 2>&1 || fail "export after the restart"
"$UIE" verify "$T/ae" --nonce 0badc0de --ak-pub "$T/ak.pub" >"$T/verify" 2>&1 ||
	{ cat "$T/verify" >&2; fail "evidence after a restart on swtpm does not verify"; }
grep -q "continues run 1" "$T/verify" || { cat "$T/verify" >&2; fail "restart not shown"; }

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
