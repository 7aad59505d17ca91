#!/usr/bin/env python3
"""Check the outputs of a paper workflow run (`tra run WF --reference --out-dir DIR`) against numpy.

    /usr/bin/python3 plans/paper/check_scaled.py WF.yaml DIR [--inputs GEN_DIR]

WF is one of plans/paper/scaled/*.yaml (any size works, the full-size ones just need the memory).
The inputs are regenerated with tools/reference/tragen.py (bit-identical to tra's generator), the
expected outputs computed in plain numpy from the program's meaning (matrix product, nearest
neighbour, one FFNN SGD step), never by running tra, and compared with the HDF5 files under
DIR/out/. With --inputs GEN_DIR the inputs are read from GEN_DIR/NAME.h5:/NAME as written by
`tra gen WF --out-dir GEN_DIR` instead (much faster for the big ones; that tra's generator equals
tragen.py bit for bit is tested by tests/cli/test_generator_numpy.sh). The workflow family is recognised by its `name` (mm_*, nn_*, ffnn_*). Exit 0 when every
output matches (rtol 1e-9, atol 1e-9 x the output's scale), 1 otherwise.
"""

import os
import sys

import h5py
import numpy as np
import yaml

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "tools", "reference"))
from tragen import generate  # noqa: E402


def inputs_of(wf, gen_dir=None):
    out = {}
    default = wf.get("dtype", "f64")
    for name, spec in wf["inputs"].items():
        if gen_dir is not None:
            with h5py.File(os.path.join(gen_dir, name + ".h5"), "r") as h5:
                out[name] = h5["/" + name][()].astype(np.float64)
            if list(out[name].shape) != list(spec["shape"]):
                raise ValueError("%s in %s has shape %s, expected %s"
                                 % (name, gen_dir, out[name].shape, spec["shape"]))
            continue
        gen = spec["generate"]
        (kind, args), = [(k, v) for k, v in gen.items() if k != "seed"]
        args = args if isinstance(args, list) else [args, 0]
        out[name] = generate(kind, args[0], args[1], gen.get("seed", 0), spec["shape"],
                             spec.get("dtype", default)).astype(np.float64)
    return out


def scale_factor(wf, step):
    for entry in wf["program"]:
        (name, body), = entry.items()
        if name == step:
            k = body["kernel"]
            return float(k[len("scale("):-1])
    raise KeyError(step)


def expected(wf, gen_dir=None):
    x = inputs_of(wf, gen_dir)
    name = wf["name"]
    if name.startswith("mm_"):
        return {"C": x["A"] @ x["B"]}
    if name.startswith("nn_"):
        diff = x["X"] - x["q"][None, :]
        dist = np.einsum("ne,ne->n", diff @ x["A"], diff)
        i = int(np.argmin(dist))
        return {"dist": dist, "nearest": np.array([dist[i], float(i)])}
    if name.startswith("ffnn_"):
        X, Y, W1, W2 = x["X"], x["Y"], x["W1"], x["W2"]
        a1 = np.maximum(X @ W1, 0.0)
        a2 = 1.0 / (1.0 + np.exp(-(a1 @ W2)))
        g2 = a2 - Y
        dW2 = a1.T @ g2
        g1 = (a1 > 0).astype(np.float64) * (g2 @ W2.T)
        dW1 = X.T @ g1
        return {"a2": a2,
                "W2n": W2 - scale_factor(wf, "sW2") * dW2,
                "W1n": W1 - scale_factor(wf, "sW1") * dW1}
    raise ValueError("unknown paper workflow family: %r" % name)


def main(argv):
    gen_dir = None
    if len(argv) == 5 and argv[3] == "--inputs":
        gen_dir = argv[4]
    elif len(argv) != 3:
        print("usage: " + __doc__.strip().splitlines()[2].strip(), file=sys.stderr)
        return 2
    wf_path, out_dir = argv[1], argv[2]
    with open(wf_path) as f:
        wf = yaml.safe_load(f)
    ok = True
    for out, want in expected(wf, gen_dir).items():
        spec = wf["outputs"][out]
        dataset = spec.get("dataset", "/" + out)
        path = os.path.join(out_dir, spec["file"])
        with h5py.File(path, "r") as h5:
            got = h5[dataset][()]
        scale = max(1.0, float(np.max(np.abs(want))))
        if got.shape != want.shape:
            print("FAIL %s %s: shape %s, expected %s" % (wf["name"], out, got.shape, want.shape))
            ok = False
            continue
        err = float(np.max(np.abs(got - want))) if want.size else 0.0
        good = np.allclose(got, want, rtol=1e-9, atol=1e-9 * scale)
        if out == "nearest":  # the index must be exact
            good = good and got[1] == want[1]
        print("%s %s %s: shape %s, max abs err %.3g" % ("ok  " if good else "FAIL", wf["name"],
                                                          out, list(got.shape), err))
        ok = ok and good
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
