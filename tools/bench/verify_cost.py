#!/usr/bin/python3
"""What `tra run --verify` costs: the paper workflows (plans/paper/scaled) and the examples run
with and without --verify, interleaved, on each rank count; prints per workflow the median run
seconds of both (the report's top-level `seconds`: planning, operators and writing), the median
seconds of the check itself (the report's `verify.seconds`, the slowest rank's) and the check's
share of the run without it. docs/reliability.md, "Verifying outputs", quotes it.

Usage: tools/bench/verify_cost.py [--build DIR] [--ranks 1,2] [--repeats N]
                                  [--workflows A.yaml,B.yaml]
"""
import argparse
import pathlib
import statistics
import sys
import tempfile

from runner import Runner

SOURCE = pathlib.Path(__file__).resolve().parents[2]


def workflows(named):
    if named:
        return [pathlib.Path(w).resolve() for w in named.split(",")]
    return sorted((SOURCE / "plans/paper/scaled").glob("*.yaml")) + sorted(
        (SOURCE / "plans/examples").glob("*.yaml"))


def measure(runner, ranks, workflow, repeats, work):
    """Medians over `repeats` interleaved pairs: (run s, run s with --verify, check s)."""
    plain, verified, check = [], [], []
    for _ in range(repeats):
        plain.append(runner.tra_run(ranks, workflow, work)["seconds"])
        report = runner.tra_run(ranks, workflow, work, extra=["--verify"])
        verified.append(report["seconds"])
        check.append(report["verify"]["seconds"])
    return statistics.median(plain), statistics.median(verified), statistics.median(check)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build", default=str(SOURCE / "build"), help="build directory")
    ap.add_argument("--ranks", default="1,2", help="rank counts, comma-separated")
    ap.add_argument("--repeats", type=int, default=3, help="interleaved pairs per median")
    ap.add_argument("--workflows", help="these workflows, comma-separated (default: the paper "
                    "workflows and the examples)")
    args = ap.parse_args()
    build = pathlib.Path(args.build).resolve()
    ranks_list = [int(r) for r in args.ranks.split(",")]
    runner = Runner(build, cores=max(ranks_list))
    print("%-16s %5s %10s %10s %10s %7s" % ("workflow", "ranks", "run s", "verify s",
                                            "check s", "check%"))
    with tempfile.TemporaryDirectory(prefix="tra-verify-") as tmp:
        for workflow in workflows(args.workflows):
            for ranks in ranks_list:
                try:
                    plain, verified, check = measure(runner, ranks, workflow, args.repeats,
                                                     pathlib.Path(tmp))
                except RuntimeError as e:  # a workflow that cannot run here (e.g. too big)
                    print("%-16s %5d  failed: %s" % (workflow.stem, ranks,
                                                     str(e).splitlines()[0]), file=sys.stderr)
                    continue
                print("%-16s %5d %10.3f %10.3f %10.4f %6.1f%%" % (
                    workflow.stem, ranks, plain, verified, check, 100 * check / plain),
                    flush=True)


if __name__ == "__main__":
    main()
