#!/usr/bin/python3
"""tra on the GPU against cuBLAS alone on the same GPU (the ceiling): the TRA paper's three
matrix-multiply shapes, one attention head and the FFNN training step, on one rank with
`--device gpu`, and the same runs with `--device cpu` for scale. Prints a table of the best of
N repeats and writes JSON. docs/gpu.md explains the columns and holds the figures.

Usage: tools/bench/gpu.py [--build DIR] [--out DIR] [--repeats N] [--dtype f64,f32] [--quick]
Needs a -DTRA_CUDA=ON build (apps/tra and tools/bench/bench_gpu_ceiling) and a visible GPU.

Columns: `ceiling` is one cuBLAS gemm of the whole product on tiles already in GPU memory, warm
(bench_gpu_ceiling); for attention and the FFNN step it is the plan's flops at the 4096^3
ceiling's rate (an estimate). `1st gemm` is the same product as the first of a new process:
cuBLAS choosing and loading its kernel, once per process and kernel, which every `tra run`
pays in its first product. `compute` is tra's operators other than reading inputs and
writing outputs (runner.compute_seconds), `run` the whole `tra run` as reported, `cpu` the
compute seconds of the same plan with `--device cpu` on all cores.
"""
import argparse
import json
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from compare import MATMUL_WORKFLOW  # noqa: E402
from runner import Runner, compute_seconds  # noqa: E402

SOURCE = pathlib.Path(__file__).resolve().parents[2]

# (case, I, K, J, tile I, tile K, tile J): the shapes of compare.py, cut into large tiles (a GPU
# wants few, big products); the workflow is compare.py's.
MATMULS = [("mm-square", 4096, 4096, 4096, 4096, 4096, 4096),
           ("mm-common-k", 1024, 65536, 1024, 1024, 8192, 1024),
           ("mm-two-large", 8192, 1024, 8192, 4096, 1024, 4096)]
QUICK_MATMULS = [("mm-square", 1024, 1024, 1024, 512, 512, 512)]

# One attention head: P = softmax(Q K^T / sqrt(d)) row by row, O = P V. A row tile spans all
# keys, as softmax_rows requires.
ATTENTION = """name: attention
dtype: {dtype}
inputs:
  Q: {{shape: [{S}, {D}], tile: [{tS}, {D}], generate: {{uniform: [-1, 1], seed: 1}}}}
  K: {{shape: [{S}, {D}], tile: [{S}, {D}], generate: {{uniform: [-1, 1], seed: 2}}}}
  V: {{shape: [{S}, {D}], tile: [{S}, {D}], generate: {{uniform: [-1, 1], seed: 3}}}}
program:
  - S:  {{einsum: "qd,kd->qk", inputs: [Q, K]}}
  - Ss: {{transform: S, kernel: "scale({scale})"}}
  - P:  {{transform: Ss, kernel: softmax_rows}}
  - O:  {{einsum: "qk,kd->qd", inputs: [P, V]}}
outputs:
  O: {{file: out/O.h5}}
"""


def best(values):
    return min(values) if values else None


def run_tra(runner, workflow, work, device, repeats):
    """Best compute and run seconds of `tra run --device DEVICE` on one rank."""
    computes, runs = [], []
    for r in range(repeats):
        report = work / ("%s.json" % device)
        runner.mpirun(1, [runner.build / "apps/tra", "run", workflow, "--device", device,
                          "--report", report, "--out-dir", work / "out", "--force"])
        data = json.loads(report.read_text())
        computes.append(compute_seconds(data))
        runs.append(data["seconds"])
    return best(computes), best(runs)


def plan_flops(runner, workflow):
    return runner.plans(1, workflow, 1)[0]["flops"]


def ceiling(runner, I, K, J, dtype, repeats):
    """cuBLAS alone: the best warm seconds, and the first product's (a new process's) seconds."""
    line = runner.mpirun(1, [runner.build / "tools/bench/bench_gpu_ceiling", I, K, J,
                             max(repeats, 3), dtype]).strip().splitlines()[-1]
    result = json.loads(line)
    return min(result["seconds"]), result["first_seconds"]


def measure(runner, case, dtype, workflow, work, flops, ceilings, repeats):
    ceiling_seconds, first_seconds = ceilings
    compute, run = run_tra(runner, workflow, work, "gpu", repeats)
    cpu, _ = run_tra(runner, workflow, work, "cpu", 1)
    row = dict(case=case, dtype=dtype, flops=flops, ceiling=ceiling_seconds,
               ceiling_first=first_seconds, compute=compute, run=run, cpu=cpu)
    print("%-14s %-4s %9.2f %10.4f %10.4f %10.4f %10.4f %10.4f" % (
        case, dtype, flops / 1e9, ceiling_seconds, first_seconds, compute, run, cpu), flush=True)
    return row


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--build", default=str(SOURCE / "build-cuda"), help="a -DTRA_CUDA=ON build")
    ap.add_argument("--out", help="results folder (default BUILD/bench-gpu)")
    ap.add_argument("--repeats", type=int, default=3, help="runs per case (best is kept)")
    ap.add_argument("--dtype", default="f64,f32", help="element types, comma-separated")
    ap.add_argument("--quick", action="store_true", help="one small shape per case")
    args = ap.parse_args()
    build = pathlib.Path(args.build).resolve()
    out = pathlib.Path(args.out or build / "bench-gpu").resolve()
    out.mkdir(parents=True, exist_ok=True)
    runner = Runner(build, cores=__import__("os").cpu_count(), cost="time")
    print("cpu: %d cores, OpenBLAS core %s" % (runner.cores, runner.core))
    rows = []
    print("%-14s %-4s %9s %10s %10s %10s %10s %10s" % (
        "case", "type", "GFLOP", "ceiling s", "1st gemm s", "compute s", "run s", "cpu s"))
    for dtype in args.dtype.split(","):
        for case, I, K, J, tI, tK, tJ in (QUICK_MATMULS if args.quick else MATMULS):
            work = out / ("%s-%s" % (case, dtype))
            work.mkdir(exist_ok=True)
            workflow = work / "workflow.yaml"
            workflow.write_text(MATMUL_WORKFLOW.format(case=case, dtype=dtype, I=I, K=K, J=J,
                                                       tI=tI, tK=tK, tJ=tJ))
            rows.append(measure(runner, case, dtype, workflow, work, 2.0 * I * K * J,
                                ceiling(runner, I, K, J, dtype, args.repeats), args.repeats))
        S, D = (1024, 64) if args.quick else (8192, 128)
        square, first = ceiling(runner, 4096, 4096, 4096, dtype, args.repeats)
        rate = 2.0 * 4096 ** 3 / square
        for case, text in [("attention", ATTENTION.format(dtype=dtype, S=S, D=D, tS=S // 4,
                                                          scale=1 / D ** 0.5)),
                           ("ffnn-xml", None)]:
            work = out / ("%s-%s" % (case, dtype))
            work.mkdir(exist_ok=True)
            workflow = work / "workflow.yaml"
            if text is None:  # the paper's FFNN step as committed, in this dtype
                text = (SOURCE / "plans/paper/scaled/ffnn-xml.yaml").read_text()
                text = text.replace("dtype: f64", "dtype: " + dtype).replace("sites: 5\n", "")
            workflow.write_text(text)
            flops = plan_flops(runner, workflow)
            rows.append(measure(runner, case, dtype, workflow, work, flops,
                                (flops / rate, first), args.repeats))
    (out / "gpu.json").write_text(json.dumps(rows, indent=1))
    print("wrote", out / "gpu.json")


if __name__ == "__main__":
    main()
