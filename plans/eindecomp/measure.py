#!/usr/bin/python3
"""Measure EinDecomp's chain experiment (plans/eindecomp/chain-*.yaml) with tra: for each
workflow and rank count, `mpirun -n R tra run` REPEATS times, interleaved, and print the plan,
its predicted bytes and seconds, the measured bytes and the median measured seconds of its
operators without reading and writing (what the plan computes and moves), and the whole run
(which for tile: auto includes planning every tiling).

    /usr/bin/python3 plans/eindecomp/measure.py [--tra build/apps/tra] [--ranks 2,4] [--repeats 3]

Runs under the environment's OPENBLAS_NUM_THREADS (default 1 here) with oversubscription.
"""
import argparse
import json
import os
import statistics
import subprocess
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
NAMES = ["chain-square-sqrt", "chain-square-auto", "chain-skewed-sqrt", "chain-skewed-auto"]


def run(tra, wf, ranks, work):
    out, report = os.path.join(work, "out"), os.path.join(work, "r.json")
    subprocess.run(["rm", "-rf", out], check=True)
    env = dict(os.environ, OMPI_MCA_rmaps_base_oversubscribe="1",
               OPENBLAS_NUM_THREADS=os.environ.get("OPENBLAS_NUM_THREADS", "1"))
    subprocess.run(["mpirun", "-n", str(ranks), tra, "run", wf, "--out-dir", out, "--report",
                    report], check=True, env=env, stdout=subprocess.DEVNULL)
    with open(report) as f:
        return json.load(f)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tra", default=os.path.join(ROOT, "build", "apps", "tra"))
    ap.add_argument("--ranks", default="2,4")
    ap.add_argument("--repeats", type=int, default=3)
    args = ap.parse_args()
    ranks = [int(r) for r in args.ranks.split(",")]
    seconds, whole, last = {}, {}, {}
    with tempfile.TemporaryDirectory() as work:
        for _ in range(args.repeats):
            for r in ranks:
                for name in NAMES:
                    rep = run(args.tra, os.path.join(HERE, name + ".yaml"), r, work)
                    ops = sum(o["seconds"] for o in rep["operators"] if o["op"] not in ("read", "write"))
                    seconds.setdefault((r, name), []).append(ops)
                    whole.setdefault((r, name), []).append(rep["seconds"])
                    last[(r, name)] = rep
    print("| ranks | workflow | plan | predicted bytes | measured bytes | predicted s | measured s | whole run s |")
    print("|---|---|---|---|---|---|---|---|")
    for r in ranks:
        for name in NAMES:
            rep = last[(r, name)]
            print("| %d | %s | `%s` | %d | %d | %.4f | %.4f | %.3f |" % (
                r, name, rep["plan"], rep["predicted_bytes"], rep["measured_bytes"],
                rep["predicted_seconds"], statistics.median(seconds[(r, name)]),
                statistics.median(whole[(r, name)])))


if __name__ == "__main__":
    main()
