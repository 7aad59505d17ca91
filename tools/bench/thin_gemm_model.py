#!/usr/bin/python3
"""How well the time model predicts the paper workflows' compute seconds with and without its
charge for thin gemm calls (the excess-bytes rates of docs/cost-model.md, "Time model"): per
rank count, `tra calibrate` writes a profile ("with"), and a copy with both excess rates at
1e15 charges nothing ("without"); then every scaled paper workflow runs its first plan under
each profile, interleaved, and the table shows predicted over measured compute seconds
(operators but read and write, as compare.py), medians over the rounds. docs/benchmarks.md,
"Thin products in the time model".

Usage: tools/bench/thin_gemm_model.py [--build DIR] [--ranks 1,2] [--rounds 3]
                                      [--cases ffnn-xml,nn-wide,...] [--out DIR]
"""
import argparse
import os
import pathlib
import re
import statistics
import sys
import tempfile

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from runner import Runner, compute_seconds, predicted_compute_seconds  # noqa: E402

SOURCE = pathlib.Path(__file__).resolve().parents[2]
CASES = ["ffnn-speech", "ffnn-xml", "nn-large", "nn-wide", "mm-common-k", "mm-general",
         "mm-two-large"]
MODELS = ["without", "with"]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build", default=str(SOURCE / "build"))
    ap.add_argument("--ranks", default="1,2")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--cases", default=",".join(CASES))
    ap.add_argument("--out", default=None, help="folder for profiles and outputs (default: temp)")
    args = ap.parse_args()
    out = pathlib.Path(args.out or tempfile.mkdtemp(prefix="tra-thin-gemm-"))
    (out / "work").mkdir(parents=True, exist_ok=True)
    runner = Runner(pathlib.Path(args.build), os.cpu_count() or 1)
    ranks = [int(r) for r in args.ranks.split(",")]
    cases = args.cases.split(",")

    profiles = {}
    for n in ranks:
        with_path, without_path = out / ("with-%d.yaml" % n), out / ("without-%d.yaml" % n)
        text = runner.calibrate(n, with_path, quick=False)
        without_path.write_text(re.sub(r"(excess_bytes_per_second:) .*", r"\1 1.0e+15", text))
        profiles[n] = {"with": str(with_path), "without": str(without_path)}
        print("%d rank(s): %s" % (n, " ".join(
            line.strip() for line in text.splitlines() if "excess" in line)))

    ratios = {}
    for _ in range(args.rounds):
        for n in ranks:
            for case in cases:
                for model in MODELS:
                    runner.machines[n] = profiles[n][model]
                    report = runner.tra_run(n, SOURCE / "plans/paper/scaled" / (case + ".yaml"),
                                            out / "work")
                    ratio = predicted_compute_seconds(report) / compute_seconds(report)
                    ratios.setdefault((n, case, model), []).append(ratio)

    print("\npredicted / measured compute seconds, median of %d rounds (each round's values)"
          % args.rounds)
    print("| ranks | workflow | without | with |")
    print("|---|---|---|---|")
    for n in ranks:
        for case in cases:
            cells = ["%.2f (%s)" % (statistics.median(r), ", ".join("%.2f" % x for x in r))
                     for r in (ratios[(n, case, m)] for m in MODELS)]
            print("| %d | %s | %s |" % (n, case, " | ".join(cells)))


if __name__ == "__main__":
    main()
