#!/usr/bin/env python3
"""Compare a run report with the plan it ran, operator by operator.

    python3 tools/slurm/compare_report.py RUN.json EXPLAIN.json

RUN.json is `tra run PLAN.yaml --report RUN.json`, EXPLAIN.json is `tra explain PLAN.yaml
--format json` of the same plan file (the prediction, computed without running anything). Prints
one row per operator: measured payload and overhead bytes received vs the plan's exact
prediction, seconds and peak resident bytes per rank, then the totals. Exit 0 when the report is
of that plan (same name and site count, the same operators) and every measured byte count equals
the plan's; 1 otherwise, naming each difference. Standard library only, so it runs wherever the
job runs. The `write` operator (each rank writing the output tiles it holds, in turns; nothing
travels between ranks) is not part of the plan's prediction; its own prediction in the report (0
bytes) is checked instead.
"""

import json
import sys

# The report names the IA `input` operator `read`; every other name is the same.
REPORT_NAME = {"input": "read"}
ROW = "%4s  %-18s %14s %14s %10s %10s %9s %14s"


def row(op_id, name, measured, predicted, seconds, peak, note=""):
    """One table row: measured and predicted (payload, overhead) byte pairs."""
    print(ROW % (op_id, name, measured[0], predicted[0], measured[1], predicted[1],
                 "%.3f" % seconds, peak) + note)


def compare(run, plan):
    """Prints the table and returns the list of differences between the report and the plan."""
    problems = ["%s: the report says %r, the plan %r" % (key, run.get(key), plan.get(key))
                for key in ("plan", "sites") if run.get(key) != plan.get(key)]
    measured = {o["id"]: o for o in run["operators"]}
    print(ROW % ("id", "op", "measured B", "plan B", "overhead", "plan ovh", "seconds",
                 "peak B/rank"))
    for p in plan["operators"]:
        m = measured.pop(p["id"], None)
        name = REPORT_NAME.get(p["op"], p["op"])
        if m is None:
            problems.append("operator #%d %s is in the plan but not in the report"
                            % (p["id"], name))
            continue
        if m["op"] != name:
            problems.append("operator #%d: the report has %s, the plan %s"
                            % (p["id"], m["op"], name))
        got = (m["measured_bytes"], m["overhead_bytes"])
        want = (p["exact_bytes"], p["overhead_bytes"])
        row(p["id"], name, got, want, m["seconds"], m["peak_bytes"])
        if got != want:
            problems.append("operator #%d %s moved %d + %d bytes, the plan predicts %d + %d"
                            % ((p["id"], name) + got + want))
    for m in measured.values():
        if m["op"] != "write":
            problems.append("operator #%d %s is in the report but not in the plan"
                            % (m["id"], m["op"]))
            continue
        got = (m["measured_bytes"], m["overhead_bytes"])
        want = (m["predicted_bytes"], m["predicted_overhead_bytes"])
        row(m["id"], m["op"], got, want, m["seconds"], m["peak_bytes"], "   (each rank writes its own tiles)")
        if got != want:
            problems.append("the write (each rank writes its own tiles) moved %d + %d bytes, predicted %d + %d"
                            % (got + want))
    got = (run["measured_bytes"], run["overhead_bytes"])
    want = (plan["exact_bytes"], plan["overhead_bytes"])
    if got != want:
        problems.append("total: measured %d + %d bytes, the plan predicts %d + %d" % (got + want))
    print("total: %d bytes payload + %d overhead measured, plan %d + %d; %.3f s; peak %d bytes "
          "per rank (plan %d without exchange buffers)"
          % (got + want + (run["seconds"], run["peak_bytes"], plan["peak_bytes_per_site"])))
    return problems


def main(argv):
    if len(argv) != 3:
        print("usage: compare_report.py RUN.json EXPLAIN.json", file=sys.stderr)
        return 2
    with open(argv[1]) as f:
        run = json.load(f)
    with open(argv[2]) as f:
        plan = json.load(f)
    problems = compare(run, plan)
    for problem in problems:
        print("DIFFERS: " + problem)
    print("report matches the plan" if not problems else "report does NOT match the plan")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
