#!/usr/bin/python3
"""tra's einsums against numpy on the same cores: attention as EinDecomp writes it, a 4-D
contraction in several label orders, batched products with the batch label in the middle and
last, a trace-heavy and a 5-operand expression; and the models of plans/models at large sizes
(`decoder`, `decoder-7b` at LLaMA-7B shapes with S = 1024, `attention-model`, `mlp-train`),
whose workflows and numpy functions come from tools/reference/models.py. Each case is run three ways, interleaved:

  tra 2x1   mpirun -n 2 tra run, 1 BLAS thread per rank
  tra 1x2   mpirun -n 1 tra run, 2 BLAS threads
  numpy     the same math written the BLAS-friendly way (matmul on reshaped/transposed views),
            OPENBLAS_NUM_THREADS = all cores, in its own process

tra's time is its compute seconds (the report's operators minus read and write), numpy's the
computation only (arrays are created and loaded before the clock starts). Both read the same
inputs (HDF5 files written here), and tra's output is checked against numpy.einsum. The ceiling
column is the case's flops at the rate of one square dgemm of equal flops in numpy. The table
gives medians over rounds and the median of the per-round ratios tra / numpy.
docs/benchmarks.md ("tra against numpy") explains it and records results.

Usage: tools/bench/vs_numpy.py [--build DIR] [--cases A,B] [--rounds N] [--small]
                               [--cores N] [--out FILE.json] [--cost exact|paper|time]
                               [--baseline-build DIR]

--baseline-build adds `base 2x1` and `base 1x2`: another build of tra (e.g. before a change) run
in the same rounds, so before and after are interleaved.
"""
import argparse
import json
import os
import pathlib
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from runner import Runner, compute_seconds  # noqa: E402

SOURCE = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(SOURCE / "tools" / "reference"))


def attention(small):
    """A multi-head attention layer as EinDecomp writes it (softmax as max/sub/exp/sum/div
    einsums). Issue sizes: s = 2048, a = 1024, h = 8, d = 128 in 512-tiles."""
    s, a, h, d, t = (256, 128, 4, 32, 128) if small else (2048, 1024, 8, 128, 512)
    size = dict(s=s, t=s, a=a, h=h, d=d)
    tile = dict(s=t, t=t, a=t, h=h, d=d)
    steps = [("Q", "sa,ahd->shd", ["X", "WQ"], {}), ("K", "sa,ahd->shd", ["X", "WK"], {}),
             ("V", "sa,ahd->shd", ["X", "WV"], {}), ("S", "shd,thd->hst", ["Q", "K"], {}),
             ("M", "hst->hs", ["S"], {"agg": "max"}), ("D", "hst,hs->hst", ["S", "M"],
                                                        {"join": "sub"}),
             ("E", None, ["D"], {"kernel": "exp"}), ("Z", "hst->hs", ["E"], {}),
             ("P", "hst,hs->hst", ["E", "Z"], {"join": "div"}),
             ("O", "hst,thd->shd", ["P", "V"], {}), ("Y", "shd,ahd->sa", ["O", "WO"], {})]
    inputs = {"X": "sa", "WQ": "ahd", "WK": "ahd", "WV": "ahd", "WO": "ahd"}

    def numpy_fn(X, WQ, WK, WV, WO):
        def project(W):  # sa,ahd->shd as one (s x a)(a x hd) gemm
            return (X @ W.reshape(a, h * d)).reshape(s, h, d)
        Q, K, V = project(WQ), project(WK), project(WV)
        S = np.matmul(Q.transpose(1, 0, 2), K.transpose(1, 2, 0))  # h, s, t
        E = np.exp(S - S.max(axis=2, keepdims=True))
        P = E / E.sum(axis=2, keepdims=True)
        O = np.matmul(P, V.transpose(1, 0, 2))  # h, s, d
        return O.transpose(1, 0, 2).reshape(s, h * d) @ WO.reshape(a, h * d).T

    def reference(X, WQ, WK, WV, WO):
        Q, K, V = (np.einsum("sa,ahd->shd", X, W) for W in (WQ, WK, WV))
        S = np.einsum("shd,thd->hst", Q, K)
        E = np.exp(S - S.max(axis=2, keepdims=True))
        P = E / E.sum(axis=2, keepdims=True)
        return np.einsum("shd,ahd->sa", np.einsum("hst,thd->shd", P, V), WO)

    flops = 2 * s * a * h * d * 4 + 2 * h * s * s * d * 2
    return dict(size=size, tile=tile, inputs=inputs, steps=steps, output="Y",
                numpy=numpy_fn, reference=reference, flops=flops)


def contraction(spec, size, tile, numpy_fn, flops):
    """A one-step einsum over the operands of `spec`, inputs named A, B, ..."""
    lhs, out = spec.split("->")
    operands = lhs.split(",")
    names = [chr(ord("A") + i) for i in range(len(operands))]
    return dict(size=size, tile=tile, inputs=dict(zip(names, operands)),
                steps=[("R", spec, names, {})], output="R", numpy=numpy_fn,
                reference=lambda *ops: np.einsum(spec, *ops, optimize=True), flops=flops)


def four_d(order):
    """abcd,cdef->abef in label order `order` (the same contraction, other layouts)."""
    def case(small):
        # Only `a` is cut (in two): each rank of two multiplies one (ab/2 x cd)(cd x ef) block.
        n, t = (12, 6) if small else (40, 20)
        size = {c: n for c in "abcdef"}
        tile = dict(size, a=t)
        spec = {"gemm": "abcd,cdef->abef", "perm": "acbd,dcef->feab",
                "perm2": "dcba,fedc->fbae"}[order]

        def numpy_fn(A, B):  # permute into GEMM layout (a copy), one gemm, permute back
            l, r = spec.split("->")[0].split(",")
            o = spec.split("->")[1]
            Ag = np.ascontiguousarray(A.transpose([l.index(c) for c in "abcd"]))
            Bg = np.ascontiguousarray(B.transpose([r.index(c) for c in "cdef"]))
            C = (Ag.reshape(n * n, n * n) @ Bg.reshape(n * n, n * n)).reshape(n, n, n, n)
            return C.transpose(["abef".index(c) for c in o])
        return contraction(spec, size, tile, numpy_fn, 2 * n ** 6)
    return case


def batched(where):
    """A batched matrix product with the batch label b in the middle or last."""
    def case(small):
        n, nb, t, tb = (64, 4, 32, 2) if small else (512, 16, 256, 8)
        spec = {"middle": "ibj,jbk->ibk", "last": "ijb,jkb->ikb"}[where]
        size = dict(i=n, j=n, k=n, b=nb)
        tile = dict(i=t, j=t, k=t, b=tb)

        def numpy_fn(A, B):  # numpy's matmul takes BLAS only where rows are contiguous
            if where == "middle":
                return np.matmul(A.transpose(1, 0, 2), B.transpose(1, 0, 2)).transpose(1, 0, 2)
            A, B = (np.ascontiguousarray(X.transpose(2, 0, 1)) for X in (A, B))
            return np.matmul(A, B).transpose(1, 2, 0)
        return contraction(spec, size, tile, numpy_fn, 2 * nb * n ** 3)
    return case


def traces(small):
    """iij,jkk->ik: a diagonal of each operand, then a matrix product."""
    n, t = (64, 32) if small else (256, 128)
    size = dict(i=n, j=n, k=n)
    tile = dict(i=t, j=t, k=t)

    def numpy_fn(A, B):  # the diagonals copied out (contiguous, so matmul takes BLAS)
        return (np.ascontiguousarray(np.diagonal(A, axis1=0, axis2=1).T) @
                np.ascontiguousarray(np.diagonal(B, axis1=1, axis2=2)))
    return contraction("iij,jkk->ik", size, tile, numpy_fn, 2 * n ** 3)


def five_operands(small):
    """opt_einsum's ea,fb,gc,hd,abcd->efgh: a basis change of a 4-D tensor."""
    n, t = (8, 4) if small else (48, 24)
    size = {c: n for c in "abcdefgh"}

    def numpy_fn(E, F, G, H, T):  # one gemm per mode, each on a reshaped view
        for M in (E, F, G, H):  # contract the leading label, append the new one last
            T = (M @ T.reshape(n, -1)).reshape(n, n, n, n).transpose(1, 2, 3, 0)
        return T
    return contraction("ea,fb,gc,hd,abcd->efgh", size, {c: t for c in "abcdefgh"}, numpy_fn,
                       4 * 2 * n ** 5)


def model(name, small_sizes, big_sizes):
    """A model of plans/models at other sizes (tools/reference/models.py writes the workflow and
    holds its numpy function, written the BLAS-friendly way); inputs are tra's generated ones,
    read in numpy through tragen."""
    def case(small):
        import models
        sizes = small_sizes if small else big_sizes
        writer, numpy_fn, defaults = models.MODELS[name]
        z = {**defaults, **sizes}
        flops = {"decoder": lambda: (2 * z["s"] * z["a"] * z["h"] * z["d"] * 4 +
                                     2 * z["h"] * z["s"] ** 2 * z["d"] * 2 +
                                     2 * z["s"] * z["a"] * z["f"] * 3),
                 "attention": lambda: (2 * z["s"] * z["a"] * z["h"] * z["d"] * 4 +
                                       2 * z["h"] * z["s"] ** 2 * z["d"] * 2),
                 "mlp_train": lambda: 2 * z["n"] * z["hid"] * (2 * z["i"] + 3 * z["c"])}[name]()
        output = {"decoder": "out", "attention": "Y", "mlp_train": "W1n"}[name]
        return dict(workflow=models.workflow(name, **sizes), output=output,
                    output_file="out/%s.h5" % name, numpy=numpy_fn, reference=numpy_fn, flops=flops)
    return case


CASES = {"attention": attention, "4d": four_d("gemm"), "4d-perm": four_d("perm"),
         "4d-perm2": four_d("perm2"), "batch-middle": batched("middle"),
         "batch-last": batched("last"), "traces": traces, "5-operands": five_operands,
         # Issue sizes: S = 4096 in 512-row tiles, model dimension 256, 4 heads of 64, FF 512.
         "decoder": model("decoder", {}, dict(s=4096, a=256, h=4, d=64, f=512, ts=512, th=4,
                                              tf=512)),
         # LLaMA-7B shapes at S = 1024: model dimension 4096, 32 heads of 128, FF 11008.
         "decoder-7b": model("decoder", dict(s=64, a=128, h=4, d=32, f=344, ts=32, th=4,
                                             tf=344),
                             dict(s=1024, a=4096, h=32, d=128, f=11008, ts=512, th=32,
                                  tf=11008)),
         "attention-model": model("attention", {}, dict(s=2048, a=1024, h=8, d=128, ts=512,
                                                        ta=512)),
         "mlp-train": model("mlp_train", {}, dict(n=8192, i=1024, hid=2048, c=1024, tn=1024,
                                                   ti=1024, th=1024, tc=512))}


def write_case(case, work):
    """The inputs as HDF5 files and the workflow reading them; returns the workflow path."""
    import h5py
    if "workflow" in case:  # a model: its inputs are generated by tra
        path = work / "workflow.yaml"
        path.write_text(case["workflow"])
        return path
    rng = np.random.default_rng(7)
    lines = ["name: vs-numpy", "dtype: f64", "inputs:"]
    for name, labels in case["inputs"].items():
        shape = [case["size"][c] for c in labels]
        with h5py.File(work / (name + ".h5"), "w") as f:
            f["/" + name] = rng.uniform(-1, 1, shape)
        tile = [case["tile"][c] for c in labels]
        lines.append("  %s: {shape: %s, tile: %s, file: %s.h5}" % (name, shape, tile, name))
    lines.append("program:")
    for name, spec, args, extra in case["steps"]:
        if spec is None:
            lines.append("  - %s: {transform: %s, kernel: %s}" % (name, args[0], extra["kernel"]))
            continue
        fields = "".join(", %s: %s" % kv for kv in extra.items())
        lines.append('  - %s: {einsum: "%s", inputs: [%s]%s}' % (name, spec, ", ".join(args),
                                                                   fields))
    lines += ["outputs:", "  %s: {file: %s.h5}" % (case["output"], case["output"])]
    path = work / "workflow.yaml"
    path.write_text("\n".join(lines) + "\n")
    return path


def load_inputs(case, work):
    import h5py
    if "workflow" in case:  # one argument: {input: array}, generated as tra does
        import yaml
        from examples import read_inputs
        path = work / "workflow.yaml"
        return [read_inputs(str(path), yaml.safe_load(path.read_text()))]
    arrays = []
    for name in case["inputs"]:
        with h5py.File(work / (name + ".h5"), "r") as f:
            arrays.append(f["/" + name][...])
    return arrays


def numpy_worker(name, small, work, repeats):
    """Runs in its own process (BLAS threads are fixed at numpy's import): the case's numpy
    computation `repeats` times; prints the seconds of each."""
    case = CASES[name](small)
    arrays = load_inputs(case, work)
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        case["numpy"](*arrays)
        times.append(time.perf_counter() - start)
    print(json.dumps(times))


def numpy_seconds(name, small, work, cores, repeats=3):
    env = dict(os.environ, OPENBLAS_NUM_THREADS=str(cores), OMP_NUM_THREADS=str(cores))
    out = subprocess.run([sys.executable, __file__, "--numpy-worker", name, "--work", str(work),
                          "--repeats", str(repeats)] + (["--small"] if small else []),
                         env=env, capture_output=True, text=True, check=True)
    return min(json.loads(out.stdout.strip().splitlines()[-1]))


def square_gemm_gflops(flops, cores):
    """The ceiling: numpy dgemm of one square product of about `flops`, in GFLOP/s."""
    n = max(64, int(round((flops / 2) ** (1 / 3))))
    code = ("import numpy as np, time\n"
            "a = np.random.rand(%d, %d); b = np.random.rand(%d, %d); a @ b\n"
            "t = []\n"
            "for _ in range(3):\n"
            "    s = time.perf_counter(); a @ b; t.append(time.perf_counter() - s)\n"
            "print(min(t))\n") % (n, n, n, n)
    env = dict(os.environ, OPENBLAS_NUM_THREADS=str(cores), OMP_NUM_THREADS=str(cores))
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                         check=True)
    return 2 * n ** 3 / float(out.stdout) / 1e9


def check_output(case, work, arrays):
    import h5py
    with h5py.File(work / "out" / case.get("output_file", case["output"] + ".h5"), "r") as f:
        got = f["/" + case["output"]][...]
    want = case["reference"](*arrays)
    if isinstance(want, dict):
        want = want[case["output"]]
    if not np.allclose(got, want, rtol=1e-9, atol=1e-9 * max(1.0, np.abs(want).max())):
        raise SystemExit("tra's %s differs from numpy.einsum (max abs error %g)"
                         % (case["output"], np.abs(got - want).max()))


def measure(runners, name, small, rounds, cores, root):
    """runners: {column prefix: Runner}, run in this order in every round."""
    case = CASES[name](small)
    work = root / name
    work.mkdir(parents=True, exist_ok=True)
    workflow = write_case(case, work)
    arrays = load_inputs(case, work)
    configs = {"%s %s" % (prefix, shape): (runner, ranks)
               for prefix, runner in runners.items()
               for shape, ranks in (("%dx1" % cores, cores), ("1x%d" % cores, 1))}
    times = {key: [] for key in list(configs) + ["numpy"]}
    for _ in range(rounds):
        for key, (runner, ranks) in configs.items():
            report = runner.tra_run(ranks, workflow, work)
            times[key].append(compute_seconds(report))
        times["numpy"].append(numpy_seconds(name, small, work, cores))
    check_output(case, work, arrays)
    ceiling = case["flops"] / (square_gemm_gflops(case["flops"], cores) * 1e9)
    row = {"case": name, "flops": case["flops"], "ceiling_seconds": ceiling, "rounds": times}
    row["median"] = {key: statistics.median(t) for key, t in times.items()}
    row["vs_numpy"] = {key: statistics.median(a / b for a, b in zip(t, times["numpy"]))
                       for key, t in times.items() if key != "numpy"}
    row["vs_ceiling"] = {key: ceiling / m for key, m in row["median"].items()}
    return row


def print_row(row):
    cells = ["%-13s" % row["case"]]
    for key, m in row["median"].items():
        ratio = row["vs_numpy"].get(key)
        cells.append("%s %7.3f s%s" % (key, m, " (%.2fx numpy)" % ratio if ratio else ""))
    cells.append("ceiling %.3f s" % row["ceiling_seconds"])
    print("  ".join(cells), flush=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build", default=str(SOURCE / "build"))
    ap.add_argument("--cases", default=",".join(CASES))
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--small", action="store_true", help="small shapes (a quick check)")
    ap.add_argument("--cores", type=int, default=2, help="cores shared by every program")
    ap.add_argument("--cost", help="tra's cost model (default: tra's own default)")
    ap.add_argument("--out", help="write the results as JSON here")
    ap.add_argument("--baseline-build", help="another build of tra, run in the same rounds")
    ap.add_argument("--numpy-worker", help=argparse.SUPPRESS)
    ap.add_argument("--work", help=argparse.SUPPRESS)
    ap.add_argument("--repeats", type=int, default=1, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.numpy_worker:
        return numpy_worker(args.numpy_worker, args.small, pathlib.Path(args.work), args.repeats)
    unknown = [c for c in args.cases.split(",") if c not in CASES]
    if unknown:
        ap.error("unknown case(s) %s; known: %s" % (", ".join(unknown), ", ".join(CASES)))
    runners = {"tra": Runner(pathlib.Path(args.build), args.cores, args.cost)}
    if args.baseline_build:
        runners["base"] = Runner(pathlib.Path(args.baseline_build), args.cores, args.cost)
    rows = []
    with tempfile.TemporaryDirectory(prefix="tra-vs-numpy-") as root:
        for name in args.cases.split(","):
            rows.append(measure(runners, name, args.small, args.rounds, args.cores,
                                pathlib.Path(root)))
            print_row(rows[-1])
    if args.out:
        pathlib.Path(args.out).write_text(json.dumps(rows, indent=1) + "\n")


if __name__ == "__main__":
    main()
