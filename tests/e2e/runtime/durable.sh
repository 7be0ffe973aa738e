#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# The monitor stays up and never fails open (issue 11, points 1, 2, 5):
#  - SIGSTOP then SIGCONT: it keeps serving (its seccomp filter allows
#    restart_syscall);
#  - SIGKILL and restart over the same state directory: the policy in force
#    comes back (ENFORCE, same epoch), what was refused stays refused, a
#    tree that ran under the killed monitor gets no more grants, and the
#    new run's evidence verifies and names the run it continues;
#  - a damaged log stops the start with an error naming the place;
#  - a full disk: grants fail closed naming ENOSPC, status is unhealthy,
#    and once space is back nothing granted is missing from the log;
#  - first-seen mode: repeats are not logged, but every export carries the
#    counts (REPEAT_COUNT records), which the verifier checks and reports;
#    a library two programs load is one grant per program, each followed by
#    a SUBJECT record naming that program's EXECVE grant and digest.
. "$(dirname "$0")/lib.sh"
P=$PROGS
LIB=$P/libuiegood.so

note "stop and continue"
start_runtime_monitor
kill -STOP "$MON_PID"
sleep 0.5
kill -CONT "$MON_PID"
sleep 0.5
kill -0 "$MON_PID" 2>/dev/null || fail "monitor died after SIGSTOP/SIGCONT"
"$UIE" status --socket "$SOCK" >/dev/null || fail "no status after SIGCONT"
run_uie -- /usr/bin/true
expect_rc 0 "grant after SIGCONT"
"$UIE_MONITORD" --socket "$T/other.sock" --vtpm "builtin:$T/ak2.pem" --foreground \
	--state-dir "$T/state" --log-file "$T/other.log" && fail "two monitors on one state directory"
grep -q "in use by another monitor" "$T/other.log" || fail "no diagnostic for a state directory in use"
stop_monitor || fail "monitor exit status $? after SIGSTOP/SIGCONT"

note "kill and restart under ENFORCE"
rm -rf "$T/state"
gen_key
start_runtime_monitor --trust-key "$T/pub.pem"
install_policy enforce "$P/late" /usr/bin/true "$LIB"
epoch=$(status_field epoch)
run_uie -- "$P/dso" "$P/libuieevil.so"
[ "$RC" = 0 ] && fail "unlisted program allowed before the restart"
refused_rc=$RC
# A tree started under run 1; it asks for its grants only after the restart.
rm -f "$T/go" "$T/result" "$T/result.ready"
"$UIE" run --socket "$SOCK" -- "$P/late" "$T/go" "$T/result" "$LIB" /usr/bin/true \
	>"$T/late.out" 2>"$T/late.err" &
UPID=$!
wait_file "$T/result.ready" || { cat "$T/late.err" >&2; fail "the tree of run 1 did not start"; }
kill -KILL "$MON_PID"; wait "$MON_PID" 2>/dev/null; MON_PID=
start_runtime_monitor --trust-key "$T/pub.pem" || fail "restart"
[ "$(status_field mode)" = ENFORCE ] || fail "restarted in $(status_field mode), not ENFORCE"
[ "$(status_field epoch)" = "$epoch" ] || fail "restarted at epoch $(status_field epoch), not $epoch"
[ "$(status_field boot)" = 2 ] || fail "restart is not run 2"
grep -q "run 2 continues run 1" "$T/monitord.log" || fail "restart not in the diagnostics"
run_uie -- "$P/dso" "$P/libuieevil.so"
[ "$RC" = "$refused_rc" ] || { show; fail "refused before the restart, rc $RC after"; }
run_uie -- /usr/bin/true
expect_rc 0 "listed program after the restart"
touch "$T/go"
wait "$UPID"
for _ in $(seq 600); do [ -s "$T/result" ] && break; sleep 0.05; done
res=$(cat "$T/result" 2>/dev/null)
[ "$res" = "mmap=EACCES exec=EACCES" ] || { cat "$T/late.err" >&2; fail "old tree after restart: '$res'"; }
grep -q "monitor was restarted" "$T/late.err" || { cat "$T/late.err" >&2; fail "no restart diagnostic"; }
"$UIE" evidence export --socket "$SOCK" --nonce 0a0b0c0d0e0f1011 -o "$T/ae" --pubkey-out "$T/ak.pub" \
	>/dev/null 2>&1 || fail "evidence export after restart"
"$UIE" verify "$T/ae" --nonce 0a0b0c0d0e0f1011 --ak-pub "$T/ak.pub" --policy "$T/pkg" >"$T/verify" 2>&1 ||
	{ cat "$T/verify" >&2; fail "evidence after restart does not verify"; }
grep -q "continues run 1" "$T/verify" || { cat "$T/verify" >&2; fail "verifier does not show the restart"; }
stop_monitor || fail "monitor exit status $?"

note "a policy that fails its checks again stops the start"
if start_monitor "$UIE_MONITORD" "$SOCK" "builtin:$T/ak.pem" 2>/dev/null; then
	fail "restarted without the key that signed the policy in force"
fi
MON_PID=
grep -q "fails its checks again: unknown or unusable key; refusing to start in bootstrap" \
	"$T/monitord.log" || { tail -3 "$T/monitord.log" >&2; fail "no diagnostic for the untrusted package"; }
mv "$T/state/packages.2" "$T/packages.2"
if start_monitor "$UIE_MONITORD" "$SOCK" "builtin:$T/ak.pem" --trust-key "$T/pub.pem" 2>/dev/null; then
	fail "restarted without the package of the policy in force"
fi
MON_PID=
grep -q "packages.2: the package of the policy in force (epoch $epoch) is not there" \
	"$T/monitord.log" || fail "no diagnostic for the missing package"
mv "$T/packages.2" "$T/state/packages.2"
ls "$T/state" | grep -q '^log.3' && fail "a refused start left a run behind"
start_runtime_monitor --trust-key "$T/pub.pem" || fail "second restart"
[ "$(status_field mode)/$(status_field epoch)/$(status_field boot)" = "ENFORCE/$epoch/3" ] ||
	fail "second restart: $(status_field mode)/$(status_field epoch)/$(status_field boot)"
stop_monitor || fail "monitor exit status $?"

note "a damaged log stops the start"
cp "$T/state/log.3" "$T/log.3.good"
truncate -s -100 "$T/state/log.3"
if start_monitor "$UIE_MONITORD" "$SOCK" "builtin:$T/ak.pem" --trust-key "$T/pub.pem" 2>/dev/null; then
	fail "monitor started over a truncated log"
fi
MON_PID=
grep -q "log.3: damaged at byte .*input truncated" "$T/monitord.log" || fail "no diagnostic naming the damage"
[ -e "$T/state/log.4" ] && fail "a new run was started over a damaged log"
cp "$T/log.3.good" "$T/state/log.3"
flip_byte "$T/state/log.3" $((80 + 184 + 60)) || fail "cannot alter the log"
start_monitor "$UIE_MONITORD" "$SOCK" "builtin:$T/ak.pem" --trust-key "$T/pub.pem" 2>/dev/null &&
	fail "monitor started over a modified log"
MON_PID=
grep -q "log.3: damaged at byte 264 (record 1): log replay diverged" "$T/monitord.log" ||
	fail "no diagnostic naming the modified record"

note "full disk"
rm -rf "$T/state"
mkdir "$T/small"
mount -t tmpfs -o size=64k tmpfs "$T/small" || fail "tmpfs"
start_runtime_monitor --state-dir "$T/small/state"
run_uie -- /usr/bin/true
expect_rc 0 "grant with space"
dd if=/dev/zero of="$T/small/fill" bs=4k 2>/dev/null
# tmpfs refuses a write only when it needs a new page: the log's last page fills first.
for _ in $(seq 60); do
	run_uie -- /usr/bin/true
	[ "$RC" = 0 ] || break
done
[ "$RC" = 0 ] && fail "grants still allowed with the log's disk full"
expect_err "no space left on device" "full disk"
before=$(status_field records)
run_uie -- /usr/bin/true
[ "$RC" = 0 ] && fail "grant allowed with the log's disk full"
"$UIE" status --socket "$SOCK" >"$T/st" 2>"$T/st.err" && fail "status healthy with the disk full"
grep -q "unhealthy: no space left on device" "$T/st.err" || { cat "$T/st.err" >&2; fail "status names no cause"; }
[ "$(status_field records)" = "$before" ] || fail "records grew while nothing could be written"
rm -f "$T/small/fill"
run_uie -- /usr/bin/true
expect_rc 0 "grant once space is back"
"$UIE" status --socket "$SOCK" >/dev/null || fail "status unhealthy once space is back"
n=$(status_field records)
stop_monitor || fail "monitor exit status $?"
size=$(stat -c %s "$T/small/state/log.1")
[ "$size" = $((80 + 184 * n)) ] || fail "log.1 holds $(( (size - 80) / 184 )) records, the monitor logged $n"
start_runtime_monitor --state-dir "$T/small/state" || fail "restart after a full disk"
stop_monitor
umount "$T/small"
note "checkpoint after an acknowledged export"
start_runtime_monitor --state-dir "$T/cp"
run_uie -- /usr/bin/true
"$UIE" evidence export --socket "$SOCK" --nonce 01 -o "$T/ae1" --pubkey-out "$T/ak1.pub" \
	>/dev/null 2>&1 || fail "export before the checkpoint"
"$UIE" verify "$T/ae1" --nonce 01 --ak-pub "$T/ak1.pub" --state "$T/vstate" >/dev/null ||
	fail "first export does not verify"
k=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["next_seq"])' "$T/vstate")
python3 -c 'import json,sys; s=json.load(open(sys.argv[1])); s["pcr"]="00"*32; json.dump(s,open(sys.argv[2],"w"))' \
	"$T/vstate" "$T/forged"
"$UIE" evidence checkpoint --socket "$SOCK" --state "$T/forged" 2>"$T/cp.err" &&
	fail "checkpoint with a vPCR16 not of this log accepted"
grep -q "binding" "$T/cp.err" || { cat "$T/cp.err" >&2; fail "forged checkpoint: no clear error"; }
"$UIE" evidence checkpoint --socket "$SOCK" --state "$T/vstate" | grep -q "checkpoint at record $k" ||
	fail "checkpoint refused"
run_uie -- /usr/bin/true
expect_rc 0 "grant after the checkpoint"
"$UIE" evidence export --socket "$SOCK" --nonce 02 -o "$T/ae2" >/dev/null 2>&1 &&
	fail "records before the checkpoint still exported"
"$UIE" evidence export --socket "$SOCK" --nonce 03 --since "$k" -o "$T/ae3" >/dev/null 2>&1 ||
	fail "export from the checkpoint"
"$UIE" verify "$T/ae3" --nonce 03 --ak-pub "$T/ak1.pub" --state "$T/vstate" >"$T/v3" 2>&1 ||
	{ cat "$T/v3" >&2; fail "export from the checkpoint does not verify"; }
n=$(status_field records)
stop_monitor || fail "monitor exit status $?"
size=$(stat -c %s "$T/cp/log.1")
[ "$size" = $((80 + 184 * n)) ] || fail "the log file lost records the checkpoint dropped from memory"

note "first-seen mode: repeat counts in verified evidence"
# counts K: each count record's record and count, and checks that the counts
# of the records repeated add up to the monitor's STATUS repeats.
counts() {
	python3 - "$1" "$2" <<'PY'
import json, sys
v = json.load(open(sys.argv[1]))
assert v["accepted"], v["reason"]
last = {}
for c in v["repeat_counts"]:
    last[c["record"]] = c["count"]
assert len(v["repeat_counts"]) == v["repeat_records"]
repeats = sum(n - 1 for n in last.values())
assert repeats == int(sys.argv[2]), (repeats, sys.argv[2], last)
print(" ".join("%d:%d" % kv for kv in sorted(last.items())))
PY
}
start_runtime_monitor --state-dir "$T/fs" --first-seen
for _ in 1 2 3 4 5; do run_uie -- /usr/bin/true; expect_rc 0 "first-seen grant"; done
n5=$(status_field records)
"$UIE" evidence export --socket "$SOCK" --nonce 04 -o "$T/fs1" --pubkey-out "$T/akf.pub" \
	>/dev/null 2>&1 || fail "first-seen export"
"$UIE" verify "$T/fs1" --nonce 04 --ak-pub "$T/akf.pub" --state "$T/fstate" --json >"$T/fs1.json" ||
	{ cat "$T/fs1.json" >&2; fail "first-seen evidence does not verify"; }
c1=$(counts "$T/fs1.json" "$(status_field repeats)") || fail "counts in the first export"
[ -n "$c1" ] || fail "no repeat counts after five runs"
note "counts: $c1"
for kv in $c1; do [ "${kv#*:}" = 5 ] || fail "a grant of five runs counted ${kv#*:} ($c1)"; done
[ "$(status_field records)" = $((n5 + $(echo "$c1" | wc -w))) ] || fail "the export logged not one record per count"
# Three more runs: the next (incremental) export carries only the new counts.
for _ in 1 2 3; do run_uie -- /usr/bin/true; expect_rc 0 "first-seen grant"; done
k=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["next_seq"])' "$T/fstate")
"$UIE" evidence export --socket "$SOCK" --nonce 05 --since "$k" -o "$T/fs2" >/dev/null 2>&1 ||
	fail "second first-seen export"
"$UIE" verify "$T/fs2" --nonce 05 --ak-pub "$T/akf.pub" --state "$T/fstate" --json >"$T/fs2.json" ||
	{ cat "$T/fs2.json" >&2; fail "second first-seen export does not verify"; }
c2=$(counts "$T/fs2.json" "$(status_field repeats)") || fail "counts in the second export"
[ "$c2" = "$(echo "$c1" | sed 's/:5/:8/g')" ] || fail "counts after eight runs: '$c2', after five: '$c1'"
grep -q '"repeat_unresolved": '"$(echo "$c2" | wc -w)" "$T/fs2.json" || fail "incremental counts not unresolved"
# A count modified in the evidence is refused.
python3 - "$T/fs1" "$T/fs1.bad" <<'PY' || fail "no count record to modify"
import sys
b = bytearray(open(sys.argv[1], "rb").read())
# the first record whose event_type (record offset 12) is 23 and reason (146) is 16
for off in range(0, len(b) - 184):
    if b[off + 8] == 16 and b[off + 12] == 23 and b[off + 146] == 16 and b[off + 80] == 5:
        b[off + 80] = 6
        break
else:
    sys.exit(1)
open(sys.argv[2], "wb").write(b)
PY
"$UIE" verify "$T/fs1.bad" --nonce 04 --ak-pub "$T/akf.pub" >"$T/fs1.bad.out" 2>&1
[ $? = 16 ] || { cat "$T/fs1.bad.out" >&2; fail "a modified repeat count is not a replay failure"; }
stop_monitor || fail "monitor exit status $?"

note "first-seen mode: one grant per (library, program) with its SUBJECT record"
LIBC=$(ldd /usr/bin/true | awk '/libc\.so/ { print $3 }')
[ -f "$LIBC" ] || fail "no libc found for /usr/bin/true"
start_runtime_monitor --state-dir "$T/fss" --first-seen --trust-key "$T/pub.pem"
install_policy enforce /bin/sh /usr/bin/true /usr/bin/ls
tree() { run_uie -- /bin/sh -c '/usr/bin/true && /usr/bin/ls / >/dev/null && echo ran'; }
tree; expect_rc 0 "two programs in an enforced tree"; expect_out ran "two programs in an enforced tree"
n1=$(status_field records)
r1=$(status_field repeats)
for _ in 1 2; do tree; expect_rc 0 "the same tree again"; done
[ "$(status_field records)" = "$n1" ] || fail "repeated runs logged $(( $(status_field records) - n1 )) new records"
[ "$(status_field repeats)" -gt "$r1" ] || fail "repeated runs counted no repeats"
"$UIE" evidence export --socket "$SOCK" --nonce 06 -o "$T/fss.ae" --pubkey-out "$T/aks.pub" \
	>/dev/null 2>&1 || fail "first-seen export with subjects"
"$UIE" verify "$T/fss.ae" --nonce 06 --ak-pub "$T/aks.pub" --policy "$T/pkg" --json >"$T/fss.json" ||
	{ cat "$T/fss.json" >&2; fail "evidence with subject records does not verify"; }
counts "$T/fss.json" "$(status_field repeats)" >/dev/null || fail "counts with subjects"
# Every MMAP_EXEC of libc is followed by a SUBJECT record naming the EXECVE
# record of the program that loaded it, with that program's digest; each
# (libc digest, program) once; true and ls each among them.
python3 - "$T/fss.ae" "$T/fss.json" "$LIBC" /usr/bin/true /usr/bin/ls <<'PY' ||
import json, os, struct, sys
ae = open(sys.argv[1], "rb").read()
n = struct.unpack_from("<H", ae, 8)[0]
first, count = struct.unpack_from("<QQ", ae, 10 + n)
base = 66 + n
recs = {}
for i in range(count):
    r = ae[base + 184 * i: base + 184 * (i + 1)]
    seq, ev = struct.unpack_from("<Q", r, 0)[0], struct.unpack_from("<H", r, 12)[0]
    ino, vaddr, fo = struct.unpack_from("<Q", r, 40)[0], struct.unpack_from("<Q", r, 72)[0], struct.unpack_from("<Q", r, 88)[0]
    recs[seq] = dict(ev=ev, ino=ino, vaddr=vaddr, fo=fo, digest=r[96:128], dec=r[145])
libc, progs = os.stat(sys.argv[3]).st_ino, {os.stat(p).st_ino: p for p in sys.argv[4:]}
pairs, seen = set(), set()
for seq, r in sorted(recs.items()):
    if r["ev"] != 2 or r["ino"] != libc:
        continue
    s = recs.get(seq + 1)
    assert s and s["ev"] == 24 and s["fo"] == seq, "libc grant %d has no subject record" % seq
    x = recs[s["vaddr"]]
    assert x["ev"] == 1 and x["digest"] == s["digest"] and x["dec"] == 1, (seq, s, x)
    key = (r["digest"], s["digest"])
    assert key not in pairs, "libc granted twice for one program (record %d)" % seq
    pairs.add(key)
    if x["ino"] in progs:
        seen.add(progs[x["ino"]])
assert seen == set(progs.values()), "libc grants name only %s" % sorted(seen)
v = json.load(open(sys.argv[2]))
assert v["subject_records"] == len(v["subjects"]) > 0, v["subject_records"]
assert sum(1 for r in recs.values() if r["ev"] == 24) == v["subject_records"]
print("libc: %d grant records for %d programs" % (len(pairs), len({p for _, p in pairs})))
PY
	fail "libc's grants and their subjects"
stop_monitor || fail "monitor exit status $?"
echo PASS
