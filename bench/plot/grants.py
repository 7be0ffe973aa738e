# SPDX-License-Identifier: Apache-2.0
"""Where each grant's time goes: reads the files bench/workloads/uie-configs.sh's
uie_grant_timing writes (samples/grants,WORKLOAD) and renders them for
docs/PERFORMANCE.md; used by bench/plot/summarize.py and bench/real/summarize.py."""
import os

STEPS = ["identify", "seal", "monitor", "answer", "total"]
MON_STEPS = ["measure", "decide", "log", "extend", "total"]


def _fields(words):
    return {k: v for k, v in (w.split("=", 1) for w in words if "=" in w)}


def load(samples, workload):
    """([(kind, {field: value})] of the interceptor, {field: value} of the monitor or None)."""
    kinds, mon = [], None
    try:
        with open(os.path.join(samples, "grants," + workload)) as f:
            for line in f:
                w = line.split()
                if line.startswith("uie: grants: ") and len(w) > 3:
                    kinds.append((w[2], _fields(w[3:])))
                elif line.startswith("monitor: "):
                    mon = _fields(w[1:])
    except OSError:
        pass
    return kinds, mon


def markdown(samples, workload, title):
    """Lines of a table and a sentence for one workload; [] when it was not timed."""
    kinds, mon = load(samples, workload)
    if not kinds:
        return []
    out = ["Where each grant's time goes, %s (Enforce, one run under `uie run --timing` and a "
           "monitor started with `--timing`; medians per notification in us; a notification may "
           "make several monitor requests, e.g. a program and its interpreter):" % title, "",
           "| notification | n | monitor requests | identify | seal | monitor round trips | answer "
           "| total | answered without the monitor |",
           "|---|---|---|---|---|---|---|---|---|"]
    for kind, f in kinds:
        n = int(f.get("n", "0"))
        asks = "%.2f per notification" % (int(f.get("asks", "0")) / n) if n else "none"
        steps = [f.get(s, "?") if n else "-" for s in STEPS]
        out.append("| %s | %d | %s | %s | %s |" % (kind, n, asks, " | ".join(steps), f.get("local", "?")))
    out.append("")
    if mon:
        out.append("uie-monitord per MEASURE request (n=%s, medians in us): %s. One round trip "
                   "(the monitor column over the requests per notification) less this total is the "
                   "transport and the wake-ups between the processes." %
                   (mon.get("n", "?"), ", ".join("%s %s" % (s, mon.get(s, "?")) for s in MON_STEPS)))
        out.append("")
    return out
