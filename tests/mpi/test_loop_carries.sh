#!/usr/bin/env bash
# Loops whose carries share a step or take an input (docs/runtime.md, "Loops"): in twice.yaml
# X <- H and Y <- H take the same step's result, Z <- D another; in inputs.yaml X and Y swap
# (X <- Y, Y <- X) and Z <- C takes an input read once. A carry moves the tuples a site keeps
# into the carried input (the step's result is freed next) but copies them where a second carry
# still reads them or they stay for the next iteration (ia::copies_kept_tuples); every plan
# `tra plan --top` lists runs `tra run --check` under `mpiexec -n RANKS`: its outputs equal the
# reference evaluator's, and every operator and carry moves the predicted bytes (pml
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

# D changes its sign as X and Y swap; Z takes C's value from the second iteration on.
cat > inputs.yaml << 'EOF'
name: carried_inputs
sites: 2
dtype: f64
inputs:
  X: {shape: [6, 8], tile: [3, 4], generate: {uniform: [-1, 1], seed: 1}}
  Y: {shape: [6, 8], tile: [3, 4], generate: {uniform: [-1, 1], seed: 2}}
  Z: {shape: [6, 8], tile: [3, 4], generate: {uniform: [-1, 1], seed: 3}}
  C: {shape: [6, 8], tile: [3, 4], generate: {uniform: [-1, 1], seed: 4}}
program:
  - D: {join: [X, Y], on: [[0, 1], [0, 1]], kernel: sub}
  - E: {join: [D, Z], on: [[0, 1], [0, 1]], kernel: mul}
repeat: {times: 3, carry: {X: Y, Y: X, Z: C}}
outputs:
  E: {file: out/e.h5}
EOF

checked=0
for wf in twice inputs; do
    while read -r n name _; do
        run_plan "$wf.p$n" "$wf.yaml" --plan "$n" --check
        grep -q "^check: outputs equal the reference evaluator's" "$wf.p$n.log" ||
            fail "$wf plan $n ($name): --check did not pass: $(grep '^check' "$wf.p$n.log")"
        grep -q "^loop: iterations 1 to 3, .* 3 of 3 moved exactly" "$wf.p$n.log" ||
            fail "$wf plan $n ($name): not every iteration moved the predicted bytes"
        checked=$((checked + 1))
    done < <(list_plans "$wf.yaml")
done
[ "$checked" -gt 1 ] || fail "tra plan listed fewer plans than workflows"
echo "loop_carries: ok ($checked plans on $RANKS ranks: carries sharing a step, taking inputs)"
