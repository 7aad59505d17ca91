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
import option_cost

if __name__ == "__main__":
    option_cost.main(__doc__.splitlines()[0], ("trace s", "write s"),
                     lambda work: ["--trace", str(work / "trace")],
                     lambda report: report["trace"]["seconds"])
