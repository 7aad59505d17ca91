#!/usr/bin/python3
"""How well `tile: auto` chooses tiles: tra's first plan for a square matrix multiply whose
inputs say `tile: auto`, against the best hand tiling and against the communication lower bounds
and SUMMA's memory, at many site counts: planning only (`tra plan`), nothing runs.

For C = A B, n x n x n in f64 (einsum "ik,kj->ij", both inputs `tile: auto`), at each site count
S, by the default model (time, built-in profile unless --machine), prints:
  auto       the first plan of the auto workflow (its name starts with the chosen tiling), its
             predicted seconds and the wall time of that `tra plan`
  best hand  over every hand tiling A@{ti}x{tk},B@{tk}x{tj} with ti, tk, tj from --tiles, the
             first plan with the least predicted seconds (a tiling pinned with --plan plans as
             that hand tiling); pins tra refuses are skipped and counted: `refused` pins, of
             which `>16S` have more than 16 x S tiles in an input (outside tra's space)
  auto/hand  the auto plan's predicted seconds over the best hand tiling's (target <= 1.10)
  bytes/LB   the auto plan's exact bytes over the larger of the memory-independent bound and the
             memory-dependent one for a rank holding the plan's own peak (lower_bound.py), as in
             plan_bounds.py (target <= 1.5 at 16-1024 sites)
  peak/SUMMA the auto plan's peak per site over a 2-D SUMMA rank's A and B panels and C block on
             tra's process grid (target <= 2)
docs/benchmarks.md ("Automatic tiling: search quality") records a run.

Usage: tools/bench/auto_tiling.py [--tra PATH] [--n 8192] [--sites 2,4,16,64,256,1024]
                                  [--tiles 256,512,1024,2048,4096,8192] [--machine FILE] [--quick]
                                  [--ranks-per-host N]
"""
import argparse
import itertools
import json
import os
import pathlib
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import lower_bound  # noqa: E402
from plan_bounds import grid_shape  # noqa: E402

SOURCE = pathlib.Path(__file__).resolve().parents[2]
QUICK_TILES = "512,1024,2048"

WORKFLOW = """name: mm{n}_auto
dtype: f64
inputs:
  A: {{shape: [{n}, {n}], tile: auto, generate: {{uniform: [-1, 1], seed: 1}}}}
  B: {{shape: [{n}, {n}], tile: auto, generate: {{uniform: [-1, 1], seed: 2}}}}
program:
  - C: {{einsum: "ik,kj->ij", inputs: [A, B]}}
outputs:
  C: {{file: out/C.h5}}
"""


def first_plan(tra, workflow, sites, machine, per_host, pin=None):
    """(tra's first plan as a dict, wall seconds), or (None, wall seconds) when tra refuses."""
    argv = [tra, "plan", workflow, "--sites", str(sites), "--top", "1", "--format", "json"]
    if per_host:
        argv += ["--ranks-per-host", str(per_host)]
    if pin:
        argv += ["--plan", pin]
    if machine:
        argv += ["--machine", machine]
    env = {k: v for k, v in os.environ.items() if k != "TRA_MACHINE"}
    t0 = time.perf_counter()
    out = subprocess.run(argv, capture_output=True, text=True, env=env)
    wall = time.perf_counter() - t0
    if out.returncode != 0:
        return None, wall
    return json.loads(out.stdout)["plans"][0], wall


def best_hand(tra, workflow, n, sites, tiles, machine, per_host):
    """(best first plan over every hand tiling, pins run, pins refused, of those >16S)."""
    best, ran, refused, outside = None, 0, 0, 0
    for ti, tk, tj in itertools.product(tiles, repeat=3):
        pin = "A@%dx%d,B@%dx%d" % (ti, tk, tk, tj)
        plan, _ = first_plan(tra, workflow, sites, machine, per_host, pin)
        ran += 1
        if plan is None:
            refused += 1
            most = max((n // ti) * (n // tk), (n // tk) * (n // tj))
            outside += most > 16 * sites
            continue
        if best is None or plan["estimated_seconds"] < best["estimated_seconds"]:
            best = plan
    return best, ran, refused, outside


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tra", default=str(SOURCE / "build/apps/tra"), help="the tra binary")
    ap.add_argument("--n", type=int, default=8192, help="matrix extent")
    ap.add_argument("--sites", default="2,4,16,64,256,1024", help="site counts, comma-separated")
    ap.add_argument("--tiles", default="256,512,1024,2048,4096,8192",
                    help="hand tile sizes per label, comma-separated")
    ap.add_argument("--machine", help="a tra calibrate profile (default: the built-in one)")
    ap.add_argument("--quick", action="store_true", help="hand tiles %s only" % QUICK_TILES)
    ap.add_argument("--ranks-per-host", type=int, default=0,
                    help="plan for hosts of this many sites each (tra plan --ranks-per-host; "
                         "default: every site on one host, as tra plan assumes)")
    args = ap.parse_args()
    tra = str(pathlib.Path(args.tra).resolve())
    n = args.n
    tiles = [int(x) for x in (QUICK_TILES if args.quick else args.tiles).split(",")]
    print("n %d, hand tiles %s per label, model time, machine %s, %s" % (
        n, ",".join(map(str, tiles)), args.machine or "built-in",
        "%d sites per host" % args.ranks_per_host if args.ranks_per_host else "one host"))
    print("%5s %-52s %9s %7s %-52s %9s %9s %8s %9s %9s %10s %5s %7s %5s" % (
        "sites", "auto: first plan", "pred s", "wall s", "best hand tiling: first plan", "pred s",
        "auto/hand", "bytes/LB", "peak MiB", "SUMMA MiB", "peak/SUMMA", "pins", "refused", ">16S"))
    with tempfile.TemporaryDirectory() as work:
        workflow = pathlib.Path(work) / "mm-auto.yaml"
        workflow.write_text(WORKFLOW.format(n=n))
        for sites in (int(x) for x in args.sites.split(",")):
            auto, wall = first_plan(tra, str(workflow), sites, args.machine, args.ranks_per_host)
            if auto is None:
                print("%5d tra refused the auto workflow" % sites, flush=True)
                continue
            hand, ran, refused, outside = best_hand(tra, str(workflow), n, sites, tiles,
                                                    args.machine, args.ranks_per_host)
            peak = auto["peak_bytes_per_site"]
            bound = 8 * lower_bound.lower_bound_words(n, n, n, sites, peak / 8)
            rows, cols = grid_shape(sites)
            summa = 8 * lower_bound.summa_panel_words(n, n, n, rows, cols)
            seconds = auto["estimated_seconds"]
            print("%5d %-52s %9.4f %7.2f %-52s %9.4f %9s %8s %9.1f %9.1f %10.2f %5d %7d %5d" % (
                sites, auto["name"], seconds, wall, hand["name"] if hand else "-",
                hand["estimated_seconds"] if hand else float("nan"),
                "%.3f" % (seconds / hand["estimated_seconds"]) if hand else "-",
                "%.2f" % (auto["exact_bytes"] / bound) if bound else "-", peak / 2 ** 20,
                summa / 2 ** 20, peak / summa, ran, refused, outside), flush=True)


if __name__ == "__main__":
    main()
