#!/usr/bin/env bash
# `tra gen` writes exactly what tools/reference/tragen.py computes, bit for bit, for f64 and
# f32, to an explicit file:/dataset: and to the default NAME.h5:/NAME beside the workflow, chunked
# by the tile; no temporary files are left behind; existing outputs need --force, which keeps
# the objects of the file that gen does not write.
# Usage: bash test_generator_numpy.sh TRA_BINARY SOURCE_DIR WORK_DIR   (env TRA_PYTHON)
set -euo pipefail

# shellcheck source=tests/test_helpers.bash
source "$(dirname "${BASH_SOURCE[0]}")/../test_helpers.bash" cli generator_numpy "$@"

[ -f "$SRC/tools/reference/tragen.py" ] || fail "no tools/reference/tragen.py under '$SRC'"
"$PY" -c 'import numpy, h5py' 2>/dev/null || fail "'$PY' lacks numpy or h5py (set TRA_PYTHON)"

enter_work_dir

cat > wf.yaml <<'YAML'
name: gen-check
dtype: f64
inputs:
  U: {shape: [6, 10], tile: [3, 5], generate: {uniform: [-1, 1], seed: 7}, file: gen/U.h5, dataset: /U}
  I: {shape: [4, 4], tile: [2, 2], dtype: f32, generate: {integers: [-5, 5], seed: 3}}
program: []
outputs: {}
YAML

rc=0
"$TRA" gen wf.yaml > gen.log 2>&1 || rc=$?
[ "$rc" -eq 0 ] || { cat gen.log >&2; fail "'tra gen wf.yaml' exited with $rc"; }
[ -f gen/U.h5 ] || { cat gen.log >&2; fail "tra gen did not write gen/U.h5 (file: gen/U.h5)"; }
[ -f I.h5 ] || { cat gen.log >&2; fail "tra gen did not write I.h5 beside the workflow"; }
leftovers=$(find . -name '*.tmp*')
[ -z "$leftovers" ] || fail "temporary files left behind: $leftovers"

rc=0
"$TRA" gen wf.yaml > again.log 2>&1 || rc=$?
[ "$rc" -eq 2 ] || { cat again.log >&2; fail "'tra gen' over existing files exited $rc, not 2"; }
grep -q -- "--force" again.log || { cat again.log >&2; fail "refusal does not mention --force"; }
# --force replaces only what gen writes: another dataset and a file attribute survive it.
"$PY" -c '
import h5py, numpy as np
with h5py.File("gen/U.h5", "a") as f:
    f["notes/kept"] = np.arange(6.0)
    f.attrs["owner"] = "user"' || fail "cannot add a dataset to gen/U.h5"
rc=0
"$TRA" gen wf.yaml --force > force.log 2>&1 || rc=$?
[ "$rc" -eq 0 ] || { cat force.log >&2; fail "'tra gen wf.yaml --force' exited with $rc"; }
"$PY" -c '
import h5py, numpy as np
with h5py.File("gen/U.h5", "r") as f:
    assert (f["notes/kept"][...] == np.arange(6.0)).all(), "notes/kept changed"
    assert f.attrs["owner"] == "user", "the file attribute is gone"' ||
    fail "tra gen --force lost the objects of gen/U.h5 it does not write"

"$PY" - "$SRC/tools/reference" <<'PYTHON' || fail "generated files differ from tragen.py"
import sys

import h5py
import numpy as np

sys.path.insert(0, sys.argv[1])
from tragen import generate

# (file, dataset, kind, lo, hi, seed, shape, tile, dtype)
cases = [
    ("gen/U.h5", "/U", "uniform", -1, 1, 7, (6, 10), (3, 5), "f64"),
    ("I.h5", "/I", "integers", -5, 5, 3, (4, 4), (2, 2), "f32"),
]
ok = True
for path, name, kind, lo, hi, seed, shape, tile, dtype in cases:
    want = generate(kind, lo, hi, seed, shape, dtype)
    with h5py.File(path, "r") as f:
        if name not in f:
            print("%s: no dataset %s (it has: %s)" % (path, name, ", ".join(f)))
            ok = False
            continue
        d = f[name]
        got = d[()]
        problems = []
        if d.dtype != want.dtype:
            problems.append("dtype %s, expected %s" % (d.dtype, want.dtype))
        if d.shape != shape:
            problems.append("shape %s, expected %s" % (d.shape, shape))
        if d.chunks != tile:
            problems.append("chunks %s, expected the tile %s" % (d.chunks, tile))
        if not problems:
            # Bitwise: compare the raw bytes, so -0.0 vs 0.0 or a NaN would show up too.
            bits = np.uint32 if dtype == "f32" else np.uint64
            diff = np.argwhere(got.view(bits) != want.view(bits))
            if len(diff):
                i = tuple(diff[0])
                problems.append("%d elements differ, first at %s: %r vs reference %r"
                                % (len(diff), i, got[i], want[i]))
    if problems:
        ok = False
        for p in problems:
            print("%s:%s: %s" % (path, name, p))
    else:
        print("%s:%s matches tragen.py (%s %s)" % (path, name, dtype, shape))
sys.exit(0 if ok else 1)
PYTHON

echo "generator_numpy: ok"
