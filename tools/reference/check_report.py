#!/usr/bin/python3
"""Checks a `tra run --report` JSON file against the exact cost model and an independent count.

Usage: check_report.py REPORT.json [--monitoring PREFIX] [--same-bytes OTHER.json]

* Every operator's measured payload and overhead equal its prediction, and so do the totals
  (the totals cover the plan's operators, not `write`, which moves 0 bytes: each rank writes
  its own tiles; docs/runtime.md).
* No operator holds more than the plan's predicted peak (`predicted_peak_bytes` includes the
  exchange buffers, lib/ia/peak_memory.hpp), and neither does the whole run nor the memory it
  reserves for large tiles before its first operator (`reserved_bytes`), which equals its
  prediction (`predicted_reserved_bytes`: the busiest rank's tile mappings at its peak).
* --monitoring PREFIX: OpenMPI's pml monitoring files PREFIX.RANK.prof (one per rank, written by
  `mpiexec --mca pml_monitoring_enable 2 --mca pml_monitoring_enable_output 3
  --mca pml_monitoring_filename PREFIX`). Their `E` lines are the point-to-point bytes the
  application sent (`I` lines are the collectives' internal messages: the runtime's control
  traffic, never tiles). The sum of all `E` bytes must equal the report's measured payload plus
  overhead over all operators, `write` included: every tile the runtime moves travels in a
  point-to-point message it counts, and nothing else does.
* --same-bytes OTHER.json: the same plan moved the same bytes, operator by operator.
Prints one line per problem and exits 1 if there is any.
"""
import glob
import json
import sys


def operator_bytes(report):
    return [(o["id"], o["op"], o["measured_bytes"], o["overhead_bytes"]) for o in report["operators"]]


def check_prediction(report):
    problems = []
    for o in report["operators"]:
        if (o["measured_bytes"], o["overhead_bytes"]) != (o["predicted_bytes"],
                                                         o["predicted_overhead_bytes"]):
            problems.append("operator #%d %s: measured %d + %d, predicted %d + %d" % (
                o["id"], o["op"], o["measured_bytes"], o["overhead_bytes"], o["predicted_bytes"],
                o["predicted_overhead_bytes"]))
    if (report["measured_bytes"], report["overhead_bytes"]) != (report["predicted_bytes"],
                                                                report["predicted_overhead_bytes"]):
        problems.append("totals: measured %d + %d, predicted %d + %d" % (
            report["measured_bytes"], report["overhead_bytes"], report["predicted_bytes"],
            report["predicted_overhead_bytes"]))
    plan_ops = [o for o in report["operators"] if o["op"] != "write"]
    for key, total in (("measured_bytes", report["measured_bytes"]),
                       ("overhead_bytes", report["overhead_bytes"])):
        if sum(o[key] for o in plan_ops) != total:
            problems.append("%s: the operators sum to %d, the total says %d"
                            % (key, sum(o[key] for o in plan_ops), total))
    for o in report["operators"]:
        if o["peak_bytes"] > report["predicted_peak_bytes"]:
            problems.append("operator #%d %s: peak %d bytes resident, the plan predicts at most %d"
                            % (o["id"], o["op"], o["peak_bytes"], report["predicted_peak_bytes"]))
    if report.get("peak_bytes", 0) > report.get("predicted_peak_bytes", 0):
        problems.append("run: peak %d bytes resident, the plan predicts at most %d"
                        % (report["peak_bytes"], report["predicted_peak_bytes"]))
    if report.get("reserved_bytes", 0) > report.get("predicted_peak_bytes", 0):
        problems.append("run: %d bytes reserved for large tiles, the plan predicts at most %d"
                        % (report["reserved_bytes"], report["predicted_peak_bytes"]))
    if report.get("reserved_bytes", 0) != report.get("predicted_reserved_bytes", 0):
        problems.append("run: %d bytes reserved for large tiles, predicted %d"
                        % (report.get("reserved_bytes", 0),
                           report.get("predicted_reserved_bytes", 0)))
    for key in ("sites", "plan", "seconds", "peak_bytes", "predicted_peak_bytes",
                "reserved_bytes", "reserve_seconds", "predicted_reserved_bytes",
                "predicted_reserve_seconds"):
        if key not in report:
            problems.append("the report has no '%s'" % key)
    return problems


def monitored_bytes(prefix, sites):
    files = sorted(glob.glob(prefix + ".*.prof"))
    if len(files) != sites:
        return None, ["pml monitoring wrote %d files %s.*.prof, expected one per rank (%d)"
                      % (len(files), prefix, sites)]
    total = 0
    for name in files:
        with open(name) as f:
            for line in f:
                fields = line.split("\t")
                if fields[0] == "E":  # E  sender  receiver  "N bytes"  "M msgs sent" ...
                    total += int(fields[3].split()[0])
    return total, []


def main(argv):
    if len(argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    with open(argv[1]) as f:
        report = json.load(f)
    problems = check_prediction(report)
    args = argv[2:]
    while args:
        flag, value, args = args[0], args[1], args[2:]
        if flag == "--monitoring":
            wire, more = monitored_bytes(value, report["sites"])
            problems += more
            counted = sum(o["measured_bytes"] + o["overhead_bytes"] for o in report["operators"])
            if wire is not None and wire != counted:
                problems.append("pml monitoring counts %d bytes sent point to point; the report "
                                "counts %d payload + overhead (write included)" % (wire, counted))
        elif flag == "--same-bytes":
            with open(value) as f:
                other = json.load(f)
            if operator_bytes(report) != operator_bytes(other):
                problems.append("the bytes per operator differ from %s: %s vs %s" % (
                    value, operator_bytes(report), operator_bytes(other)))
        else:
            print("unknown option " + flag, file=sys.stderr)
            return 2
    for p in problems:
        print(p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
