#!/usr/bin/python3
"""Checks a run of plans/demo/ffnn.yaml (a 2-layer forward pass) against numpy, without tra.

Usage: /usr/bin/python3 tools/reference/check_demo.py OUT_DIR
OUT_DIR holds ffnn.h5 written by `tra run` and X.h5, W1.h5, W2.h5 written by `tra gen`.
The generated inputs are also recomputed with tragen.py, so the check covers the generator too.
Exits 1 if anything differs beyond rtol 1e-9, atol 1e-12.
"""
import os
import sys

import h5py
import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import tragen  # noqa: E402


def main(out):
    X = tragen.generate("uniform", -1, 1, 11, (2048, 512), "f64")
    W1 = tragen.generate("uniform", -0.1, 0.1, 12, (512, 1024), "f64")
    W2 = tragen.generate("uniform", -0.1, 0.1, 13, (1024, 64), "f64")
    ok = True
    for name, expected in (("X", X), ("W1", W1), ("W2", W2)):
        with h5py.File(os.path.join(out, name + ".h5"), "r") as f:
            same = np.array_equal(f["/" + name][...], expected)
        print(f"generated {name}: {'identical to numpy' if same else 'DIFFERS from numpy'}")
        ok &= same
    a1 = np.maximum(X @ W1, 0)
    z2 = a1 @ W2
    e = np.exp(z2 - z2.max(axis=1, keepdims=True))
    a2 = e / e.sum(axis=1, keepdims=True)
    with h5py.File(os.path.join(out, "ffnn.h5"), "r") as f:
        for name, expected in (("a1", a1), ("a2", a2)):
            got = f["/" + name][...]
            err = np.max(np.abs(got - expected))
            close = got.shape == expected.shape and np.allclose(got, expected, rtol=1e-9, atol=1e-12)
            print(f"{name} {got.shape}: max abs difference from numpy {err:.3e} "
                  f"-> {'ok' if close else 'MISMATCH'}")
            ok &= close
    print("demo check:", "passed" if ok else "FAILED")
    return 0 if ok else 1


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    sys.exit(main(sys.argv[1]))
