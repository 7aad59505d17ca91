#!/usr/bin/python3
"""What `tra run --trace DIR` costs: the paper workflows (plans/paper/scaled) and the examples
run with and without --trace, interleaved, on each rank count; prints per workflow the median
run seconds of both (the report's top-level `seconds`, which includes writing the traces: they
are written before the run ends), the median seconds of writing them (the report's
`trace.seconds`, the slowest rank's), its share of the run without tracing (own%) and the
difference of the medians (diff%: recording the spans and writing the files, with the
run-to-run spread). docs/runtime.md, "Traces", quotes it.

Usage: tools/bench/trace_cost.py [--build DIR] [--ranks 1,2] [--repeats N]
                                 [--workflows A.yaml,B.yaml]
"""
import itertools

import option_cost

RUNS = itertools.count()


def trace_folder(work):
    """A new folder per run, as a user's new run would have: replacing the last run's files
    would add the file system's cost of freeing them (milliseconds for a loop's megabytes)."""
    return ["--trace", str(work / ("trace-%d" % next(RUNS)))]


if __name__ == "__main__":
    option_cost.main(__doc__.splitlines()[0], ("trace s", "write s"), trace_folder,
                     lambda report: report["trace"]["seconds"])
