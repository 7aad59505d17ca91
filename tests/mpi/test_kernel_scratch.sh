#!/usr/bin/env bash
# The einsum kernel's scratch, predicted and measured (docs/cost-model.md, "Peak memory model"):
# a 4-D contraction whose operands BLAS cannot read in place (acbd,dcef->feab: A's rows a, b are
# split by c) runs as TTGT, which keeps permuted copies of the tiles it permutes. The run matches
# numpy, and its measured peak, scratch included (kernels::scratch_bytes_held), stays within the
# predicted one; on one rank, where every tile is the rank's, the two are equal.
# Usage: bash test_kernel_scratch.sh TRA_BINARY SOURCE_DIR WORK_DIR RANKS MPIEXEC
set -euo pipefail

# shellcheck source=tests/test_helpers.bash
source "$(dirname "${BASH_SOURCE[0]}")/../test_helpers.bash" mpi kernel_scratch "$@"
"$PY" -c 'import numpy, h5py' 2>/dev/null || fail "'$PY' lacks numpy or h5py (set TRA_PYTHON)"

enter_work_dir
# k4: tiles of 16^4 f64 (512 KiB), so TTGT's copies are host mappings of their own. lanes: the
# batch b innermost in both operands and the result, which the lanes product computes as SIMD
# lanes from packed panels, whose size depends on the rank's threads (run with 2).
cat > k4.yaml << 'YAML'
name: k4
inputs:
  A: {shape: [32, 32, 32, 32], tile: [16, 16, 16, 16], generate: {uniform: [-1, 1], seed: 1}}
  B: {shape: [32, 32, 32, 32], tile: [16, 16, 16, 16], generate: {uniform: [-1, 1], seed: 2}}
program:
  - Z: {einsum: "acbd,dcef->feab", inputs: [A, B]}
outputs:
  Z: {file: out/Z.h5}
YAML
cat > lanes.yaml << 'YAML'
name: lanes
inputs:
  A: {shape: [96, 64, 32], tile: [48, 32, 32], generate: {uniform: [-1, 1], seed: 3}}
  B: {shape: [64, 80, 32], tile: [32, 40, 32], generate: {uniform: [-1, 1], seed: 4}}
program:
  - Z: {einsum: "ijb,jkb->ikb", inputs: [A, B]}
outputs:
  Z: {file: out/Z.h5}
YAML
for wf in k4 lanes; do
    mkdir -p "$wf"
    "$TRA" gen "$wf.yaml" --out-dir "$wf" > "$wf.gen.log" 2>&1 ||
        { cat "$wf.gen.log" >&2; fail "tra gen $wf.yaml failed"; }
done
"$PY" - << 'PY' || fail "numpy could not compute the expected results"
import h5py, numpy as np
for wf, spec in [("k4", "acbd,dcef->feab"), ("lanes", "ijb,jkb->ikb")]:
    a, b = (h5py.File(f"{wf}/{n}.h5", "r")["/" + n][...] for n in "AB")
    with h5py.File(f"{wf}/expected.h5", "w") as f:
        f["Z"] = np.einsum(spec, a, b)
PY

for wf in k4 lanes; do
    rc=0
    (cd "$wf" && timeout 300 "$MPIEXEC" -n "$RANKS" "$TRA" run "../$wf.yaml" --out-dir run \
        --threads 2 --report run.json < /dev/null > run.out 2> run.err) || rc=$?
    [ "$rc" -eq 0 ] || { cat "$wf/run.out" "$wf/run.err" >&2; fail "$wf: tra run exited with $rc"; }
    "$TRA" diff "$wf/run/out/Z.h5:/Z" "$wf/expected.h5:/Z" > "$wf.diff" 2>&1 ||
        fail "$wf: Z differs from numpy's einsum: $(cat "$wf.diff")"
    "$PY" - "$wf/run.json" "$RANKS" << 'PY' || fail "$wf: the measured peak is not within the predicted one"
import json, sys
r, ranks = json.load(open(sys.argv[1])), int(sys.argv[2])
measured, predicted = r["peak_bytes"], r["predicted_peak_bytes"]
assert 0 < measured <= predicted, (measured, predicted)
if ranks == 1:
    assert measured == predicted, (measured, predicted)
PY
done
echo "kernel_scratch ($RANKS ranks): both match numpy; the measured peaks within the predictions"
