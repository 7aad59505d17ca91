#!/usr/bin/python3
"""Expected outputs of the workflows in plans/examples/, computed with plain numpy.

This script never runs tra: it reads each workflow's inputs itself (file inputs with h5py, generated
ones with tragen.generate, which reproduces tra's generator bit for bit) and computes every output
with ordinary numpy, so the committed expected files are an independent check of tra.

Usage (Debian's python: /usr/bin/python3, which has numpy, h5py and yaml):

    /usr/bin/python3 tools/reference/examples.py                  # write data/examples/NAME/expected.h5
    /usr/bin/python3 tools/reference/examples.py --out DIR        # write DIR/NAME/expected.h5 instead
    /usr/bin/python3 tools/reference/examples.py matmul diag      # only these examples
    /usr/bin/python3 tools/reference/examples.py --make-inputs    # (re)create the committed file
                                                                  # inputs, e.g. data/examples/matmul/A.h5
    /usr/bin/python3 tools/reference/examples.py --list           # example names, one a line

Each expected.h5 holds one dataset per workflow output, named like the output (/C, /D, ...), in the
workflow's dtype and in the layout tra writes: the dense tensor when the output's key arity equals
its tile rank, otherwise the relation layout (frontier ++ tile bound). An output with `every: K` in a
`repeat:` workflow also has its observations /NAME@K, /NAME@2K, ... (the value computed in iteration
K), as tra writes them.
Compare a run with it:  tra diff OUT/out/C.h5:/C data/examples/matmul/expected.h5:/C
"""

import argparse
import math
import os
import sys

import h5py
import numpy as np
import yaml

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
PLANS = os.path.join(ROOT, "plans", "examples")
DATA = os.path.join(ROOT, "data", "examples")

sys.path.insert(0, HERE)
from tragen import generate  # noqa: E402

NP_DTYPE = {"f32": np.float32, "f64": np.float64}


# ---------------------------------------------------------------------------------------------
# Committed file inputs (--make-inputs). Each entry: example -> list of (file, dataset, shape,
# chunk, dtype, seed, blocks), blocks the fraction of chunks written (1: all; below 1 the others
# stay unallocated: a block-sparse input). Shapes must match the workflow's input declaration.
# ---------------------------------------------------------------------------------------------
FILE_INPUTS = {
    "matmul": [("A.h5", "/A", (60, 48), (20, 12), "f64", 2024, 1.0)],
    "block_sparse": [("A.h5", "/A", (48, 40), (8, 8), "f64", 77, 0.4)],
}


def make_inputs(root):
    for example, files in FILE_INPUTS.items():
        folder = os.path.join(root, example)
        os.makedirs(folder, exist_ok=True)
        for name, dataset, shape, chunk, dtype, seed, blocks in files:
            rng = np.random.default_rng(seed)
            values = rng.uniform(-1.0, 1.0, size=shape).astype(NP_DTYPE[dtype])
            path = os.path.join(folder, name)
            with h5py.File(path, "w") as f:
                if blocks >= 1.0:
                    f.create_dataset(dataset, data=values, chunks=chunk)
                    continue
                # Only the chosen chunks are written, so only they are allocated: the others
                # read as zeros, and `sparse: true` takes them as absent tiles.
                ds = f.create_dataset(dataset, shape=shape, dtype=values.dtype, chunks=chunk)
                grid = [n // c for n, c in zip(shape, chunk)]
                for block in zip(*np.nonzero(rng.random(grid) < blocks)):
                    at = tuple(slice(b * c, (b + 1) * c) for b, c in zip(block, chunk))
                    ds[at] = values[at]
            print("wrote %s:%s %s %s" % (os.path.relpath(path, ROOT), dataset, dtype, shape))


# ---------------------------------------------------------------------------------------------
# Reading a workflow's inputs
# ---------------------------------------------------------------------------------------------
def load_workflow(name):
    path = os.path.join(PLANS, name + ".yaml")
    with open(path) as f:
        return path, yaml.safe_load(f)


def read_inputs(path, wf):
    """name -> numpy array for every input of the workflow, in its dtype."""
    folder = os.path.dirname(path)
    default = wf.get("dtype", "f64")
    arrays = {}
    for name, spec in wf["inputs"].items():
        dtype = spec.get("dtype", default)
        shape = tuple(spec["shape"])
        gen = spec.get("generate")
        if gen is not None:
            seed = gen.get("seed", 0)
            kinds = [k for k in gen if k not in ("seed", "density")]
            if len(kinds) != 1:
                raise ValueError("%s: input %s: cannot read generate %r" % (path, name, gen))
            kind = kinds[0]
            arg = gen[kind]
            lo, hi = (arg, 0) if kind == "constant" else (arg[0], arg[1])
            value = generate(kind, lo, hi, seed, shape, dtype, gen.get("density", 1.0),
                             spec.get("tile", shape))
        else:
            file = os.path.join(folder, spec["file"])
            with h5py.File(file, "r") as f:
                value = f[spec.get("dataset", "/" + name)][()]
            if value.shape != shape:
                raise ValueError("%s: input %s: %s has shape %s, the workflow says %s"
                                 % (path, name, file, value.shape, shape))
        arrays[name] = value.astype(NP_DTYPE[dtype])
    return arrays


# ---------------------------------------------------------------------------------------------
# The examples: each takes the inputs and returns {output name: array}. Arithmetic is in float64
# (the most accurate value); the result is stored in the workflow's dtype.
# ---------------------------------------------------------------------------------------------
def ex_matmul(x):
    a, b = x["A"].astype(np.float64), x["B"].astype(np.float64)
    c = a @ b
    return {"C": c, "D": c}


def ex_ffnn(x):
    X, W1, W2 = (x[k].astype(np.float64) for k in ("X", "W1", "W2"))
    a1 = np.maximum(X @ W1, 0.0)
    z2 = a1 @ W2
    e = np.exp(z2 - z2.max(axis=1, keepdims=True))
    a2 = e / e.sum(axis=1, keepdims=True)
    return {"a1": a1, "a2": a2}


def ex_nn_search(x):
    X, q, G = (x[k].astype(np.float64) for k in ("X", "q", "G"))
    A = G @ G.T
    diff = X - q[None, :]
    dist = np.einsum("nd,de,ne->n", diff, A, diff)
    i = int(np.argmin(dist))  # first index on ties, as min_index
    return {"dist": dist, "nearest": np.array([dist[i], float(i)])}


def ex_diag(x):
    return {"Dg": np.diag(x["X"].astype(np.float64) + x["Y"].astype(np.float64))}


def ex_tile_concat(x):
    X = x["X"].astype(np.float64)
    n0, n1 = X.shape
    b0, b1, piece = 8, 6, 3  # X's tile and the tile op's size, as in the workflow
    f0, f1, p = n0 // b0, n1 // b1, b1 // piece
    # T in relation layout: T[i, j, k, a, c] = X[b0*i + a, b1*j + piece*k + c]
    T = X.reshape(f0, b0, f1, p, piece).transpose(0, 2, 3, 1, 4)
    return {"Back": X.copy(), "Xt": X.T.copy(), "T": T}


def min_plus(a, b):
    return (a[:, :, None] + b[None, :, :]).min(axis=1)


def ex_shortest_paths(x):
    D = x["D"].astype(np.float64)
    D2 = min_plus(D, D)
    return {"D2": D2, "D4": min_plus(D2, D2)}


def ex_distances(x):
    X, Y = x["X"].astype(np.float64), x["Y"].astype(np.float64)
    D = ((X[:, None, :] - Y[None, :, :]) ** 2).sum(axis=2)
    return {"D": D, "E": np.sqrt(np.maximum(D.min(axis=1), 0.0))}


def ex_retile(x):
    A, B, S = (x[k].astype(np.float64) for k in ("A", "B", "S"))
    return {"C": A @ B, "d": np.diagonal(S).copy()}


def ex_auto_tiling(x):
    A, B, v = (x[k].astype(np.float64) for k in ("A", "B", "x"))
    C = A @ B
    return {"C": C, "y": C @ v, "R": np.maximum(C, 0.0)}


def ex_padded(x):
    X, W1, W2 = (x[k].astype(np.float64) for k in ("X", "W1", "W2"))
    H = X @ W1
    G = 0.5 * H * (1.0 + np.vectorize(math.erf)(H / math.sqrt(2.0)))
    L = G @ W2
    shift = L - L.max(axis=1, keepdims=True)
    log_softmax = shift - np.log(np.exp(shift).sum(axis=1, keepdims=True))
    xent = (x["Y"].astype(np.float64) * log_softmax).sum(axis=1)
    S = np.exp(log_softmax)
    return {"L": L, "P": np.exp(L), "S": S, "xent": xent, "top": L.max(axis=1),
            "z": np.exp(L).sum(axis=1), "ent": (S * np.log(S)).sum(axis=1),
            "Q": np.exp(L) @ np.exp(W2).T}


def ex_block_sparse(x):
    A, B = x["A"].astype(np.float64), x["B"].astype(np.float64)  # zeros where tiles are absent
    C = A @ B
    Z = x["Z"].astype(np.float64)
    s = C.sum(axis=0)
    # Mz in relation layout: the maximum of each row of [8, 6] tiles, tile by tile: [6, 8, 6].
    Mz = Z.reshape(6, 8, 6, 6).max(axis=2)
    return {"C": C, "R": np.maximum(C, 0.0), "Ct": C.T.copy(), "s": s, "G": (A.T @ A) * 0.5,
            "P": C + Z, "Mz": Mz, "Sg": 1.0 / (1.0 + np.exp(-s))}


def ex_ffnn_train(x, times=100, every=10, eta=0.01):
    """The paper's FFNN SGD step (plans/paper/scaled/ffnn-speech.yaml) run `times` times, W1 and W2
    carrying W1n and W2n; loss = 0.5 * sum((a2 - Y)^2) / N of each iteration, before its update,
    observed every `every` iterations as loss@K (K = every, 2 every, ..., times)."""
    X, Y, W1, W2 = (x[k].astype(np.float64) for k in ("X", "Y", "W1", "W2"))
    scale = 0.5 / X.shape[0]
    out = {}
    for iteration in range(1, times + 1):
        a1 = np.maximum(X @ W1, 0.0)
        a2 = 1.0 / (1.0 + np.exp(-(a1 @ W2)))
        g2 = a2 - Y
        loss = np.array(scale * np.sum(g2 * g2))
        dW2 = a1.T @ g2
        g1 = (a1 > 0.0) * (g2 @ W2.T)
        dW1 = X.T @ g1
        W1, W2 = W1 - eta * dW1, W2 - eta * dW2
        if iteration % every == 0:
            out["loss@%d" % iteration] = loss
    out.update({"loss": loss, "W1n": W1, "W2n": W2})
    return out


EXAMPLES = {
    "matmul": ex_matmul,
    "ffnn": ex_ffnn,
    "nn_search": ex_nn_search,
    "diag": ex_diag,
    "tile_concat": ex_tile_concat,
    "shortest_paths": ex_shortest_paths,
    "distances": ex_distances,
    "ffnn_train": ex_ffnn_train,
    "block_sparse": ex_block_sparse,
    "retile": ex_retile,
    "auto_tiling": ex_auto_tiling,
    "padded": ex_padded,
}


def expected(name):
    path, wf = load_workflow(name)
    outputs = EXAMPLES[name](read_inputs(path, wf))
    declared = set(wf.get("outputs") or {})
    # A loop's `every: K` outputs are also written as NAME@K, NAME@2K, ... up to `times`.
    times = (wf.get("repeat") or {}).get("times", 1)
    for name, spec in (wf.get("outputs") or {}).items():
        every = (spec or {}).get("every")
        if every:
            declared |= {"%s@%d" % (name, k) for k in range(every, times + 1, every)}
    if declared != set(outputs):
        raise ValueError("%s: outputs %s, but examples.py computes %s"
                         % (path, sorted(declared), sorted(outputs)))
    dtype = NP_DTYPE[wf.get("dtype", "f64")]
    # (a scalar, e.g. einsum "nl,nl->", stays a 0-d dataset: ascontiguousarray would make it [1])
    return {k: np.ascontiguousarray(v, dtype=dtype) if np.ndim(v) else np.asarray(v, dtype=dtype)
            for k, v in outputs.items()}


def main(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("examples", nargs="*", help="example names (default: all)")
    p.add_argument("--out", help="write OUT/NAME/expected.h5 (default: data/examples)")
    p.add_argument("--make-inputs", action="store_true",
                   help="(re)create the committed file inputs under data/examples and stop")
    p.add_argument("--list", action="store_true", help="print the example names and stop")
    args = p.parse_args(argv)

    if args.list:
        print("\n".join(EXAMPLES))
        return 0
    if args.make_inputs:
        make_inputs(DATA)
        return 0
    unknown = [n for n in args.examples if n not in EXAMPLES]
    if unknown:
        p.error("unknown example(s) %s; known: %s" % (", ".join(unknown), ", ".join(EXAMPLES)))
    root = os.path.abspath(args.out) if args.out else DATA
    for name in args.examples or EXAMPLES:
        outputs = expected(name)
        folder = os.path.join(root, name)
        os.makedirs(folder, exist_ok=True)
        path = os.path.join(folder, "expected.h5")
        tmp = path + ".tmp"
        with h5py.File(tmp, "w") as f:
            for k, v in sorted(outputs.items()):
                f.create_dataset(k, data=v)
        os.replace(tmp, path)
        print("wrote %s: %s" % (path, ", ".join("/%s %s" % (k, list(v.shape))
                                               for k, v in sorted(outputs.items()))))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
