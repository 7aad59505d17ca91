#!/usr/bin/python3
"""Loops against separate steps: STEPS SGD steps of the TRA paper's two-layer FFNN
(plans/paper/scaled/ffnn-speech.yaml's program; plans/examples/ffnn_train.yaml is a small copy)
run as ONE `tra run` of a workflow with `repeat: {times: STEPS, carry: {W1: W1n, W2: W2n}}`,
against one step's compute seconds x STEPS, one step being a single-iteration run of the same
body (the same workflow with `times: 1`, so the same plan ranking; both pass `--plan PLAN`).

Compute seconds are the report's operator seconds minus `read` and `write` (for the loop, the
operators are summed over its iterations). Printed per rank count, medians over --repeats runs
made interleaved (loop, single, loop, single, ...):

  loop compute      the loop run's compute seconds
  single x STEPS    one step's compute seconds times STEPS
  ratio             loop compute / (single x STEPS)  (target <= 1.1)
  loop wall         the loop run's whole wall seconds (mpirun start to exit) and the report's
                    top-level seconds (rank 0: planning, execution, writing)
  single wall       the same for the single step
  carry s           the part of loop compute spent in the `carry` operators (moving W1n, W2n
                    into W1, W2 between iterations; a single step has none)
  iteration s       min / median / max of the loop report's per-iteration seconds (last repeat)

and, from the last repeat, the three operators whose seconds per loop iteration exceed the
single step's the most (`tra explain WF` names the step of each operator id).

and the plan names of both runs (said when they differ). Every run uses --threads 1 and one
OpenBLAS thread per rank. docs/benchmarks.md ("Loops: 100 SGD steps in one run") records
results.

Usage: tools/bench/loop_steps.py [--build DIR] [--ranks 1,2] [--repeats 3] [--steps 100]
                                 [--n 2000] [--d 320] [--h 2000] [--l 10] [--tiles 5]
                                 [--plan 1] [--out FILE.json]
"""
import argparse
import json
import pathlib
import statistics
import sys
import tempfile
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from runner import Runner, compute_seconds  # noqa: E402

ROOT = pathlib.Path(__file__).resolve().parents[2]


def workflow(name, n, d, h, l, tiles, times):
    """The FFNN SGD step of plans/paper/scaled/ffnn-speech.yaml with each dimension cut into
    `tiles` tiles (L into min(tiles, L)), as a loop of `times` iterations carrying the weights."""
    tl = min(tiles, l)
    for extent, parts in ((n, tiles), (d, tiles), (h, tiles), (l, tl)):
        if extent % parts:
            raise SystemExit("--tiles %d does not divide %d" % (parts, extent))
    bn, bd, bh, bl = n // tiles, d // tiles, h // tiles, l // tl
    return f"""# {name}: {times} SGD step(s) of the paper's FFNN (tools/bench/loop_steps.py writes it)
name: {name}
dtype: f64
inputs:
  X:  {{shape: [{n}, {d}], tile: [{bn}, {bd}], generate: {{uniform: [-1, 1], seed: 41}}}}
  Y:  {{shape: [{n}, {l}], tile: [{bn}, {bl}], generate: {{integers: [0, 1], seed: 42}}}}
  W1: {{shape: [{d}, {h}], tile: [{bd}, {bh}], generate: {{uniform: [-0.05, 0.05], seed: 43}}}}
  W2: {{shape: [{h}, {l}], tile: [{bh}, {bl}], generate: {{uniform: [-0.05, 0.05], seed: 44}}}}
program:
  - z1j:  {{join: [X, W1], on: [[1], [0]], kernel: matmul}}
  - z1:   {{aggregate: z1j, by: [0, 2], kernel: add}}
  - a1:   {{transform: z1, kernel: relu}}
  - z2j:  {{join: [a1, W2], on: [[1], [0]], kernel: matmul}}
  - z2:   {{aggregate: z2j, by: [0, 2], kernel: add}}
  - a2:   {{transform: z2, kernel: sigmoid}}
  - g2:   {{join: [a2, Y], on: [[0, 1], [0, 1]], kernel: sub}}
  - dW2j: {{join: [a1, g2], on: [[0], [0]], kernel: matmul_tn}}
  - dW2:  {{aggregate: dW2j, by: [1, 2], kernel: add}}
  - g1j:  {{join: [g2, W2], on: [[1], [1]], kernel: matmul_nt}}
  - g1a:  {{aggregate: g1j, by: [0, 2], kernel: add}}
  - rg:   {{transform: a1, kernel: relu_grad}}
  - g1:   {{join: [rg, g1a], on: [[0, 1], [0, 1]], kernel: mul}}
  - dW1j: {{join: [X, g1], on: [[0], [0]], kernel: matmul_tn}}
  - dW1:  {{aggregate: dW1j, by: [1, 2], kernel: add}}
  - sW2:  {{transform: dW2, kernel: scale(0.01)}}
  - W2n:  {{join: [W2, sW2], on: [[0, 1], [0, 1]], kernel: sub}}
  - sW1:  {{transform: dW1, kernel: scale(0.01)}}
  - W1n:  {{join: [W1, sW1], on: [[0, 1], [0, 1]], kernel: sub}}
repeat: {{times: {times}, carry: {{W1: W1n, W2: W2n}}}}
outputs:
  W1n: {{file: out/{name}.h5}}
  W2n: {{file: out/{name}.h5}}
"""


def timed_run(runner, ranks, wf, work, plan):
    start = time.perf_counter()
    report = runner.tra_run(ranks, wf, work, plan=plan, extra=["--threads", "1"])
    return report, time.perf_counter() - start


def operator_gaps(loop, single, steps, top=3):
    """The `top` operators (same plan: same ids) whose loop seconds per iteration exceed the
    single step's the most: [{id, op, loop_per_iteration_s, single_s}]."""
    one = {op["id"]: op["seconds"] for op in single["operators"]}
    rows = [{"id": op["id"], "op": op["op"], "loop_per_iteration_s": op["seconds"] / steps,
             "single_s": one[op["id"]]}
            for op in loop["operators"]
            if op["op"] not in ("read", "write") and op["id"] in one]
    rows.sort(key=lambda r: r["single_s"] - r["loop_per_iteration_s"])
    return rows[:top]


def median(values):
    return statistics.median(values) if values else float("nan")


def main(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--build", default=str(ROOT / "build"), help="tra's build folder")
    p.add_argument("--ranks", default="1,2", help="rank counts, e.g. 1,2")
    p.add_argument("--repeats", type=int, default=3, help="runs of each kind per rank count")
    p.add_argument("--steps", type=int, default=100, help="SGD steps of the loop run")
    p.add_argument("--n", type=int, default=2000, help="samples N")
    p.add_argument("--d", type=int, default=320, help="features D")
    p.add_argument("--h", type=int, default=2000, help="hidden units H")
    p.add_argument("--l", type=int, default=10, help="labels L")
    p.add_argument("--tiles", type=int, default=5, help="tiles per dimension (L: at most L)")
    p.add_argument("--plan", default="1", help="tra run --plan for both runs (rank or pins)")
    p.add_argument("--out", help="also write the results as JSON")
    args = p.parse_args(argv)
    ranks_list = [int(r) for r in args.ranks.split(",")]
    build = pathlib.Path(args.build).resolve()
    if not (build / "apps/tra").exists():
        raise SystemExit("no %s/apps/tra (--build)" % build)
    runner = Runner(build, cores=1)  # one BLAS thread per rank, whatever the rank count

    results = []
    with tempfile.TemporaryDirectory(prefix="loop_steps-") as tmp:
        tmp = pathlib.Path(tmp)
        sizes = (args.n, args.d, args.h, args.l, args.tiles)
        loop_wf, single_wf = tmp / "ffnn_loop.yaml", tmp / "ffnn_step.yaml"
        loop_wf.write_text(workflow("ffnn_loop", *sizes, args.steps))
        single_wf.write_text(workflow("ffnn_step", *sizes, 1))
        print("FFNN N=%d D=%d H=%d L=%d, %d tiles per dimension; %d steps; --plan %s; "
              "--threads 1; %d repeats, interleaved" % (*sizes, args.steps, args.plan,
                                                         args.repeats), flush=True)
        for ranks in ranks_list:
            loop_c, single_c, loop_w, single_w, loop_t, single_t = [], [], [], [], [], []
            carry = []
            plans, iteration_seconds = set(), []
            for repeat in range(args.repeats):
                report, wall = timed_run(runner, ranks, loop_wf, tmp / "loop", args.plan)
                iterations = report.get("iterations", [])
                if len(iterations) != args.steps:
                    raise SystemExit("the loop's report has %d iterations, not %d"
                                     % (len(iterations), args.steps))
                loop_c.append(compute_seconds(report))
                carry.append(sum(op["seconds"] for op in report["operators"]
                                 if op["op"] == "carry"))
                loop_w.append(wall)
                loop_t.append(report["seconds"])
                iteration_seconds = [it["seconds"] for it in iterations]
                loop_plan, loop_report = report["plan"], report
                report, wall = timed_run(runner, ranks, single_wf, tmp / "single", args.plan)
                single_c.append(compute_seconds(report))
                single_w.append(wall)
                single_t.append(report["seconds"])
                plans.add((loop_plan, report["plan"]))
                gaps = operator_gaps(loop_report, report, args.steps)
                print("  %d rank(s), repeat %d: loop compute %.3f s (wall %.2f s), one step "
                      "%.4f s (wall %.2f s)" % (ranks, repeat + 1, loop_c[-1], loop_w[-1],
                                               single_c[-1], single_w[-1]), flush=True)
            row = {
                "ranks": ranks,
                "loop_compute_s": median(loop_c),
                "single_compute_s": median(single_c),
                "single_x_steps_s": median(single_c) * args.steps,
                "ratio": median(loop_c) / (median(single_c) * args.steps),
                "ratios": [lc / (sc * args.steps) for lc, sc in zip(loop_c, single_c)],
                "carry_s": median(carry),
                "loop_wall_s": median(loop_w),
                "loop_report_s": median(loop_t),
                "single_wall_s": median(single_w),
                "single_report_s": median(single_t),
                "iteration_s": {"min": min(iteration_seconds),
                                "median": median(iteration_seconds),
                                "max": max(iteration_seconds)},
                "plans": sorted(plans),
                "operator_gaps": gaps,
            }
            results.append(row)

    print()
    print("| ranks | loop compute s | 1 step x %d s | ratio (per repeat) | carry s | "
          "loop wall s (report) | 1 step wall s (report) | iteration s min / median / max |"
          % args.steps)
    print("|---|---|---|---|---|---|---|---|")
    for r in results:
        it = r["iteration_s"]
        print("| %d | %.3f | %.3f | %.3f (%s) | %.3f | %.2f (%.2f) | %.2f (%.2f) | "
              "%.4f / %.4f / %.4f |"
              % (r["ranks"], r["loop_compute_s"], r["single_x_steps_s"], r["ratio"],
                 ", ".join("%.3f" % x for x in r["ratios"]), r["carry_s"], r["loop_wall_s"],
                 r["loop_report_s"], r["single_wall_s"], r["single_report_s"], it["min"],
                 it["median"], it["max"]))
    print()
    for r in results:
        for loop_plan, single_plan in r["plans"]:
            if loop_plan == single_plan:
                print("%d rank(s): plan %s (both runs)" % (r["ranks"], loop_plan))
            else:
                print("%d rank(s): the plans DIFFER: loop %s, single step %s"
                      % (r["ranks"], loop_plan, single_plan))
        print("%d rank(s), last repeat: operators slower per loop iteration than in the single "
              "step: %s" % (r["ranks"], "; ".join(
                  "#%d %s %.4f s vs %.4f s" % (g["id"], g["op"], g["loop_per_iteration_s"],
                                               g["single_s"]) for g in r["operator_gaps"])))
    if args.out:
        pathlib.Path(args.out).write_text(json.dumps({"sizes": dict(zip("ndhlt", sizes)),
                                                      "steps": args.steps,
                                                      "results": results}, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
