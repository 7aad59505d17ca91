#!/usr/bin/env bash
# Every distinct expression of opt_einsum's test list (einsum_expressions.txt: 65, 22 of them with
# a label repeated inside one operand, i.e. diagonals and traces) runs under `tra run` on 1-4 ranks
# and must match numpy.einsum on the same inputs; einsum_coverage.py writes the workflows (several
# expressions per workflow, as separate outputs), the HDF5 inputs and numpy's answers; in odd
# expressions some operands or dimensions tile a label at half size, so tra re-tiles the coarser.
# Then a repeated label whose dimensions are tiled by counts that do not divide each other must be
# refused (exit 2, naming the label and both tilings).
# Usage: bash test_einsum_coverage.sh TRA_BINARY SOURCE_DIR WORK_DIR   (env TRA_PYTHON; MPIEXEC,
# default mpiexec; EINSUM_COVERAGE_RANKS, default "1 2 3 4")
set -euo pipefail

# shellcheck source=tests/test_helpers.bash
source "$(dirname "${BASH_SOURCE[0]}")/../test_helpers.bash" cli einsum_coverage "$@"

helper="$SRC/tests/cli/einsum_coverage.py"
"$PY" -c 'import numpy, h5py' 2> /dev/null || fail "'$PY' lacks numpy or h5py (set TRA_PYTHON)"
MPIEXEC=${MPIEXEC:-mpiexec}
command -v "$MPIEXEC" > /dev/null || fail "mpiexec '$MPIEXEC' not found (set MPIEXEC)"

enter_work_dir
"$PY" "$helper" make wf --batches 5 > make.log 2>&1 || { cat make.log >&2; fail "einsum_coverage.py make failed"; }

count_failures
for ranks in ${EINSUM_COVERAGE_RANKS:-1 2 3 4}; do
    for wf in wf/batch*.yaml; do
        batch=$(basename "$wf" .yaml)
        log="run$ranks.$batch.log"
        rc=0
        timeout 300 "$MPIEXEC" -n "$ranks" "$TRA" run "$wf" --out-dir "run$ranks" > "$log" 2>&1 || rc=$?
        [ "$rc" -eq 0 ] || { tail -n 20 "$log" >&2; fail "$batch on $ranks rank(s): tra run exited with $rc"; }
    done
    if "$PY" "$helper" check wf "run$ranks" > "check$ranks.log" 2>&1; then
        echo "$ranks rank(s): $(tail -n 1 "check$ranks.log")"
    else
        cat "check$ranks.log" >&2
        fail "$ranks rank(s): outputs differ from numpy.einsum"
    fi
done

# The two dimensions of 'i' in "ii->i" are tiled 3 x 2 and 2 x 3, counts that do not divide each
# other: refused before anything runs.
cat > uneven.yaml << 'YAML'
name: uneven-diagonal
inputs:
  A: {shape: [6, 6], tile: [2, 3], generate: {uniform: [-1, 1], seed: 1}}
program:
  - D: {einsum: "ii->i", inputs: [A]}
outputs:
  D: {file: out/D.h5}
YAML
rc=0
"$TRA" validate uneven.yaml > uneven.log 2>&1 || rc=$?
[ "$rc" -eq 2 ] || fail "uneven tiling of a repeated label: exit $rc, expected 2"
grep -q "uneven.yaml:5:.*program\[0\].D.inputs: label 'i' is tiled as 3 x 2 at dimension 0 of A but as 2 x 3 at dimension 1; the tile counts must divide each other" uneven.log ||
    { cat uneven.log >&2; fail "uneven tiling of a repeated label: message names no file, line, label or tilings"; }

finish_counted "einsum_coverage: ok"
