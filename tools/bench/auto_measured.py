#!/usr/bin/python3
"""`tile: auto` measured against hand tilings: compare.py's matrix-multiply cases (the TRA
paper's three shapes scaled to one machine, and a skinny one) run with both inputs `tile: auto` and with each
hand tiling t x t (t clipped to the extent), on 1 and 2 ranks, interleaved. Each rank count is
first calibrated (`tra calibrate --quick`), so tra's default model ranks with this machine's
rates, as compare.py does. Prints, per case and rank count, the median compute seconds
(runner.compute_seconds: the report's operators without reading and writing) of the auto run
and of the best hand tiling, and their ratio (issue 21's target: <= 1.10).

Usage: tools/bench/auto_measured.py [--build DIR] [--ranks 1,2] [--repeats 3]
                                    [--tiles 512,1024,2048,4096] [--quick]
"""
import argparse
import os
import pathlib
import statistics
import sys
import tempfile

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from compare import MATMULS, QUICK_MATMULS  # noqa: E402
from runner import Runner, compute_seconds  # noqa: E402

SOURCE = pathlib.Path(__file__).resolve().parents[2]

WORKFLOW = """name: {case}
dtype: f64
inputs:
  A: {{shape: [{I}, {K}], tile: {tA}, generate: {{uniform: [-1, 1], seed: 1}}}}
  B: {{shape: [{K}, {J}], tile: {tB}, generate: {{uniform: [-1, 1], seed: 2}}}}
program:
  - C: {{einsum: "ik,kj->ij", inputs: [A, B]}}
outputs:
  C: {{file: out/C.h5}}
"""


def workflow(work, case, I, K, J, t):
    if t is None:
        tA = tB = "auto"
    else:
        tA, tB = "[%d, %d]" % (min(t, I), min(t, K)), "[%d, %d]" % (min(t, K), min(t, J))
    path = work / ("%s-%s.yaml" % (case, t or "auto"))
    path.write_text(WORKFLOW.format(case=case.replace("-", "_"), I=I, K=K, J=J, tA=tA, tB=tB))
    return path


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build", default=str(SOURCE / "build"))
    ap.add_argument("--ranks", default="1,2")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--tiles", default="512,1024,2048,4096")
    ap.add_argument("--quick", action="store_true", help="compare.py's --quick shapes")
    args = ap.parse_args()
    runner = Runner(pathlib.Path(args.build), os.cpu_count())
    tiles = [int(t) for t in args.tiles.split(",")]
    cases = QUICK_MATMULS if args.quick else MATMULS
    print("| case | ranks | auto's tiling | auto s | best hand tile | hand s | auto / hand |")
    print("|---|---|---|---|---|---|---|")
    with tempfile.TemporaryDirectory() as tmp:
        work = pathlib.Path(tmp)
        for ranks in [int(r) for r in args.ranks.split(",")]:
            runner.calibrate(ranks, work / ("machine%d.yaml" % ranks), quick=True)
            for case, I, K, J in cases:
                runs = {t: workflow(work, case, I, K, J, t) for t in [None] + tiles}
                seconds, chosen = {t: [] for t in runs}, ""
                for _ in range(args.repeats):
                    for t, wf in runs.items():
                        report = runner.tra_run(ranks, wf, work)
                        seconds[t].append(compute_seconds(report))
                        if t is None:
                            chosen = report["plan"].split(",C")[0]
                median = {t: statistics.median(s) for t, s in seconds.items()}
                best = min(tiles, key=lambda t: median[t])
                print("| %s | %d | %s | %.3f | %d | %.3f | %.2f |" % (
                    case, ranks, chosen, median[None], best, median[best],
                    median[None] / median[best]), flush=True)


if __name__ == "__main__":
    main()
