#!/usr/bin/python3
"""Check a run of an EinDecomp chain workflow (plans/eindecomp/chain-*.yaml) against numpy.

    /usr/bin/python3 plans/eindecomp/check_chain.py WF.yaml DIR

The inputs are regenerated with tools/reference/tragen.py (bit for bit tra's generator) and
S = (A B) + (C (D E)) is computed with numpy, never by tra, then compared with DIR/out/S.h5:/S
(rtol 1e-9, atol 1e-9 x the largest |S|). Exit 0 when equal, 1 otherwise.
"""
import os
import sys

import h5py
import numpy as np
import yaml

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "tools", "reference"))
from tragen import generate  # noqa: E402


def main(path, out_dir):
    with open(path) as f:
        wf = yaml.safe_load(f)
    x = {}
    for name, spec in wf["inputs"].items():
        lo, hi = spec["generate"]["uniform"]
        x[name] = generate("uniform", lo, hi, spec["generate"]["seed"], spec["shape"], "f64")
    expected = x["A"] @ x["B"] + x["C"] @ (x["D"] @ x["E"])
    with h5py.File(os.path.join(out_dir, "out", "S.h5"), "r") as h5:
        got = h5["/S"][()]
    scale = max(float(np.abs(expected).max()), 1.0)
    if got.shape != expected.shape or not np.allclose(got, expected, rtol=1e-9, atol=1e-9 * scale):
        print("%s: S differs from numpy (max |diff| %g)" % (path, float(np.abs(got - expected).max())))
        return 1
    print("%s: S equals numpy (%s)" % (path, "x".join(map(str, got.shape))))
    return 0


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    sys.exit(main(sys.argv[1], sys.argv[2]))
