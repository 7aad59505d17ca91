#!/usr/bin/env bash
# Block-sparse tensors end to end (docs/workflow-format.md, "Sparse tensors"): a generated input
# with `density:` and `sparse: true` file inputs written by h5py (only some chunks; chunks that
# are tiles, two tiles, and half a tile) run through a matrix product, a relu, sums and a
# transpose, and every output equals numpy on the dense tensors (tools/reference/tragen.py
# makes the generated one, zeros in absent tiles). A `sparse: true` output allocates only the
# chunks of present tiles; `tra gen` writes a density input as such a file, which reads back with
# the same tiles. Steps where absent tiles take part as zeros (add, exp, max, a filter) read fills
# of tiles of zeros and equal numpy too. A contiguous dataset is refused with exit 2, naming the
# file, line and field.
# Usage: bash test_sparse.sh TRA_BINARY SOURCE_DIR WORK_DIR   (env TRA_PYTHON)
set -euo pipefail

# shellcheck source=tests/test_helpers.bash
source "$(dirname "${BASH_SOURCE[0]}")/../test_helpers.bash" cli sparse "$@"
"$PY" -c 'import numpy, h5py' 2>/dev/null || fail "'$PY' lacks numpy or h5py (set TRA_PYTHON)"
enter_work_dir

# F: [24, 16] in chunks of [4, 4] (tiles [4, 4]); H: [16, 12] in chunks of [8, 4] (two tiles of
# [4, 4] each); Q: [16, 12] in chunks of [2, 2] (a tile [4, 4] covers four). About half written.
"$PY" - <<'PYTHON' || fail "cannot write the sparse inputs"
import h5py, numpy as np
rng = np.random.default_rng(5)
def sparse(path, shape, chunk, fraction):
    values = rng.uniform(-1, 1, size=shape)
    grid = [n // c for n, c in zip(shape, chunk)]
    keep = rng.random(grid) < fraction
    dense = np.zeros(shape)
    with h5py.File(path, "w") as f:
        ds = f.create_dataset("/X", shape=shape, dtype="f8", chunks=chunk)
        for block in zip(*np.nonzero(keep)):
            at = tuple(slice(b * c, (b + 1) * c) for b, c in zip(block, chunk))
            ds[at] = values[at]
            dense[at] = values[at]
    np.save(path + ".npy", dense)
sparse("F.h5", (24, 16), (4, 4), 0.5)
sparse("H.h5", (16, 12), (8, 4), 0.5)
sparse("Q.h5", (16, 12), (2, 2), 0.1)
with h5py.File("dense.h5", "w") as f:
    f.create_dataset("/X", data=np.ones((4, 4)))      # contiguous: refused as sparse
PYTHON

cat > wf.yaml <<'YAML'
name: sparse
dtype: f64
inputs:
  F: {shape: [24, 16], tile: [4, 4], file: F.h5, dataset: /X, sparse: true}
  H: {shape: [16, 12], tile: [4, 4], file: H.h5, dataset: /X, sparse: true}
  Q: {shape: [16, 12], tile: [4, 4], file: Q.h5, dataset: /X, sparse: true}
  G: {shape: [16, 12], tile: [4, 4], generate: {uniform: [-1, 1], seed: 3, density: 0.4}}
program:
  - C:  {einsum: "ik,kj->ij", inputs: [F, H]}
  - D:  {einsum: "ik,kj->ij", inputs: [F, G]}
  - R:  {transform: D, kernel: relu}
  - M:  {join: [H, Q], on: [[0, 1], [0, 1]], kernel: mul}
  - S:  {einsum: "ij->i", inputs: [C]}
  - T:  {einsum: "ij->ji", inputs: [G]}
  - P:  {join: [H, G], on: [[0, 1], [0, 1]], kernel: add}
  - X:  {transform: G, kernel: exp}
  - W:  {aggregate: Q, by: [0], kernel: max}
  - K:  {filter: H, where: "k0 == k1"}
outputs:
  C: {file: out/C.h5, sparse: true}
  R: {file: out/R.h5}
  M: {file: out/M.h5, sparse: true}
  S: {file: out/S.h5}
  T: {file: out/T.h5}
  P: {file: out/P.h5, sparse: true}
  X: {file: out/X.h5}
  W: {file: out/W.h5}
  K: {file: out/K.h5, sparse: true}
YAML

rc=0
"$TRA" run wf.yaml --check > run.log 2>&1 || rc=$?
[ "$rc" -eq 0 ] || { cat run.log >&2; fail "'tra run wf.yaml --check' exited with $rc"; }

"$PY" - "$SRC/tools/reference" <<'PYTHON' || fail "outputs differ from numpy on the dense tensors"
import sys
import h5py, numpy as np
sys.path.insert(0, sys.argv[1])
from tragen import generate
F, H, Q = (np.load(n + ".h5.npy") for n in "FHQ")
G = generate("uniform", -1, 1, 3, (16, 12), "f64", 0.4, (4, 4))
C = F @ H
# W: the maximum over each row of tiles, tile by tile (relation layout [4, 4, 4]); K: the
# diagonal tiles of H (a filter; its holes read as zeros from a sparse output).
W = Q.reshape(4, 4, 3, 4).max(axis=2)
K = np.zeros_like(H)
for i in range(3):
    K[4 * i:4 * i + 4, 4 * i:4 * i + 4] = H[4 * i:4 * i + 4, 4 * i:4 * i + 4]
want = {"C": C, "R": np.maximum(F @ G, 0), "M": H * Q, "S": C.sum(axis=1), "T": G.T,
        "P": H + G, "X": np.exp(G), "W": W, "K": K[:12, :12]}
for name, value in want.items():
    with h5py.File("out/%s.h5" % name, "r") as f:
        got = f["/" + name][()]
    assert got.shape == value.shape, (name, got.shape, value.shape)
    assert np.allclose(got, value, rtol=1e-12, atol=1e-12), (name, np.abs(got - value).max())
# A sparse output allocates exactly the chunks of its present tiles: a [4, 4] tile of C is
# present where some product of present tiles of F and H meets.
Fp = np.abs(F).reshape(6, 4, 4, 4).sum(axis=(1, 3)) > 0
Hp = np.abs(H).reshape(4, 4, 3, 4).sum(axis=(1, 3)) > 0
tiles = int(((Fp.astype(int) @ Hp.astype(int)) > 0).sum())
with h5py.File("out/C.h5", "r") as f:
    chunks = f["/C"].id.get_num_chunks()
assert chunks == tiles, "C allocates %d chunks, has %d present tiles" % (chunks, tiles)
assert tiles < 18, "the test wants C with absent tiles, has all %d" % tiles
PYTHON

# The tiles tra holds: validate's tuple counts. Q's [4, 4] tiles cover four [2, 2] chunks each.
"$TRA" validate wf.yaml > validate.log 2>&1 || { cat validate.log >&2; fail "validate failed"; }
q_tiles=$("$PY" -c '
import numpy as np
Q = np.load("Q.h5.npy")
print(int((np.abs(Q).reshape(4, 4, 3, 4).sum(axis=(1, 3)) > 0).sum()))')
awk -v want="$q_tiles" '$1 == "Q" && $2 == "input" { found = 1; if ($5 != want) exit 1 } END { exit !found }' \
    validate.log || { cat validate.log >&2; fail "validate does not show Q with $q_tiles tiles"; }

# `tra gen` writes G's present tiles only; read back with sparse: true it has the same tiles.
"$TRA" gen wf.yaml > gen.log 2>&1 || { cat gen.log >&2; fail "tra gen failed"; }
sed -e 's|  G: {shape: \[16, 12\], tile: \[4, 4\], generate: .*|  G: {shape: [16, 12], tile: [4, 4], file: G.h5, sparse: true}|' wf.yaml > regen.yaml
"$TRA" validate regen.yaml > regen.log 2>&1 || { cat regen.log >&2; fail "validate of the generated file failed"; }
g_tiles() { awk '$1 == "G" && $2 == "input" { print $5 }' "$1"; }
[ -n "$(g_tiles validate.log)" ] && [ "$(g_tiles validate.log)" = "$(g_tiles regen.log)" ] ||
    fail "G has $(g_tiles validate.log) tiles generated but $(g_tiles regen.log) read back from tra gen's file"

# A contiguous dataset cannot be sparse: exit 2, file:line:column and why; no output written.
refused() {  # NAME EXPECTED-TEXT, the workflow in NAME.yaml
    local rc=0
    "$TRA" run "$1.yaml" --out-dir "$1.out" > "$1.log" 2>&1 || rc=$?
    [ "$rc" -eq 2 ] || { cat "$1.log" >&2; fail "$1: exited with $rc, expected 2"; }
    grep -q -- "$2" "$1.log" || { cat "$1.log" >&2; fail "$1: the error does not say '$2'"; }
    grep -q "$1.yaml:[0-9]*:[0-9]*" "$1.log" || { cat "$1.log" >&2; fail "$1: no file:line:column"; }
    [ ! -e "$1.out" ] || [ -z "$(find "$1.out" -type f)" ] || fail "$1: a refused run wrote files"
}
cat > contiguous.yaml <<'YAML'
name: contiguous
inputs:
  X: {shape: [4, 4], tile: [2, 2], file: dense.h5, sparse: true}
program:
  - Y: {transform: X, kernel: relu}
outputs:
  Y: {file: out/Y.h5}
YAML
refused contiguous "is not chunked"
echo "sparse: ok"
