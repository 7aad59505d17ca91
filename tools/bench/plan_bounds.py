#!/usr/bin/python3
"""tra's first plan for a square matrix multiply against the communication lower bounds and
SUMMA's memory, at many site counts: planning only (`tra plan`), nothing runs.

For C = A B, n x n x n in f64, each tiling (tile t x t for both operands) and each site count S,
prints the first plan by the default model (time, built-in profile unless --machine), its
predicted exact bytes, its predicted peak per site and, from lower_bound.py:
  bound      the larger of the memory-independent bound and the memory-dependent one (Irony,
             Toledo, Tiskin) for a rank holding the plan's own peak
  bytes/LB   the plan's bytes over that bound
  SUMMA mem  a 2-D SUMMA rank's A and B panels and C block on tra's process grid (grid_shape)
  peak/SUMMA the plan's peak over that
docs/cost-model.md ("Grid plans at many sites") explains the figures.

Usage: tools/bench/plan_bounds.py [--build DIR] [--n 8192] [--tiles 256,512,1024,2048]
                                  [--sites 2,4,16,64,256,1024] [--machine FILE]
"""
import argparse
import json
import math
import pathlib
import subprocess
import sys
import tempfile

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import lower_bound  # noqa: E402

SOURCE = pathlib.Path(__file__).resolve().parents[2]

WORKFLOW = """name: mm{n}
dtype: f64
inputs:
  A: {{shape: [{n}, {n}], tile: [{t}, {t}], generate: {{uniform: [-1, 1], seed: 1}}}}
  B: {{shape: [{n}, {n}], tile: [{t}, {t}], generate: {{uniform: [-1, 1], seed: 2}}}}
program:
  - C: {{einsum: "ik,kj->ij", inputs: [A, B]}}
outputs:
  C: {{file: out/C.h5}}
"""


def grid_shape(sites):
    """tra's process grid (lib/ia/grid_move.hpp): rows the largest divisor <= sqrt(S)."""
    rows = max(d for d in range(1, math.isqrt(sites) + 1) if sites % d == 0)
    return rows, sites // rows


def first_plan(tra, workflow, sites, machine):
    argv = [tra, "plan", workflow, "--sites", str(sites), "--top", "1", "--format", "json"]
    if machine:
        argv += ["--machine", machine]
    out = subprocess.run(argv, capture_output=True, text=True, check=True)
    return json.loads(out.stdout)["plans"][0]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--build", default=str(SOURCE / "build"), help="build directory")
    ap.add_argument("--n", type=int, default=8192, help="matrix extent")
    ap.add_argument("--tiles", default="256,512,1024,2048", help="tile sizes, comma-separated")
    ap.add_argument("--sites", default="2,4,16,64,256,1024", help="site counts, comma-separated")
    ap.add_argument("--machine", help="a tra calibrate profile (default: the built-in one)")
    args = ap.parse_args()
    tra = str(pathlib.Path(args.build).resolve() / "apps/tra")
    n = args.n
    print("%6s %5s %-34s %12s %12s %8s %11s %11s %10s %9s" % (
        "sites", "tile", "first plan", "bytes", "bound", "bytes/LB", "peak MiB", "SUMMA MiB",
        "peak/SUMMA", "pred s"))
    with tempfile.TemporaryDirectory() as work:
        for t in (int(x) for x in args.tiles.split(",")):
            workflow = pathlib.Path(work) / ("mm-%d.yaml" % t)
            workflow.write_text(WORKFLOW.format(n=n, t=t))
            for sites in (int(x) for x in args.sites.split(",")):
                plan = first_plan(tra, str(workflow), sites, args.machine)
                peak = plan["peak_bytes_per_site"]
                bound = 8 * lower_bound.lower_bound_words(n, n, n, sites, peak / 8)
                rows, cols = grid_shape(sites)
                summa = 8 * lower_bound.summa_panel_words(n, n, n, rows, cols)
                print("%6d %5d %-34s %12.4g %12.4g %8s %11.1f %11.1f %10.2f %9.4f" % (
                    sites, t, plan["name"][:34], plan["exact_bytes"], bound,
                    "%.2f" % (plan["exact_bytes"] / bound) if bound else "-", peak / 2 ** 20,
                    summa / 2 ** 20, peak / summa, plan["estimated_seconds"]), flush=True)


if __name__ == "__main__":
    main()
