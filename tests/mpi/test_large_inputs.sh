#!/usr/bin/env bash
# Inputs several times one rank's memory budget (issue 8, "large-input check"): a 64 MiB input
# under --memory-per-site 20 MB is either refused up front with the memory figures (exit 2,
# "needs X bytes ... have Y", no output folder made) or run across the ranks correctly, with a
# measured peak within the budget. One rank must refuse (the whole input is 3.2 budgets); four
# ranks must run (a quarter of the input each). Nothing is left to the operating system's
# out-of-memory killer.
# Usage: bash test_large_inputs.sh TRA_BINARY SOURCE_DIR WORK_DIR RANKS MPIEXEC
set -euo pipefail

# shellcheck source=tests/test_helpers.bash
source "$(dirname "${BASH_SOURCE[0]}")/../test_helpers.bash" mpi large_inputs "$@"
BUDGET=20000000

enter_work_dir
cat > big.yaml << 'YAML'
name: big_row_sums
dtype: f64
inputs:
  X: {shape: [4096, 2048], tile: [256, 2048], generate: {uniform: [-1, 1], seed: 3}}
program:
  - R: {transform: X, kernel: row_sum}
outputs:
  R: {file: out/R.h5}
YAML

rc=0
timeout 300 "$MPIEXEC" -n "$RANKS" "$TRA" run big.yaml --out-dir run --memory-per-site "$BUDGET" \
    --check --report run.json > run.out 2> run.err || rc=$?
[ "$rc" -ne 124 ] || fail "the job hung (killed after 300 s)"

if [ "$rc" -eq 2 ]; then
    [ "$RANKS" -lt 4 ] || { cat run.err >&2; fail "4 ranks hold a quarter of the input each, yet the run was refused"; }
    [ "$(grep -c '^tra: error' run.err)" -eq 1 ] || { cat run.err >&2; fail "expected one error line"; }
    grep -q "needs [0-9]* bytes .*have $BUDGET" run.err || { cat run.err >&2; fail "the refusal does not give the memory figures"; }
    needs=$(sed -n 's/.*needs \([0-9]*\) bytes.*/\1/p' run.err | head -1)
    [ "$needs" -gt "$BUDGET" ] || fail "refused although it needs $needs <= $BUDGET bytes"
    [ ! -e run ] || fail "a refused run made $(find run)"
elif [ "$rc" -eq 0 ]; then
    [ "$RANKS" -gt 1 ] || { cat run.out >&2; fail "one rank cannot hold a 64 MiB input in $BUDGET bytes, yet it ran"; }
    grep -q "^check: outputs equal the reference" run.out || { cat run.out >&2; fail "no passing check"; }
    "$PY" - run.json "$BUDGET" << 'PY' || fail "the measured peak exceeds the budget or the prediction"
import json, sys
r, budget = json.load(open(sys.argv[1])), int(sys.argv[2])
assert r["peak_bytes"] <= r["predicted_peak_bytes"] <= budget, (r["peak_bytes"], r["predicted_peak_bytes"], budget)
PY
else
    cat run.out run.err >&2
    fail "exited with $rc: neither refused (2) nor run (0)"
fi
echo "large_inputs ($RANKS ranks): $([ "$rc" -eq 0 ] && echo ran within the budget || echo refused up front)"
