#!/usr/bin/env python3
"""Workflows and numpy answers for the einsum coverage test (test_einsum_coverage.sh).

  einsum_coverage.py make DIR [--batches N]   write DIR/inputs.h5, DIR/expected.h5 and
                                              DIR/batch*.yaml for every distinct expression of
                                              einsum_expressions.txt
  einsum_coverage.py check DIR RUN            compare RUN/out/batch*.h5 with DIR/expected.h5

Each expression gets its own inputs: every label a tile size of 2-4 elements and 1-2 tiles,
drawn from a seed of the expression's index, then shrunk (tile sizes first, then tile counts)
until all labels together span at most LIMIT elements,
which bounds every intermediate of any contraction order. The expected values are
numpy.einsum's, independent of tra. In even expressions every operand tiles a label alike; in odd
ones some dimensions take half the tile size (retiled()), so tra re-tiles the coarser operand or
dimension. Several expressions share one workflow as separate steps
and outputs, so one `tra run` checks many.
"""
import argparse
import os
import sys

import h5py
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
LIMIT = 4096  # elements of the product of all label extents of one expression


def expressions():
    out = []
    with open(os.path.join(HERE, "einsum_expressions.txt")) as f:
        for line in f:
            line = line.strip()
            if line and not line.startswith("#") and line not in out:
                out.append(line)
    return out


def operands(expr):
    return expr.split("->")[0].split(",")


def tilings(index, expr):
    """label -> [tile count, tile size]"""
    rng = np.random.default_rng(1000 + index)
    labels = sorted(set("".join(operands(expr))))
    t = {c: [int(rng.integers(1, 3)), int(rng.integers(2, 5))] for c in labels}

    def extent(c):
        return t[c][0] * t[c][1]

    def too_big():
        return np.prod([extent(c) for c in labels]) > LIMIT

    # Smaller tiles first, so large expressions keep several tiles per label where they can.
    while too_big() and any(t[c][1] > 2 for c in labels):
        c = max(labels, key=lambda c: (t[c][1], c))
        t[c][1] -= 1
    while too_big():
        c = max(labels, key=lambda c: (t[c][0], c))
        t[c][0] = 1
    return t


def retiled(n, k, d, size):
    """The tile size of dimension d of operand k of expression n: in odd expressions, halved (twice
    the tiles) where k + d is odd and the size is even, so the operands, and the dimensions of a
    repeated label, tile a label differently with counts that divide each other, and tra re-tiles
    the coarser to the finer; even expressions keep every label tiled alike."""
    return size // 2 if n % 2 and (k + d) % 2 and size % 2 == 0 else size


def make(args):
    exprs = expressions()
    os.makedirs(args.dir, exist_ok=True)
    batches = [[] for _ in range(args.batches)]
    with h5py.File(os.path.join(args.dir, "inputs.h5"), "w") as inputs, h5py.File(
        os.path.join(args.dir, "expected.h5"), "w"
    ) as expected:
        for n, expr in enumerate(exprs):
            t = tilings(n, expr)
            rng = np.random.default_rng(n)
            names, arrays, lines = [], [], []
            for k, labels in enumerate(operands(expr)):
                name = "e%d_%d" % (n, k)
                shape = [t[c][0] * t[c][1] for c in labels]
                tile = [retiled(n, k, d, t[c][1]) for d, c in enumerate(labels)]
                a = rng.uniform(-1, 1, size=shape)
                inputs.create_dataset(name, data=a)
                names.append(name)
                arrays.append(a)
                lines.append(
                    "  %s: {shape: [%s], tile: [%s], file: inputs.h5, dataset: /%s}"
                    % (name, ", ".join(map(str, shape)), ", ".join(map(str, tile)), name)
                )
            expected.create_dataset("E%d" % n, data=np.einsum(expr, *arrays))
            batches[n % args.batches].append((n, expr, names, lines))
    for b, batch in enumerate(batches):
        with open(os.path.join(args.dir, "batch%d.yaml" % b), "w") as f:
            f.write("name: einsum-coverage-%d\ndtype: f64\ninputs:\n" % b)
            for _, _, _, lines in batch:
                f.write("\n".join(lines) + "\n")
            f.write("program:\n")
            for n, expr, names, _ in batch:
                f.write('  - E%d: {einsum: "%s", inputs: [%s]}\n' % (n, expr, ", ".join(names)))
            f.write("outputs:\n")
            for n, _, _, _ in batch:
                f.write("  E%d: {file: out/batch%d.h5, dataset: /E%d}\n" % (n, b, n))
    print("%d expressions in %d workflows" % (len(exprs), args.batches))


def check(args):
    exprs = expressions()
    got = {}
    out = os.path.join(args.run, "out")
    for name in sorted(os.listdir(out)) if os.path.isdir(out) else []:
        with h5py.File(os.path.join(out, name), "r") as f:
            for ds in f:
                got[ds] = f[ds][()]
    bad = 0
    with h5py.File(os.path.join(args.dir, "expected.h5"), "r") as expected:
        for n, expr in enumerate(exprs):
            want = expected["E%d" % n][()]
            have = got.get("E%d" % n)
            why = None
            if have is None:
                why = "no output"
            elif np.shape(have) != np.shape(want):
                why = "shape %s, numpy %s" % (np.shape(have), np.shape(want))
            elif not np.allclose(have, want, rtol=1e-9, atol=1e-12):
                why = "max |difference| %g" % np.max(np.abs(np.asarray(have) - want))
            if why:
                bad += 1
                print("E%d %s: %s" % (n, expr, why), file=sys.stderr)
    print("%d of %d expressions match numpy" % (len(exprs) - bad, len(exprs)))
    return 1 if bad else 0


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = p.add_subparsers(dest="cmd", required=True)
    m = sub.add_parser("make")
    m.add_argument("dir")
    m.add_argument("--batches", type=int, default=5)
    c = sub.add_parser("check")
    c.add_argument("dir")
    c.add_argument("run")
    args = p.parse_args()
    return make(args) if args.cmd == "make" else check(args)


if __name__ == "__main__":
    sys.exit(main() or 0)
