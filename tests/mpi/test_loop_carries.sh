#!/usr/bin/env bash
# Loops whose carries share a step (docs/runtime.md, "Loops"): X <- H and Y <- H take the same
# step's result, Z <- D another. A carry moves the tuples a site keeps into the carried input
# (the step's result is freed next) but copies them where a second carry still reads them; every
# plan `tra plan --top` lists runs `tra run --check` under `mpiexec -n RANKS`: its outputs equal
# the reference evaluator's, and every operator and carry moves the predicted bytes (pml
# monitoring's count too, tests/mpi/plan_runs.bash).
# Usage: bash test_loop_carries.sh TRA_BINARY SOURCE_DIR WORK_DIR RANKS MPIEXEC
set -euo pipefail

# shellcheck source=tests/test_helpers.bash
source "$(dirname "${BASH_SOURCE[0]}")/../test_helpers.bash" mpi loop_carries "$@"

# shellcheck source=tests/mpi/plan_runs.bash
source "$SRC/tests/mpi/plan_runs.bash"
require_monitoring

enter_work_dir

# After the first iteration X = Y = H1 = (X0 + Y0) / 2, so H stays H1 and D = H1^K Z0.
cat > twice.yaml << 'EOF'
name: carried_twice
sites: 2
dtype: f64
inputs:
  X: {shape: [6, 8], tile: [3, 4], generate: {uniform: [-1, 1], seed: 1}}
  Y: {shape: [6, 8], tile: [3, 4], generate: {uniform: [-1, 1], seed: 2}}
  Z: {shape: [6, 8], tile: [3, 4], generate: {uniform: [-1, 1], seed: 3}}
program:
  - S: {join: [X, Y], on: [[0, 1], [0, 1]], kernel: add}
  - H: {transform: S, kernel: scale(0.5)}
  - D: {join: [H, Z], on: [[0, 1], [0, 1]], kernel: mul}
repeat: {times: 3, carry: {X: H, Y: H, Z: D}}
outputs:
  H: {file: out/h.h5}
  D: {file: out/d.h5}
EOF

checked=0
while read -r n name _; do
    run_plan "twice.p$n" twice.yaml --plan "$n" --check
    grep -q "^check: outputs equal the reference evaluator's" "twice.p$n.log" ||
        fail "plan $n ($name): --check did not pass: $(grep '^check' "twice.p$n.log")"
    grep -q "^loop: iterations 1 to 3, .* 3 of 3 moved exactly" "twice.p$n.log" ||
        fail "plan $n ($name): not every iteration moved the predicted bytes"
    checked=$((checked + 1))
done < <(list_plans twice.yaml)
[ "$checked" -gt 0 ] || fail "tra plan listed no plan"
echo "loop_carries: ok ($checked plans on $RANKS ranks, carries X <- H, Y <- H, Z <- D)"
