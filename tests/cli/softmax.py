#!/usr/bin/env python3
"""Inputs, workflow and numpy answers for the softmax test (test_softmax.sh).

  softmax.py make DIR         write DIR/inputs.h5 and DIR/softmax.yaml
  softmax.py check RUN        compare RUN/out/NAME.h5:/NAME with numpy, for every step

The inputs hold fibres of large values (700 to 1000) beside small ones: exp overflows a double
past 709.78, so a softmax that did not subtract the maximum first would give inf / inf = nan
there. The expected values are numpy's, computed independently of tra.
"""
import argparse
import os
import sys

import h5py
import numpy as np

# name -> (input, dim, log). S is [6, 12, 8] in [2, 4, 4] tiles: every dimension is cut into
# several tiles. T is [5, 7] in [1, 7] tiles: dimension 1 in one tile, dimension 0 in five. V is
# a vector, whose maxima and sums are relations of key arity 0.
STEPS = {
    "P0": ("S", 0, False),
    "P1": ("S", 1, False),
    "P2": ("S", 2, False),
    "L1": ("S", 1, True),
    "PT0": ("T", 0, False),
    "LT1": ("T", 1, True),
    "PV": ("V", 0, False),
    "LV": ("V", 0, True),
}
SHAPES = {"S": ([6, 12, 8], [2, 4, 4]), "T": ([5, 7], [1, 7]), "V": ([12], [4])}


def inputs():
    rng = np.random.default_rng(22)
    s = rng.uniform(-5, 5, SHAPES["S"][0])
    s[1, :, 3] = rng.uniform(790, 800, 12)  # a fibre along dim 1, all large
    s[4, 7, :] = rng.uniform(700, 1000, 8)  # a fibre along dim 2, all large
    s[2, 5, 6] = 800.0                       # one large element among small ones
    s[0, 0, 0] = -800.0                      # exp underflows to 0 even after the shift
    t = rng.uniform(-3, 3, SHAPES["T"][0])
    t[3, 2] = 750.0
    v = rng.uniform(-1, 1, SHAPES["V"][0])
    v[5] = 1000.0
    v[9] = 999.5
    return {"S": s, "T": t, "V": v}


def expected(x, dim, log):
    z = x - x.max(axis=dim, keepdims=True)
    s = np.exp(z).sum(axis=dim, keepdims=True)
    return z - np.log(s) if log else np.exp(z) / s


def make(folder):
    os.makedirs(folder, exist_ok=True)
    data = inputs()
    # The test means something only if the naive formula breaks on these inputs.
    with np.errstate(over="ignore"):
        assert all(np.isinf(np.exp(x)).any() for x in data.values())
    with h5py.File(os.path.join(folder, "inputs.h5"), "w") as f:
        for name, x in data.items():
            f.create_dataset(name, data=x)
    lines = ["name: softmax", "inputs:"]
    for name, (shape, tile) in SHAPES.items():
        lines.append("  %s: {shape: %s, tile: %s, file: inputs.h5, dataset: /%s}"
                     % (name, shape, tile, name))
    lines.append("program:")
    for name, (x, dim, log) in STEPS.items():
        lines.append("  - %s: {%s: %s, dim: %d}" % (name, "log_softmax" if log else "softmax", x, dim))
    lines.append("outputs:")
    for name in STEPS:
        lines.append("  %s: {file: out/%s.h5}" % (name, name))
    with open(os.path.join(folder, "softmax.yaml"), "w") as f:
        f.write("\n".join(lines) + "\n")


def check(run):
    data = inputs()
    bad = 0
    for name, (x, dim, log) in STEPS.items():
        want = expected(data[x], dim, log)
        with h5py.File(os.path.join(run, "out", name + ".h5"), "r") as f:
            got = f[name][...]
        # rtol 1e-12: the sums differ from numpy's only in order. atol only for log_softmax,
        # where y = z - log(s) cancels when y is near 0 (z = 0 and s barely above 1): there the
        # error is that of log(s), about 1e-16 absolute.
        try:
            np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-14 if log else 0)
        except AssertionError as e:
            print("%s (%s of %s along dim %d): %s" % (name, "log_softmax" if log else "softmax",
                                                     x, dim, e))
            bad += 1
    if bad:
        return 1
    print("%d outputs match numpy" % len(STEPS))
    return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    sub.add_parser("make").add_argument("dir")
    sub.add_parser("check").add_argument("run")
    a = ap.parse_args()
    if a.cmd == "make":
        make(a.dir)
        return 0
    return check(a.run)


if __name__ == "__main__":
    sys.exit(main())
