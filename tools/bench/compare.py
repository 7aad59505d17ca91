#!/usr/bin/python3
"""tra against ScaLAPACK pdgemm, a plain MPI + OpenBLAS SUMMA and the OpenBLAS dgemm ceiling:
the TRA paper's three matrix-multiply shapes scaled to one machine and a skinny one, plus the
paper's nearest-neighbour search and FFNN training step, on 1 and 2 ranks. Prints a table of
medians, writes JSON and a PNG chart. docs/benchmarks.md explains every column.

Usage: tools/bench/compare.py [--quick] [--build DIR] [--out DIR] [--ranks 1,2] [--repeats N]
                              [--top N] [--monitor] [--cases A,B] [--tiles 1024,2048]
                              [--cost exact|paper|time] [--all-models] [--no-calibrate]
                              [--calibrate-once] [--coretype NAME]
                              [--dtype f64|f32]
Needs the build's apps/tra and tools/bench/bench_* (bench_pdgemm only where ScaLAPACK is
installed; without it that column is empty).
"""
import argparse
import json
import os
import pathlib
import statistics
import sys
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import chart  # noqa: E402
from runner import Runner, compute_seconds, predicted_compute_seconds  # noqa: E402
import lower_bound  # noqa: E402

SOURCE = pathlib.Path(__file__).resolve().parents[2]

# (case, I, K, J): the paper's shapes (section 6.1) scaled to one machine, and a skinny one (64
# rows of A: every tile product is thin, docs/cost-model.md "Time model"); --quick divides them.
MATMULS = [("mm-square", 4096, 4096, 4096), ("mm-common-k", 1024, 65536, 1024),
           ("mm-two-large", 8192, 1024, 8192), ("mm-skinny", 64, 8192, 8192)]
QUICK_MATMULS = [("mm-square", 1024, 1024, 1024), ("mm-common-k", 256, 16384, 256),
                 ("mm-two-large", 2048, 256, 2048), ("mm-skinny", 16, 2048, 2048)]
TILES, QUICK_TILES = [1024, 2048], [256, 512]
BLOCKS, QUICK_BLOCKS = [128, 256, 512], [128]  # searched for ScaLAPACK and SUMMA
# The paper's other two experiments, at the scaled sizes plans/paper/scaled runs in ~1 s.
WORKFLOWS = ["nn-large", "nn-wide", "ffnn-speech", "ffnn-xml"]

MATMUL_WORKFLOW = """name: {case}
dtype: {dtype}
inputs:
  A: {{shape: [{I}, {K}], tile: [{tI}, {tK}], generate: {{uniform: [-1, 1], seed: 1}}}}
  B: {{shape: [{K}, {J}], tile: [{tK}, {tJ}], generate: {{uniform: [-1, 1], seed: 2}}}}
program:
  - C: {{einsum: "ik,kj->ij", inputs: [A, B]}}
outputs:
  C: {{file: out/C.h5}}
"""


def matmul_workflow(work, case, dtype, shape, tile):
    """Writes the workflow of one matmul case in `tile`-tiles (at most the matrix); its path."""
    I, K, J = shape
    wf = work / ("%s-%s-t%d.yaml" % (case, dtype, tile))
    wf.write_text(MATMUL_WORKFLOW.format(case=case, dtype=dtype, I=I, K=K, J=J, tI=min(tile, I),
                                         tK=min(tile, K), tJ=min(tile, J)))
    return wf


def grids(ranks):
    return [(r, ranks // r) for r in range(1, ranks + 1) if ranks % r == 0]


def best_config(run, configs):
    """Tries every config once; the fastest, or None when none ran."""
    trials = []
    for config in configs:
        try:
            trials.append((run(config), config))
        except RuntimeError as e:
            print("  skipped %s: %s" % (config, str(e).splitlines()[0]))
    return min(trials)[1] if trials else None


def interleaved(programs, rounds):
    """Runs every program once per round, in turn, and returns {key: [seconds per round]}.
    This machine's speed drifts by 10-15% within minutes; run one after another, a program
    measured in a slow minute would look slower than its peers. Interleaved, a drift falls
    on all of them alike, and the ratios of the same round (paired_ratio) cancel it. Each round
    starts one program later than the one before, so that none always runs first (after the
    previous case's work, or a calibration) or always after the same neighbour."""
    times = {key: [] for key in programs}
    keys = list(programs)
    for r in range(rounds):
        for i in range(len(keys)):
            key = keys[(r + i) % len(keys)]
            times[key].append(programs[key]())
    return times


def paired_ratio(mine, theirs):
    """The median over rounds of my time over theirs in the same round."""
    return statistics.median(a / b for a, b in zip(mine, theirs))


def measure_matmul(runner, case, shape, dtype, ranks, tiles, blocks, repeats, top, work,
                   monitor, models):
    I, K, J = shape
    flops = 2.0 * I * K * J
    words = lower_bound.memory_independent_words(I, J, K, ranks)
    bound = words * lower_bound.ELEMENT_BYTES[dtype]
    dims = [I, K, J]

    # A baseline's first repeat in a process pays for MPI's connection setup: each round runs
    # two and keeps the second. last[label]: its latest JSON (SUMMA's received bytes).
    last = {}

    def baseline(label, name, ranks_, args, threads=None):
        def run():
            last[label] = runner.baseline(name, ranks_, args + [2, dtype], threads)
            return last[label]["seconds"][-1]
        return run

    # (c) the ceiling: one process with every thread on the whole problem, and (on P ranks) P
    # dgemms at once, each on 1/P of the rows: no rank waits for data.
    programs = {"dgemm_whole": baseline("dgemm_whole", "ceiling", 1, dims, runner.cores)}
    config = {"dgemm_whole": dict(threads=runner.cores)}
    if ranks > 1:
        programs["ceiling"] = baseline("ceiling", "ceiling", ranks, dims)
        config["ceiling"] = dict(threads=runner.threads(ranks))

    # (a) ScaLAPACK and (b) SUMMA, each with its best grid and block size, tried once each.
    configs = [(pr, pc, nb) for pr, pc in grids(ranks) for nb in blocks]
    for name, label in (("pdgemm", "scalapack"), ("summa", "summa")):
        if not (runner.build / "tools/bench" / ("bench_" + name)).exists():
            continue
        best = best_config(
            lambda c, name=name: runner.baseline(name, ranks, dims + list(c) + [1, dtype])[
                "seconds"][0],
            configs)
        if best:
            programs[label] = baseline(label, name, ranks, dims + list(best))
            config[label] = dict(grid="%dx%d" % best[:2], block=best[2])

    workflows, tra_plans = {}, {}
    for tile in tiles:
        wf = workflows[tile] = matmul_workflow(work, case, dtype, shape, tile)
        tra_plans[tile] = tra_programs(runner, ranks, wf, work, top, programs, tile, models)

    times = interleaved(programs, repeats)
    if "ceiling" not in programs:  # on 1 rank the ceiling is the whole-problem dgemm
        times["ceiling"], config["ceiling"] = times["dgemm_whole"], config["dgemm_whole"]
    methods = {}
    for label in config:
        seconds = statistics.median(times[label])
        methods[label] = dict(seconds=seconds, gflops=flops / seconds / 1e9, **config[label])
        if "received_bytes" in last.get(label, {}):
            methods[label]["bytes"] = last[label]["received_bytes"]

    rows = []
    for tile in tiles:
        row = dict(case=case, dtype=dtype, ranks=ranks, tile=tile, shape=dict(I=I, K=K, J=J),
                   flops=flops, lower_bound_bytes=bound, methods=dict(methods))
        row["methods"]["tra"], row["tra_plans"] = tra_result(tra_plans[tile], times, tile, flops)
        first = times[(tile, tra_plans[tile][0]["name"])]
        row["paired_ratios"] = {label: paired_ratio(first, times[label]) for label in config}
        if monitor and ranks > 1:
            row["methods"]["tra"]["wire_bytes"] = runner.wire_bytes(ranks, workflows[tile], work, 1)
        rows.append(row)
        print_row(row)
    return rows


def tra_programs(runner, ranks, workflow, work, top, programs, key, models):
    """Adds tra's plan 1 (and up to `top` plans of its ranking, plus the first `top` of every
    cost model in `models`, to check the ranking) to `programs`, keyed (key, name); returns the
    plans, tra's own first, each keeping the report of its last run. A plan runs by its name
    (pins every choice), so plans listed by another model run exactly as listed."""
    plans, names = [], set()
    for cost in [None] + [m for m in models if m]:
        for p in runner.plans(ranks, workflow, top, cost):
            if p["name"] in names:
                next(q for q in plans if q["name"] == p["name"])["models"].append(cost or "default")
                continue
            names.add(p["name"])
            plan = dict(rank=p["rank"] if cost is None else None, name=p["name"],
                        models=[cost or "default"], predicted_bytes=p["exact_bytes"],
                        flops=p["flops"])

            def run(plan=plan):
                plan["report"] = runner.tra_run(ranks, workflow, work, plan["name"])
                # Mapping the tiles before the first operator: not computation, but shown.
                plan.setdefault("reserve_times", []).append(
                    plan["report"].get("reserve_seconds", 0))
                return compute_seconds(plan["report"])

            programs[(key, p["name"])] = run
            plans.append(plan)
    return plans


def tra_result(plans, times, key, flops):
    """tra's entry of a row (plan 1) and every timed plan, from the interleaved times."""
    first_times = times[(key, plans[0]["name"])]
    for plan in plans:
        report = plan.pop("report")
        plan["round_seconds"] = times[(key, plan["name"])]  # in the rounds' order
        plan["seconds"] = statistics.median(plan["round_seconds"])
        plan["predicted_seconds"] = predicted_compute_seconds(report)
        plan["reserve_seconds"] = statistics.median(plan.pop("reserve_times"))
        plan["bytes"] = report["measured_bytes"] + report["overhead_bytes"]
        plan["paired_ratio_to_first"] = paired_ratio(times[(key, plan["name"])], first_times)
    first = plans[0]
    fastest = min(plans, key=lambda p: p["seconds"])
    tra = dict(seconds=first["seconds"], gflops=(flops or first["flops"]) / first["seconds"] / 1e9,
               plan=first["name"], bytes=first["bytes"], reserve_seconds=first["reserve_seconds"],
               predicted_seconds=first["predicted_seconds"],
               ratio_to_fastest_timed=paired_ratio(first_times, times[(key, fastest["name"])]))
    return tra, plans


def measure_workflow(runner, name, ranks, repeats, top, work, ceiling_gflops, models):
    """A paper workflow: tra only; its ceiling is its flops at the dgemm ceiling's rate."""
    wf = SOURCE / "plans/paper/scaled" / (name + ".yaml")
    programs = {}
    plans = tra_programs(runner, ranks, wf, work, top, programs, name, models)
    tra, plans = tra_result(plans, interleaved(programs, repeats), name, None)
    row = dict(case=name, dtype="f64", ranks=ranks, tile=None, flops=plans[0]["flops"],
               lower_bound_bytes=None, methods={"tra": tra}, tra_plans=plans)
    if ceiling_gflops:
        seconds = plans[0]["flops"] / ceiling_gflops / 1e9
        row["methods"]["ceiling"] = dict(seconds=seconds, gflops=ceiling_gflops, estimated=True)
    print_row(row)
    return row


HEADER = ("%-13s %2s %5s %8s %7s %9s %-11s %9s %-11s %8s %7s %7s %7s %6s  %s" %
          ("case", "P", "tile", "tra s", "GF/s", "scalapk s", "grid,nb", "summa s", "grid,nb",
           "ceil s", "/scal", "/summa", "/ceil", "B/LB", "plan"))


def print_row(row):
    m = row["methods"]

    def sec(name):
        return "%.3f" % m[name]["seconds"] if name in m else "-"

    def conf(name):
        return "%s,%d" % (m[name]["grid"], m[name]["block"]) if name in m else "-"

    def ratio(name):  # of the same round where the rounds were interleaved
        paired = row.get("paired_ratios", {}).get(name)
        if paired is None and name in m:
            paired = m["tra"]["seconds"] / m[name]["seconds"]
        return "%.2f" % paired if paired is not None else "-"

    bound = row["lower_bound_bytes"]
    moved = "%.2f" % (m["tra"]["bytes"] / bound) if bound else "-"
    if "wire_bytes" in m["tra"]:
        moved += " (pml %.2f)" % (m["tra"]["wire_bytes"] / bound)
    print("%-13s %2d %5s %8.3f %7.1f %9s %-11s %9s %-11s %8s %7s %7s %7s %6s  %s" % (
        row["case"], row["ranks"], row["tile"] or "-", m["tra"]["seconds"], m["tra"]["gflops"],
        sec("scalapack"), conf("scalapack"), sec("summa"), conf("summa"), sec("ceiling"),
        ratio("scalapack"), ratio("summa"), ratio("ceiling"), moved, m["tra"]["plan"]),
        flush=True)
    for i, p in enumerate(row["tra_plans"]):
        print("%-13s    %s: %.3f s (%.2f x plan 1), predicted %.3f s (x%.2f), %d bytes; %s: %s" % (
            "", "plan %d" % p["rank"] if p["rank"] else "listed", p["seconds"],
            p["paired_ratio_to_first"], p["predicted_seconds"],
            p["predicted_seconds"] / p["seconds"] if p["seconds"] else float("nan"),
            p["predicted_bytes"], "/".join(p["models"]), p["name"]), flush=True)
    if len(row["tra_plans"]) > 1:
        print("%-13s    plan 1 / fastest timed plan: %.2f" % (
            "", m["tra"]["ratio_to_fastest_timed"]), flush=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="small sizes, about a minute")
    ap.add_argument("--build", default=str(SOURCE / "build"), help="build directory")
    ap.add_argument("--out", help="results folder (default BUILD/bench or BUILD/bench-quick)")
    ap.add_argument("--ranks", default="1,2", help="rank counts, comma-separated")
    ap.add_argument("--repeats", type=int, help="runs per median (default 3, --quick 1)")
    ap.add_argument("--top", type=int, default=1, help="also time tra's plans 2..N")
    ap.add_argument("--monitor", action="store_true",
                    help="count tra's wire bytes with OpenMPI's pml monitoring (one more run)")
    ap.add_argument("--cases", help="only these cases, comma-separated (default: all)")
    ap.add_argument("--tiles", help="only these matmul tilings, comma-separated (default: all)")
    ap.add_argument("--dtype", default="f64", choices=sorted(lower_bound.ELEMENT_BYTES),
                    help="element type of the matrix multiplies, tra's and the baselines' alike "
                         "(f32: sgemm, psgemm); the paper workflows are f64 and run only with f64")
    ap.add_argument("--cost", choices=["exact", "paper", "time"],
                    help="tra's cost model ranking the plans (default: tra's own, time)")
    ap.add_argument("--all-models", action="store_true",
                    help="also time the first --top plans of every cost model, and print how "
                         "far tra's first plan is from the fastest of them")
    ap.add_argument("--coretype",
                    help="force this OpenBLAS core (OPENBLAS_CORETYPE) for every program; by "
                         "default OpenBLAS picks its own, and Haswell is forced only where it "
                         "would fall back to Prescott (an inherited OPENBLAS_CORETYPE is dropped)")
    ap.add_argument("--cores", type=int,
                    help="cores shared out among the ranks as BLAS threads (cores / ranks each); "
                         "default: the CPUs this process may run on, so under `taskset -c 0,1` "
                         "two")
    ap.add_argument("--no-calibrate", action="store_true",
                    help="rank with tra's built-in machine profile instead of measuring one "
                         "with `tra calibrate` before each case")
    ap.add_argument("--calibrate-once", action="store_true",
                    help="one `tra calibrate` per rank count, before all cases, instead of one "
                         "before each case (at that case's shapes): faster, but the machine's "
                         "pace may change between the calibration and a case's runs")
    args = ap.parse_args()
    args.repeats = args.repeats or (1 if args.quick else 3)
    build = pathlib.Path(args.build).resolve()
    out = pathlib.Path(args.out or build / ("bench-quick" if args.quick else "bench")).resolve()
    work = out / "work"
    work.mkdir(parents=True, exist_ok=True)
    runner = Runner(build, args.cores or len(os.sched_getaffinity(0)), args.cost)
    if args.coretype:
        runner.env["OPENBLAS_CORETYPE"] = args.coretype
    models = ["exact", "paper", "time"] if args.all_models else []
    ranks_list = [int(r) for r in args.ranks.split(",")]
    matmuls = QUICK_MATMULS if args.quick else MATMULS
    tiles = QUICK_TILES if args.quick else TILES
    workflows = WORKFLOWS
    if args.cases:
        cases = args.cases.split(",")
        unknown = set(cases) - {m[0] for m in matmuls} - set(WORKFLOWS)
        if unknown:
            ap.error("unknown cases: %s" % ", ".join(sorted(unknown)))
        matmuls = [m for m in matmuls if m[0] in cases]
        workflows = [w for w in WORKFLOWS if w in cases]
    if args.dtype != "f64":
        if args.cases and workflows:
            ap.error("the paper workflows are written in f64: %s cannot run with --dtype %s"
                     % (", ".join(workflows), args.dtype))
        workflows = []
    if args.tiles:
        tiles = [int(t) for t in args.tiles.split(",")]
    blocks = QUICK_BLOCKS if args.quick else BLOCKS

    started = time.time()

    def case_workflows(case):  # the workflows whose products a case runs
        if case in workflows:
            return [SOURCE / "plans/paper/scaled" / (case + ".yaml")]
        return [matmul_workflow(work, m[0], args.dtype, m[1:], t)
                for m in matmuls if m[0] == case for t in tiles]

    def calibrate(ranks, cases, label):
        """`tra calibrate` on `ranks` ranks, measuring the products of `cases` at their shapes
        (--for); the runs that follow on that many ranks are ranked and predicted by it. Close
        before a case's runs: on the development VM the pace of the whole machine moved by
        15-20 % within minutes, every rate alike (docs/benchmarks.md, "Calibrated per case")."""
        t0 = time.time()
        path = out / ("machine-%d%s.yaml" % (ranks, label))
        runner.calibrate(ranks, path, args.quick, [w for c in cases for w in case_workflows(c)])
        print("calibrated %d rank(s)%s in %.0f s: %s" % (
            ranks, " for " + ", ".join(cases) if label else "", time.time() - t0, path),
            flush=True)

    every_case = [m[0] for m in matmuls] + workflows
    if not args.no_calibrate and args.calibrate_once:
        for ranks in ranks_list:
            calibrate(ranks, every_case, "")

    def profiled(rows, ranks):  # each row names the profile that ranked and predicted it
        for r in rows:
            r.setdefault("machine_profile", runner.machines.get(ranks))

    def calibrate_for(ranks, case):
        if not args.no_calibrate and not args.calibrate_once:
            calibrate(ranks, [case], "-" + case)

    print("cores %d, OPENBLAS_CORETYPE=%s, load average %s; matrix multiplies in %s; medians of "
          "%d runs; ratios are tra's time over the other's" % (
              runner.cores, runner.env.get("OPENBLAS_CORETYPE", "-"), os.getloadavg(), args.dtype,
              args.repeats))
    print(HEADER)
    rows = []

    def save():  # after every case, so an interrupted run keeps what it measured
        result = dict(quick=args.quick, dtype=args.dtype, cores=runner.cores, repeats=args.repeats,
                      openblas_coretype=runner.env.get("OPENBLAS_CORETYPE"),
                      machines={r: pathlib.Path(p).read_text() for r, p in runner.machines.items()},
                      load_average_end=os.getloadavg(), seconds=time.time() - started, rows=rows)
        (out / "bench.json").write_text(json.dumps(result, indent=1) + "\n")

    for ranks in ranks_list:
        for case, I, K, J in matmuls:
            calibrate_for(ranks, case)
            rows += measure_matmul(runner, case, (I, K, J), args.dtype, ranks, tiles, blocks,
                                   args.repeats, args.top, work, args.monitor, models)
            profiled(rows, ranks)
            save()
        square = next((r for r in rows if r["ranks"] == ranks and r["case"] == "mm-square"), None)
        for name in workflows:
            calibrate_for(ranks, name)
            rows.append(measure_workflow(runner, name, ranks, args.repeats, args.top, work,
                                         square and square["methods"]["ceiling"]["gflops"],
                                         models))
            profiled(rows, ranks)
            save()
    png = chart.write_chart(rows, out / "bench.png", args.dtype)
    print("wrote %s%s in %.0f s" % (out / "bench.json", " and %s" % png if png else "",
                                    time.time() - started))


if __name__ == "__main__":
    main()
