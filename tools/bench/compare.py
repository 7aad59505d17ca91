#!/usr/bin/python3
"""tra against ScaLAPACK pdgemm, a plain MPI + OpenBLAS SUMMA and the OpenBLAS dgemm ceiling:
the TRA paper's three matrix-multiply shapes scaled to one machine, plus its nearest-neighbour
search and FFNN training step, on 1 and 2 ranks. Prints a table of medians, writes JSON and a
PNG chart. docs/benchmarks.md explains every column.

Usage: tools/bench/compare.py [--quick] [--build DIR] [--out DIR] [--ranks 1,2] [--repeats N]
                              [--top N] [--monitor] [--cases A,B] [--tiles 1024,2048]
                              [--cost exact|paper|time]
Needs the build's apps/tra and tools/bench/bench_* (bench_pdgemm only where ScaLAPACK is
installed; without it that column is empty).
"""
import argparse
import json
import os
import pathlib
import statistics
import subprocess
import sys
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import chart  # noqa: E402
import lower_bound  # noqa: E402

SOURCE = pathlib.Path(__file__).resolve().parents[2]

# (case, I, K, J): the paper's shapes (section 6.1) scaled to one machine; --quick divides them.
MATMULS = [("mm-square", 4096, 4096, 4096), ("mm-common-k", 1024, 65536, 1024),
           ("mm-two-large", 8192, 1024, 8192)]
QUICK_MATMULS = [("mm-square", 1024, 1024, 1024), ("mm-common-k", 256, 16384, 256),
                 ("mm-two-large", 2048, 256, 2048)]
TILES, QUICK_TILES = [1024, 2048], [256, 512]
BLOCKS, QUICK_BLOCKS = [128, 256, 512], [128]  # searched for ScaLAPACK and SUMMA
# The paper's other two experiments, at the scaled sizes plans/paper/scaled runs in ~1 s.
WORKFLOWS = ["nn-large", "nn-wide", "ffnn-speech", "ffnn-xml"]

MATMUL_WORKFLOW = """name: {case}
dtype: f64
inputs:
  A: {{shape: [{I}, {K}], tile: [{tI}, {tK}], generate: {{uniform: [-1, 1], seed: 1}}}}
  B: {{shape: [{K}, {J}], tile: [{tK}, {tJ}], generate: {{uniform: [-1, 1], seed: 2}}}}
program:
  - C: {{einsum: "ik,kj->ij", inputs: [A, B]}}
outputs:
  C: {{file: out/C.h5}}
"""


class Runner:
    """Runs the programs under mpirun with one BLAS thread count per rank count."""

    def __init__(self, build, cores, cost):
        self.build = build
        self.cores = cores
        self.cost = cost  # tra's cost model: which plan rank N is
        self.env = dict(os.environ)
        for key, value in [("OMPI_ALLOW_RUN_AS_ROOT", "1"),
                           ("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1"),
                           ("OMPI_MCA_btl_vader_single_copy_mechanism", "none"),
                           ("OMPI_MCA_rmaps_base_oversubscribe", "1"),
                           # Binding one rank to one core would also bind its BLAS threads.
                           ("OMPI_MCA_hwloc_base_binding_policy", "none"),
                           # A rank waiting for a peer yields its core instead of spinning, so
                           # on a busy machine it does not take the core a peer computes on.
                           ("OMPI_MCA_mpi_yield_when_idle", "1")]:
            self.env.setdefault(key, value)
        coretype = default_coretype()
        if coretype:
            self.env.setdefault("OPENBLAS_CORETYPE", coretype)

    def threads(self, ranks):
        return max(1, self.cores // ranks)

    def mpirun(self, ranks, argv, threads=None, options=()):
        env = dict(self.env)
        env["OPENBLAS_NUM_THREADS"] = env["OMP_NUM_THREADS"] = str(threads or self.threads(ranks))
        cmd = ["mpirun", "-n", str(ranks)] + list(options) + [str(a) for a in argv]
        out = subprocess.run(cmd, env=env, capture_output=True, text=True)
        if out.returncode != 0:
            raise RuntimeError("%s failed (%d):\n%s%s" % (" ".join(cmd), out.returncode,
                                                           out.stdout, out.stderr))
        return out.stdout

    def baseline(self, name, ranks, args, threads=None):
        """Runs tools/bench/bench_NAME; its JSON line (seconds per repeat, ...)."""
        line = self.mpirun(ranks, [self.build / "tools/bench" / ("bench_" + name)] + args,
                           threads).strip().splitlines()[-1]
        return json.loads(line)

    def tra_run(self, ranks, workflow, work, plan=1, options=()):
        """One `tra run`; its report (the JSON of docs/runtime.md)."""
        report = work / "report.json"
        self.mpirun(ranks, [self.build / "apps/tra", "run", workflow, "--plan", plan,
                            "--cost", self.cost, "--report", report, "--out-dir", work / "out", "--force"],
                    options=options)
        return json.loads(report.read_text())

    def wire_bytes(self, ranks, workflow, work, plan):
        """Bytes the plan's operators put on the wire, counted by OpenMPI's pml monitoring
        rather than by tra: every point-to-point byte sent (lines `E` of the profiles; with
        pml_monitoring_enable 2 the collectives' own messages are `I` lines, not counted) minus
        the report's `write` (0: each rank writes its own tiles)."""
        prefix = work / "monitor"
        for old in work.glob("monitor.*.prof"):
            old.unlink()
        report = self.tra_run(ranks, workflow, work, plan, options=[
            "--mca", "pml_monitoring_enable", "2", "--mca", "pml_monitoring_enable_output", "3",
            "--mca", "pml_monitoring_filename", str(prefix)])
        sent = 0
        for prof in work.glob("monitor.*.prof"):
            for line in prof.read_text().splitlines():
                if line.startswith("E\t"):
                    sent += int(line.split("\t")[3].split()[0])
        write = [op for op in report["operators"] if op["op"] == "write"]
        return sent - sum(op["measured_bytes"] + op["overhead_bytes"] for op in write)

    def plans(self, ranks, workflow, top):
        out = subprocess.run([self.build / "apps/tra", "plan", workflow, "--sites", str(ranks),
                              "--top", str(top), "--cost", self.cost, "--format", "json"],
                             env=self.env,
                             capture_output=True, text=True, check=True)
        return json.loads(out.stdout)["plans"]


def default_coretype():
    """OpenBLAS 0.3.21 falls back to its slow Prescott kernels on CPUs it does not know (tra run
    warns); any x86 CPU with AVX2 and FMA runs its Haswell kernels. None where that is unknown."""
    try:
        flags = next(line for line in open("/proc/cpuinfo") if line.startswith("flags")).split()
    except (OSError, StopIteration):
        return None
    return "Haswell" if "avx2" in flags and "fma" in flags else None


def compute_seconds(report):
    """The run's computation: every operator but reading inputs and writing outputs."""
    return sum(op["seconds"] for op in report["operators"] if op["op"] not in ("read", "write"))


def grids(ranks):
    return [(r, ranks // r) for r in range(1, ranks + 1) if ranks % r == 0]


def best_config(run, configs, repeats):
    """Tries every config once, then repeats the fastest; (median seconds, config, result)."""
    trials = []
    for config in configs:
        try:
            trials.append((min(run(config, 1)["seconds"]), config))
        except RuntimeError as e:
            print("  skipped %s: %s" % (config, str(e).splitlines()[0]))
    if not trials:
        return None
    _, config = min(trials)
    result = run(config, repeats)
    return statistics.median(result["seconds"]), config, result


def measure_matmul(runner, case, shape, ranks, tiles, blocks, repeats, top, work, monitor):
    I, K, J = shape
    flops = 2.0 * I * K * J
    bound = lower_bound.memory_independent_words(I, J, K, ranks) * 8
    dims = [I, K, J]
    methods = {}

    def entry(seconds, **extra):
        return dict(seconds=seconds, gflops=flops / seconds / 1e9, **extra)

    # (c) the ceiling: one process with every thread on the whole problem, and (on P ranks) P
    # dgemms at once, each on 1/P of the rows: no rank waits for data.
    whole = runner.baseline("ceiling", 1, dims + [repeats], threads=runner.cores)
    methods["dgemm_whole"] = entry(statistics.median(whole["seconds"]), threads=runner.cores)
    if ranks > 1:
        split = runner.baseline("ceiling", ranks, dims + [repeats])
        methods["ceiling"] = entry(statistics.median(split["seconds"]),
                                   threads=runner.threads(ranks))
    else:
        methods["ceiling"] = dict(methods["dgemm_whole"])

    # (a) ScaLAPACK and (b) SUMMA, each with its best grid and block size.
    configs = [(pr, pc, nb) for pr, pc in grids(ranks) for nb in blocks]
    for name, label in (("pdgemm", "scalapack"), ("summa", "summa")):
        if not (runner.build / "tools/bench" / ("bench_" + name)).exists():
            continue
        best = best_config(
            lambda c, n, name=name: runner.baseline(name, ranks, dims + list(c) + [n]),
            configs, repeats)
        if best:
            seconds, (pr, pc, nb), result = best
            methods[label] = entry(seconds, grid="%dx%d" % (pr, pc), block=nb)
            if "received_bytes" in result:
                methods[label]["bytes"] = result["received_bytes"]

    rows = []
    for tile in tiles:
        wf = work / ("%s-t%d.yaml" % (case, tile))
        wf.write_text(MATMUL_WORKFLOW.format(case=case, I=I, K=K, J=J, tI=min(tile, I),
                                             tK=min(tile, K), tJ=min(tile, J)))
        row = dict(case=case, ranks=ranks, tile=tile, shape=dict(I=I, K=K, J=J), flops=flops,
                   lower_bound_bytes=bound, methods=dict(methods))
        row["methods"]["tra"], row["tra_plans"] = measure_tra(runner, ranks, wf, work, repeats,
                                                              top, flops)
        if monitor and ranks > 1:
            row["methods"]["tra"]["wire_bytes"] = runner.wire_bytes(ranks, wf, work, 1)
        rows.append(row)
        print_row(row)
    return rows


def measure_tra(runner, ranks, workflow, work, repeats, top, flops):
    """tra's plan 1 (and up to `top` plans, to check the ranking) over `repeats` runs."""
    plans = []
    for p in runner.plans(ranks, workflow, top):
        reports = [runner.tra_run(ranks, workflow, work, p["rank"]) for _ in range(repeats)]
        seconds = statistics.median(compute_seconds(r) for r in reports)
        plans.append(dict(rank=p["rank"], name=p["name"], predicted_bytes=p["exact_bytes"],
                          seconds=seconds,
                          bytes=reports[0]["measured_bytes"] + reports[0]["overhead_bytes"],
                          flops=p["flops"]))
    first = plans[0]
    tra = dict(seconds=first["seconds"], gflops=(flops or first["flops"]) / first["seconds"] / 1e9,
               plan=first["name"], bytes=first["bytes"])
    return tra, plans


def measure_workflow(runner, name, ranks, repeats, top, work, ceiling_gflops):
    """A paper workflow: tra only; its ceiling is its flops at the dgemm ceiling's rate."""
    wf = SOURCE / "plans/paper/scaled" / (name + ".yaml")
    tra, plans = measure_tra(runner, ranks, wf, work, repeats, top, None)
    row = dict(case=name, ranks=ranks, tile=None, flops=plans[0]["flops"], lower_bound_bytes=None,
               methods={"tra": tra}, tra_plans=plans)
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

    def ratio(name):
        return "%.2f" % (m["tra"]["seconds"] / m[name]["seconds"]) if name in m else "-"

    bound = row["lower_bound_bytes"]
    moved = "%.2f" % (m["tra"]["bytes"] / bound) if bound else "-"
    if "wire_bytes" in m["tra"]:
        moved += " (pml %.2f)" % (m["tra"]["wire_bytes"] / bound)
    print("%-13s %2d %5s %8.3f %7.1f %9s %-11s %9s %-11s %8s %7s %7s %7s %6s  %s" % (
        row["case"], row["ranks"], row["tile"] or "-", m["tra"]["seconds"], m["tra"]["gflops"],
        sec("scalapack"), conf("scalapack"), sec("summa"), conf("summa"), sec("ceiling"),
        ratio("scalapack"), ratio("summa"), ratio("ceiling"), moved, m["tra"]["plan"]),
        flush=True)
    for p in row["tra_plans"][1:]:
        print("%-13s    plan %d: %.3f s (%.2f x plan 1), %d bytes predicted: %s" % (
            "", p["rank"], p["seconds"], p["seconds"] / row["tra_plans"][0]["seconds"],
            p["predicted_bytes"], p["name"]))


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
    ap.add_argument("--cost", default="time", choices=["exact", "paper", "time"],
                    help="tra's cost model ranking the plans (default time: by bytes alone, "
                         "a plan computing everything on one rank would win)")
    args = ap.parse_args()
    args.repeats = args.repeats or (1 if args.quick else 3)
    build = pathlib.Path(args.build).resolve()
    out = pathlib.Path(args.out or build / ("bench-quick" if args.quick else "bench")).resolve()
    work = out / "work"
    work.mkdir(parents=True, exist_ok=True)
    runner = Runner(build, os.cpu_count() or 1, args.cost)
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
    if args.tiles:
        tiles = [int(t) for t in args.tiles.split(",")]
    blocks = QUICK_BLOCKS if args.quick else BLOCKS

    started = time.time()
    print("cores %d, OPENBLAS_CORETYPE=%s, load average %s; medians of %d runs; ratios are "
          "tra's time over the other's" % (runner.cores, runner.env.get("OPENBLAS_CORETYPE", "-"),
                                          os.getloadavg(), args.repeats))
    print(HEADER)
    rows = []

    def save():  # after every case, so an interrupted run keeps what it measured
        result = dict(quick=args.quick, cores=runner.cores, repeats=args.repeats,
                      openblas_coretype=runner.env.get("OPENBLAS_CORETYPE"),
                      load_average_end=os.getloadavg(), seconds=time.time() - started, rows=rows)
        (out / "bench.json").write_text(json.dumps(result, indent=1) + "\n")

    for ranks in ranks_list:
        for case, I, K, J in matmuls:
            rows += measure_matmul(runner, case, (I, K, J), ranks, tiles, blocks, args.repeats,
                                   args.top, work, args.monitor)
            save()
        square = next((r for r in rows if r["ranks"] == ranks and r["case"] == "mm-square"), None)
        for name in workflows:
            rows.append(measure_workflow(runner, name, ranks, args.repeats, args.top, work,
                                         square and square["methods"]["ceiling"]["gflops"]))
            save()
    png = chart.write_chart(rows, out / "bench.png")
    print("wrote %s%s in %.0f s" % (out / "bench.json", " and %s" % png if png else "",
                                    time.time() - started))


if __name__ == "__main__":
    main()
