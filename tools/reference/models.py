#!/usr/bin/python3
"""The model workflows of plans/models/, written from their sizes, and their outputs in numpy.

Each model is a function of its sizes that returns the workflow (YAML text) and a numpy function
of its inputs; the committed plans/models/NAME.yaml are the small sizes the tests run
(`models.py write` makes them; tests/mpi/test_models.sh checks they are up to date), and the
benchmarks (tools/bench/vs_numpy.py) write the same models at large sizes. numpy never runs tra:
inputs are read with examples.read_inputs (generated ones through tragen, bit for bit), so the
expected outputs are an independent check of tra.

    /usr/bin/python3 tools/reference/models.py write                    # plans/models/*.yaml
    /usr/bin/python3 tools/reference/models.py expected WF OUT.h5       # numpy's outputs of WF
    /usr/bin/python3 tools/reference/models.py list                     # model names

`expected` reads the model's name and sizes from the workflow itself (the `name:` field and the
input shapes; for a loop model, `repeat: times` and the outputs' `every:`), so it serves any size
written by `workflow()`. It writes one dataset per output as tra names them: /NAME, and /NAME@K
for an output observed in iteration K.
"""

import argparse
import os
import sys

import h5py
import numpy as np
import yaml

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
PLANS = os.path.join(ROOT, "plans", "models")

sys.path.insert(0, HERE)
from examples import NP_DTYPE, read_inputs  # noqa: E402


def fmt(x):
    """A float as the shortest text that reads back the same ("0.125", "1e-06")."""
    return repr(float(x))


# ---------------------------------------------------------------------------------------------
# A LLaMA-style decoder block: RMSNorm, multi-head attention with 3-D weights, softmax step,
# residual, RMSNorm, SwiGLU feed-forward, residual. No rotary embedding and no causal mask.
# ---------------------------------------------------------------------------------------------
def decoder_yaml(s, a, h, d, f, ts, th, tf, dtype="f64"):
    eps = 1e-6
    return f"""\
# decoder: a LLaMA-style decoder block (written by tools/reference/models.py; regenerate, do not
# edit): out = h1 + W2(silu(n2 W1) * (n2 W3)), h1 = X + attention(n1), n = RMSNorm(.) * G.
# Attention has {h} heads of {d} with 3-D weights [a, h, d], scaled by 1/sqrt(d), softmax along
# the key position t (a `softmax` step, tiled {s // ts} ways). No rotary embedding, no causal mask.
# S = {s}, model dimension {a}, feed-forward {f}; tiles of {ts} rows, {th} head(s), {tf} hidden.
#   tra plan plans/models/decoder.yaml --sites 4
#   mpirun -n 2 tra run plans/models/decoder.yaml --out-dir /tmp/decoder
name: decoder
dtype: {dtype}
inputs:
  X:  {{shape: [{s}, {a}], tile: [{ts}, {a}], generate: {{uniform: [-1, 1], seed: 1}}}}
  G1: {{shape: [{a}], tile: [{a}], generate: {{uniform: [0.5, 1.5], seed: 2}}}}
  WQ: {{shape: [{a}, {h}, {d}], tile: [{a}, {th}, {d}], generate: {{uniform: [-0.2, 0.2], seed: 3}}}}
  WK: {{shape: [{a}, {h}, {d}], tile: [{a}, {th}, {d}], generate: {{uniform: [-0.2, 0.2], seed: 4}}}}
  WV: {{shape: [{a}, {h}, {d}], tile: [{a}, {th}, {d}], generate: {{uniform: [-0.2, 0.2], seed: 5}}}}
  WO: {{shape: [{a}, {h}, {d}], tile: [{a}, {th}, {d}], generate: {{uniform: [-0.2, 0.2], seed: 6}}}}
  G2: {{shape: [{a}], tile: [{a}], generate: {{uniform: [0.5, 1.5], seed: 7}}}}
  W1: {{shape: [{a}, {f}], tile: [{a}, {tf}], generate: {{uniform: [-0.2, 0.2], seed: 8}}}}
  W3: {{shape: [{a}, {f}], tile: [{a}, {tf}], generate: {{uniform: [-0.2, 0.2], seed: 9}}}}
  W2: {{shape: [{f}, {a}], tile: [{tf}, {a}], generate: {{uniform: [-0.2, 0.2], seed: 10}}}}
program:
  # RMSNorm: n1 = X * rsqrt(mean(X^2) + eps) * G1
  - sq1: {{transform: X, kernel: square}}
  - ss1: {{einsum: "sa->s", inputs: [sq1]}}
  - r1:  {{transform: ss1, kernel: {{expr: "rsqrt(x * {fmt(1 / a)} + {fmt(eps)})"}}}}
  - n1:  {{einsum: "sa,s,a->sa", inputs: [X, r1, G1]}}
  - q:   {{einsum: "sa,ahd->shd", inputs: [n1, WQ]}}
  - k:   {{einsum: "sa,ahd->shd", inputs: [n1, WK]}}
  - v:   {{einsum: "sa,ahd->shd", inputs: [n1, WV]}}
  - sc:  {{einsum: "shd,thd->hst", inputs: [q, k]}}
  - sd:  {{transform: sc, kernel: scale({fmt(1 / np.sqrt(d))})}}
  - p:   {{softmax: sd, dim: 2}}
  - o:   {{einsum: "hst,thd->shd", inputs: [p, v]}}
  - y:   {{einsum: "shd,ahd->sa", inputs: [o, WO]}}
  - h1:  {{join: [X, y], on: [[0, 1], [0, 1]], kernel: add}}
  - sq2: {{transform: h1, kernel: square}}
  - ss2: {{einsum: "sa->s", inputs: [sq2]}}
  - r2:  {{transform: ss2, kernel: {{expr: "rsqrt(x * {fmt(1 / a)} + {fmt(eps)})"}}}}
  - n2:  {{einsum: "sa,s,a->sa", inputs: [h1, r2, G2]}}
  # SwiGLU: silu(n2 W1) * (n2 W3), then W2
  - g:   {{einsum: "sa,af->sf", inputs: [n2, W1]}}
  - u:   {{einsum: "sa,af->sf", inputs: [n2, W3]}}
  - m:   {{join: [g, u], on: [[0, 1], [0, 1]], kernel: {{expr: "a * sigmoid(a) * b"}}}}
  - dn:  {{einsum: "sf,fa->sa", inputs: [m, W2]}}
  - out: {{join: [h1, dn], on: [[0, 1], [0, 1]], kernel: add}}
outputs:
  out: {{file: out/decoder.h5}}
"""


def rms_norm(x, g, eps=1e-6):
    return x / np.sqrt(np.mean(x * x, axis=1, keepdims=True) + eps) * g


def softmax(x, axis):
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def decoder_numpy(x):
    X = x["X"]
    s, a = X.shape
    _, h, d = x["WQ"].shape

    def project(W):  # sa,ahd->shd as one (s x a)(a x hd) gemm
        return (n1 @ W.reshape(a, h * d)).reshape(s, h, d)

    n1 = rms_norm(X, x["G1"])
    q, k, v = project(x["WQ"]), project(x["WK"]), project(x["WV"])
    sc = np.matmul(q.transpose(1, 0, 2), k.transpose(1, 2, 0)) / np.sqrt(d)  # h, s, t
    p = softmax(sc, axis=2)
    o = np.matmul(p, v.transpose(1, 0, 2)).transpose(1, 0, 2)  # s, h, d
    h1 = X + o.reshape(s, h * d) @ x["WO"].reshape(a, h * d).T
    n2 = rms_norm(h1, x["G2"])
    g, u = n2 @ x["W1"], n2 @ x["W3"]
    m = g / (1.0 + np.exp(-g)) * u
    return {"out": h1 + m @ x["W2"]}


# ---------------------------------------------------------------------------------------------
# One SGD step of a two-layer MLP with softmax cross-entropy on soft targets.
# ---------------------------------------------------------------------------------------------
def mlp_yaml(n, i, hid, c, tn, ti, th, tc, lr=0.1, dtype="f64", times=0, every=0, batches=0):
    """mlp_train; with `times`, mlp_loop: the same step as the body of a `repeat:` of `times`
    iterations carrying the weights, its loss also written every `every` iterations; with
    `batches` too, mlp_minibatch: X and T hold `batches` mini-batches of n samples, iteration k
    reading batch (k - 1) mod batches (`slice:`)."""
    if times and batches:
        name = "mlp_minibatch"
        head = f"""\
# mlp_minibatch: {times} mini-batch SGD steps (learning rate {fmt(lr)}) of a two-layer MLP, relu
# hidden layer, softmax cross-entropy against soft targets Y = T / rowsum(T) (written by
# tools/reference/models.py; regenerate, do not edit): mlp_loop with X and T holding {batches}
# batches of {n} samples, iteration k reading batch (k - 1) mod {batches} (`slice:`, read anew every
# iteration), while W1 and W2 carry the updated weights. Writes the loss of iterations {every},
# {2 * every}, ... (/loss@K), and after the last iteration its loss and updated weights.
#   tra run plans/models/mlp_minibatch.yaml --reference --out-dir /tmp/mlp_minibatch
#   mpirun -n 2 tra run plans/models/mlp_minibatch.yaml --out-dir /tmp/mlp_minibatch
"""
    elif times:
        name = "mlp_loop"
        head = f"""\
# mlp_loop: {times} SGD steps (learning rate {fmt(lr)}) of a two-layer MLP, relu hidden layer,
# softmax cross-entropy against soft targets Y = T / rowsum(T) (written by
# tools/reference/models.py; regenerate, do not edit): mlp_train's step as the body of a loop
# (`repeat:`) in which W1 and W2 take the updated weights W1n and W2n after every iteration.
# Writes the loss of iterations {every}, {2 * every}, ... (datasets /loss@K, each computed before
# that iteration's update), and after the last iteration its loss and updated weights.
# log_softmax and softmax run along the class dimension, tiled {c // tc} ways.
# n = {n} samples, {i} features, {hid} hidden, {c} classes.
#   tra run plans/models/mlp_loop.yaml --reference --out-dir /tmp/mlp_loop
#   mpirun -n 2 tra run plans/models/mlp_loop.yaml --out-dir /tmp/mlp_loop
"""
    else:
        name = "mlp_train"
        head = f"""\
# mlp_train: one SGD step (learning rate {fmt(lr)}) of a two-layer MLP, relu hidden layer, softmax
# cross-entropy against soft targets Y = T / rowsum(T) (written by tools/reference/models.py;
# regenerate, do not edit). Outputs the mean loss before the step and the updated weights.
# log_softmax and softmax run along the class dimension, tiled {c // tc} ways.
# n = {n} samples, {i} features, {hid} hidden, {c} classes.
#   mpirun -n 2 tra run plans/models/mlp_train.yaml --out-dir /tmp/mlp
"""
    loop = (f"repeat: {{times: {times}, carry: {{W1: W1n, W2: W2n}}}}\n" if times else "")
    observe = f", every: {every}" if times and every else ""
    rows = n * batches if batches else n
    batch = f" slice: {{dim: 0, size: {n}}}," if batches else ""
    return head + f"""\
name: {name}
dtype: {dtype}
inputs:
  X:  {{shape: [{rows}, {i}], tile: [{tn}, {ti}],{batch} generate: {{uniform: [-1, 1], seed: 21}}}}
  T:  {{shape: [{rows}, {c}], tile: [{tn}, {tc}],{batch} generate: {{uniform: [0.1, 1], seed: 22}}}}
  W1: {{shape: [{i}, {hid}], tile: [{ti}, {th}], generate: {{uniform: [-0.3, 0.3], seed: 23}}}}
  W2: {{shape: [{hid}, {c}], tile: [{th}, {tc}], generate: {{uniform: [-0.3, 0.3], seed: 24}}}}
program:
  - tsum: {{einsum: "nc->n", inputs: [T]}}
  - Y:    {{einsum: "nc,n->nc", inputs: [T, tsum], join: div}}
  - z1:   {{einsum: "ni,ih->nh", inputs: [X, W1]}}
  - a1:   {{transform: z1, kernel: relu}}
  - z2:   {{einsum: "nh,hc->nc", inputs: [a1, W2]}}
  - lp:   {{log_softmax: z2, dim: 1}}
  - p:    {{softmax: z2, dim: 1}}
  # loss = -sum(Y * log p) / n
  - ce:   {{einsum: "nc,nc->", inputs: [Y, lp]}}
  - loss: {{transform: ce, kernel: scale({fmt(-1 / n)})}}
  # backward: dz2 = (p - Y) / n
  - dz2:  {{join: [p, Y], on: [[0, 1], [0, 1]], kernel: {{expr: "(a - b) * {fmt(1 / n)}"}}}}
  - dW2:  {{einsum: "nh,nc->hc", inputs: [a1, dz2]}}
  - da1:  {{einsum: "nc,hc->nh", inputs: [dz2, W2]}}
  - g1:   {{transform: z1, kernel: relu_grad}}
  - dz1:  {{join: [da1, g1], on: [[0, 1], [0, 1]], kernel: mul}}
  - dW1:  {{einsum: "ni,nh->ih", inputs: [X, dz1]}}
  - W1n:  {{join: [W1, dW1], on: [[0, 1], [0, 1]], kernel: {{expr: "a - {fmt(lr)} * b"}}}}
  - W2n:  {{join: [W2, dW2], on: [[0, 1], [0, 1]], kernel: {{expr: "a - {fmt(lr)} * b"}}}}
{loop}outputs:
  loss: {{file: out/{name}.h5{observe}}}
  W1n:  {{file: out/{name}.h5}}
  W2n:  {{file: out/{name}.h5}}
"""


def mlp_numpy(x, lr=0.1):
    X, T, W1, W2 = x["X"], x["T"], x["W1"], x["W2"]
    n = X.shape[0]
    Y = T / T.sum(axis=1, keepdims=True)
    z1 = X @ W1
    a1 = np.maximum(z1, 0.0)
    z2 = a1 @ W2
    lp = z2 - z2.max(axis=1, keepdims=True)
    lp = lp - np.log(np.exp(lp).sum(axis=1, keepdims=True))
    p = softmax(z2, axis=1)
    loss = -np.sum(Y * lp) / n
    dz2 = (p - Y) / n
    dW2 = a1.T @ dz2
    dz1 = (dz2 @ W2.T) * (z1 > 0)
    dW1 = X.T @ dz1
    return {"loss": np.array(loss), "W1n": W1 - lr * dW1, "W2n": W2 - lr * dW2}


def iterate(step, x, times, carry, every):
    """A `repeat:` in numpy: runs `step` (inputs -> outputs) `times` times, input IN taking
    output carry[IN] after each iteration. Returns the last iteration's outputs and, for every
    output NAME with every[NAME] = K, NAME@K, NAME@2K, ... (NAME in iterations K, 2K, ...)."""
    x = dict(x)
    observed = {}
    for it in range(1, times + 1):
        out = step(x)
        for name, k in every.items():
            if it % k == 0:
                observed["%s@%d" % (name, it)] = out[name]
        x.update({i: out[s] for i, s in carry.items()})
    return {**out, **observed}


def mlp_loop_numpy(x, times=6, every=None, lr=0.1):
    """mlp_numpy's step `times` times, carrying the weights; every: {output: K} (default the
    loss every 2 iterations)."""
    every = {"loss": 2} if every is None else every
    return iterate(lambda v: mlp_numpy(v, lr), x, times, {"W1": "W1n", "W2": "W2n"}, every)


def mlp_minibatch_numpy(x, times=6, every=None, slices=None, lr=0.1):
    """mlp_loop_numpy whose inputs X and T are read a batch per iteration: slices {input: (dim,
    size)} (default X and T along rows, 8 samples), iteration k reading entries ((k - 1) * size)
    mod extent on."""
    slices = {"X": (0, 8), "T": (0, 8)} if slices is None else slices
    every = {"loss": 2} if every is None else every
    whole = {k: x[k] for k in slices}
    state = {"it": 0}

    def step(v):
        state["it"] += 1
        v = dict(v)
        for name, (dim, size) in slices.items():
            start = (state["it"] - 1) * size % whole[name].shape[dim]
            v[name] = np.take(whole[name], range(start, start + size), axis=dim)
        return mlp_numpy(v, lr)

    return iterate(step, x, times, {"W1": "W1n", "W2": "W2n"}, every)


# ---------------------------------------------------------------------------------------------
# Multi-head attention as EinDecomp writes it (seed 004), with the softmax step.
# ---------------------------------------------------------------------------------------------
def attention_yaml(s, a, h, d, ts, ta, dtype="f64"):
    return f"""\
# attention: multi-head attention as EinDecomp writes it (seed 004; written by
# tools/reference/models.py; regenerate, do not edit): Q, K, V = X W (3-D weights [a, h, d]),
# P = softmax over t of Q K^T per head (unscaled, as in the paper), Y = (P V) WO.
# s = {s}, a = {a}, {h} heads of {d}; tiles of {ts} along s and t, {ta} along a.
#   mpirun -n 2 tra run plans/models/attention.yaml --out-dir /tmp/attention
name: attention
dtype: {dtype}
inputs:
  X:  {{shape: [{s}, {a}], tile: [{ts}, {ta}], generate: {{uniform: [-1, 1], seed: 31}}}}
  WQ: {{shape: [{a}, {h}, {d}], tile: [{ta}, {h}, {d}], generate: {{uniform: [-0.1, 0.1], seed: 32}}}}
  WK: {{shape: [{a}, {h}, {d}], tile: [{ta}, {h}, {d}], generate: {{uniform: [-0.1, 0.1], seed: 33}}}}
  WV: {{shape: [{a}, {h}, {d}], tile: [{ta}, {h}, {d}], generate: {{uniform: [-0.1, 0.1], seed: 34}}}}
  WO: {{shape: [{a}, {h}, {d}], tile: [{ta}, {h}, {d}], generate: {{uniform: [-0.1, 0.1], seed: 35}}}}
program:
  - Q: {{einsum: "sa,ahd->shd", inputs: [X, WQ]}}
  - K: {{einsum: "sa,ahd->shd", inputs: [X, WK]}}
  - V: {{einsum: "sa,ahd->shd", inputs: [X, WV]}}
  - S: {{einsum: "shd,thd->hst", inputs: [Q, K]}}
  - P: {{softmax: S, dim: 2}}
  - O: {{einsum: "hst,thd->shd", inputs: [P, V]}}
  - Y: {{einsum: "shd,ahd->sa", inputs: [O, WO]}}
outputs:
  Y: {{file: out/attention.h5}}
"""


def attention_numpy(x):
    X = x["X"]
    s, a = X.shape
    _, h, d = x["WQ"].shape

    def project(W):
        return (X @ W.reshape(a, h * d)).reshape(s, h, d)

    Q, K, V = project(x["WQ"]), project(x["WK"]), project(x["WV"])
    P = softmax(np.matmul(Q.transpose(1, 0, 2), K.transpose(1, 2, 0)), axis=2)
    O = np.matmul(P, V.transpose(1, 0, 2)).transpose(1, 0, 2)
    return {"Y": O.reshape(s, h * d) @ x["WO"].reshape(a, h * d).T}


# name -> (workflow writer, numpy function, the committed small sizes)
MODELS = {
    "decoder": (decoder_yaml, decoder_numpy,
                dict(s=32, a=16, h=2, d=8, f=24, ts=8, th=1, tf=12)),
    "mlp_train": (mlp_yaml, mlp_numpy, dict(n=16, i=12, hid=10, c=6, tn=8, ti=6, th=5, tc=3)),
    "mlp_loop": (mlp_yaml, mlp_loop_numpy,
                 dict(n=16, i=12, hid=10, c=6, tn=8, ti=6, th=5, tc=3, times=6, every=2)),
    "mlp_minibatch": (mlp_yaml, mlp_minibatch_numpy,
                      dict(n=8, i=12, hid=10, c=6, tn=4, ti=6, th=5, tc=3, times=100, every=10,
                           batches=3)),
    "attention": (attention_yaml, attention_numpy, dict(s=32, a=16, h=2, d=8, ts=8, ta=8)),
}


def workflow(name, **sizes):
    """The YAML text of model `name` at `sizes` (the committed small ones where not given)."""
    writer, _, small = MODELS[name]
    return writer(**{**small, **sizes})


def expected(wf_path):
    """{output: numpy array} for the model workflow at wf_path, in the workflow's dtype."""
    with open(wf_path) as f:
        wf = yaml.safe_load(f)
    name = wf["name"]
    if name not in MODELS:
        raise SystemExit("%s: '%s' is not a model (%s)" % (wf_path, name, ", ".join(MODELS)))
    inputs = {k: v.astype(np.float64) for k, v in read_inputs(wf_path, wf).items()}
    dtype = NP_DTYPE[wf.get("dtype", "f64")]
    loop = {}
    if "repeat" in wf:  # a loop model: its iteration count and observations are the workflow's
        loop["times"] = wf["repeat"]["times"]
        loop["every"] = {k: o["every"] for k, o in wf["outputs"].items() if "every" in o}
        sliced = {k: (i["slice"]["dim"], i["slice"]["size"])
                  for k, i in wf["inputs"].items() if "slice" in i}
        if sliced:
            loop["slices"] = sliced
    return {k: np.asarray(v).astype(dtype) for k, v in MODELS[name][1](inputs, **loop).items()}


def main(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = p.add_subparsers(dest="command", required=True)
    w = sub.add_parser("write", help="write plans/models/NAME.yaml at the small sizes")
    w.add_argument("--out", default=PLANS, help="folder (default plans/models)")
    e = sub.add_parser("expected", help="numpy's outputs of a model workflow")
    e.add_argument("workflow")
    e.add_argument("out", help="HDF5 file, one dataset per output")
    sub.add_parser("list")
    args = p.parse_args(argv)
    if args.command == "list":
        print("\n".join(MODELS))
    elif args.command == "write":
        os.makedirs(args.out, exist_ok=True)
        for name in MODELS:
            path = os.path.join(args.out, name + ".yaml")
            with open(path, "w") as f:
                f.write(workflow(name))
            print("wrote", path)
    else:
        outputs = expected(args.workflow)
        with h5py.File(args.out + ".tmp", "w") as f:
            for k, v in outputs.items():
                f.create_dataset(k, data=v)
        os.replace(args.out + ".tmp", args.out)


if __name__ == "__main__":
    main(sys.argv[1:])
