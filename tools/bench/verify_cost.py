#!/usr/bin/python3
"""What `tra run --verify` costs: the paper workflows (plans/paper/scaled) and the examples run
with and without --verify, interleaved, on each rank count; prints per workflow the median run
seconds of both (the report's top-level `seconds`: planning, operators and writing), the median
seconds of the check itself (the report's `verify.seconds`, the slowest rank's), the check's
share of the run without it (own%) and the difference of the medians (diff%, noisier: it holds
the run-to-run spread too). docs/reliability.md, "Verifying outputs", quotes it.

Usage: tools/bench/verify_cost.py [--build DIR] [--ranks 1,2] [--repeats N]
                                  [--workflows A.yaml,B.yaml]
"""
import option_cost

if __name__ == "__main__":
    option_cost.main(__doc__.splitlines()[0], ("verify s", "check s"),
                     lambda work: ["--verify"], lambda report: report["verify"]["seconds"])
