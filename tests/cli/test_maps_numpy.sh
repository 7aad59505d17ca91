#!/usr/bin/env bash
# The named element-wise kernels (sqrt ... cos, issue 22) under `tra run` equal numpy's formulas
# on the same inputs, in f64 and f32: one transform per kernel over an input holding ordinary
# values, 0 and |x| up to 700 (where naive silu, softplus and gelu overflow or cancel). numpy has
# no erf, so gelu's reference uses math.erf element by element.
# Usage: bash test_maps_numpy.sh TRA_BINARY SOURCE_DIR WORK_DIR   (env TRA_PYTHON)
set -euo pipefail

# shellcheck source=tests/test_helpers.bash
source "$(dirname "${BASH_SOURCE[0]}")/../test_helpers.bash" cli maps_numpy "$@"

"$PY" -c 'import numpy, h5py' 2> /dev/null || fail "'$PY' lacks numpy or h5py (set TRA_PYTHON)"

enter_work_dir

# X: any real (the large values and 0 first, then uniform in [-4, 4]); P: positive, for the
# kernels that need it. The same values in f32 as X32 and P32.
"$PY" - << 'PYTHON' || fail "cannot write the inputs"
import h5py
import numpy as np

rng = np.random.default_rng(5)
special = [-700, -30, -5, -1e-3, 0, 1e-3, 5, 30, 700]
x = np.concatenate([special, rng.uniform(-4, 4, 32 - len(special))]).reshape(4, 8)
p = np.concatenate([[1e-3, 0.5, 30, 700], rng.uniform(0.01, 4, 28)]).reshape(4, 8)
with h5py.File("in.h5", "w") as f:
    f["X"], f["P"] = x, p
    f["X32"], f["P32"] = x.astype(np.float32), p.astype(np.float32)
PYTHON

kernels="sqrt rsqrt square abs neg reciprocal gelu gelu_tanh silu softplus sin cos"
positive=" sqrt rsqrt reciprocal "
{
    echo "name: maps-numpy"
    echo "dtype: f64"
    echo "inputs:"
    for x in X P; do
        echo "  $x: {shape: [4, 8], tile: [2, 4], file: in.h5}"
        echo "  ${x}32: {shape: [4, 8], tile: [2, 4], dtype: f32, file: in.h5}"
    done
    echo "program:"
    for k in $kernels; do
        x=X
        [[ $positive == *" $k "* ]] && x=P
        echo "  - ${k}_64: {transform: $x, kernel: $k}"
        echo "  - ${k}_32: {transform: ${x}32, kernel: $k}"
    done
    echo "outputs:"
    for k in $kernels; do
        echo "  ${k}_64: {file: out/maps.h5}"
        echo "  ${k}_32: {file: out/maps.h5}"
    done
} > wf.yaml

rc=0
"$TRA" run wf.yaml > run.log 2>&1 || rc=$?
[ "$rc" -eq 0 ] || { cat run.log >&2; fail "tra run exited with $rc"; }

"$PY" - "$kernels" "$positive" << 'PYTHON' || fail "outputs differ from numpy"
import math
import sys

import h5py
import numpy as np

kernels, positive = sys.argv[1].split(), sys.argv[2].split()
erf = np.vectorize(math.erf)


def sigmoid(x):
    return 0.5 + 0.5 * np.tanh(x / 2)  # no overflow warning at |x| = 700


reference = {
    "sqrt": np.sqrt,
    "rsqrt": lambda x: 1 / np.sqrt(x),
    "square": np.square,
    "abs": np.abs,
    "neg": np.negative,
    "reciprocal": lambda x: 1 / x,
    "gelu": lambda x: 0.5 * x * (1 + erf(x / math.sqrt(2))),
    "gelu_tanh": lambda x: 0.5 * x * (1 + np.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x**3))),
    "silu": lambda x: x * sigmoid(x),
    "softplus": lambda x: np.logaddexp(0, x),
    "sin": np.sin,
    "cos": np.cos,
}
ok = True
with h5py.File("in.h5", "r") as i, h5py.File("out/maps.h5", "r") as o:
    for k in kernels:
        for bits, rtol, atol in (("64", 1e-12, 1e-14), ("32", 1e-5, 1e-6)):
            name = k + "_" + bits
            x = i[("P" if k in positive else "X") + ("32" if bits == "32" else "")][()]
            got = o[name][()]
            want = reference[k](x.astype(np.float64))
            expected_dtype = np.float32 if bits == "32" else np.float64
            if got.dtype != expected_dtype:
                print("%s: dtype %s, expected %s" % (name, got.dtype, expected_dtype))
                ok = False
            elif not np.all(np.isfinite(got)):
                print("%s: not finite at %s" % (name, np.argwhere(~np.isfinite(got)).tolist()))
                ok = False
            elif not np.allclose(got, want, rtol=rtol, atol=atol):
                j = np.unravel_index(np.argmax(np.abs(got - want) - rtol * np.abs(want)), got.shape)
                print("%s: at x = %r got %r, numpy %r" % (name, x[j], got[j], want[j]))
                ok = False
print("%d kernels x 2 dtypes match numpy" % len(kernels) if ok else "mismatch")
sys.exit(0 if ok else 1)
PYTHON

echo "maps_numpy: ok"
