#!/usr/bin/python3
"""Checks that two runs wrote bitwise-identical outputs.

Usage: same_outputs.py DIR_A DIR_B

Every HDF5 file under DIR_A must exist under DIR_B (same relative path) with the same datasets,
and each dataset must have the same shape, dtype and bytes (HDF5 files themselves may differ in
metadata such as object times, so the data is compared, not the files). Exits 1 with one line
per difference, 2 on bad usage.
"""
import os
import sys

import h5py
import numpy as np


def datasets(path):
    found = {}
    with h5py.File(path, "r") as f:
        f.visititems(lambda name, obj: found.__setitem__(name, obj[()])
                     if isinstance(obj, h5py.Dataset) else None)
    return found


def h5_files(root):
    return sorted(os.path.relpath(os.path.join(d, n), root)
                  for d, _, names in os.walk(root) for n in names if n.endswith(".h5"))


def main(argv):
    if len(argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    a, b = argv[1], argv[2]
    problems = []
    files = h5_files(a)
    if not files:
        problems.append("no .h5 files under " + a)
    if files != h5_files(b):
        problems.append("files differ: %s vs %s" % (files, h5_files(b)))
    for rel in files:
        if not os.path.exists(os.path.join(b, rel)):
            continue
        da, db = datasets(os.path.join(a, rel)), datasets(os.path.join(b, rel))
        if sorted(da) != sorted(db):
            problems.append("%s: datasets %s vs %s" % (rel, sorted(da), sorted(db)))
        for name in sorted(set(da) & set(db)):
            x, y = np.asarray(da[name]), np.asarray(db[name])
            if x.shape != y.shape or x.dtype != y.dtype or x.tobytes() != y.tobytes():
                problems.append("%s:/%s differs (shape %s vs %s, dtype %s vs %s)"
                                % (rel, name, x.shape, y.shape, x.dtype, y.dtype))
    for p in problems:
        print(p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
