#!/usr/bin/env bash
# softmax and log_softmax under `mpiexec -n RANKS`: EVERY candidate plan `tra plan --sites RANKS
# --top 10` lists for the workflow of tests/cli/softmax.py runs with pml monitoring; its outputs
# equal the reference evaluator's (`tra run --reference`, itself checked against numpy), and for
# every operator the measured bytes equal the exact prediction and OpenMPI's independent count
# (tests/mpi/plan_runs.bash).
# Usage: bash test_softmax_plans.sh TRA_BINARY SOURCE_DIR WORK_DIR RANKS MPIEXEC
set -euo pipefail

# shellcheck source=tests/test_helpers.bash
source "$(dirname "${BASH_SOURCE[0]}")/../test_helpers.bash" mpi softmax_plans "$@"

# shellcheck source=tests/mpi/plan_runs.bash
source "$SRC/tests/mpi/plan_runs.bash"
require_monitoring

enter_work_dir

helper="$SRC/tests/cli/softmax.py"
"$PY" "$helper" make wf > make.log 2>&1 || { cat make.log >&2; fail "softmax.py make failed"; }
rc=0
timeout 300 "$TRA" run wf/softmax.yaml --reference --out-dir softmax.ref > softmax.ref.log 2>&1 || rc=$?
[ "$rc" -eq 0 ] || { cat softmax.ref.log >&2; fail "tra run --reference exited with $rc"; }
"$PY" "$helper" check softmax.ref > ref.check 2>&1 ||
    { cat ref.check >&2; fail "the reference evaluator's outputs differ from numpy"; }
run_every_plan softmax wf/softmax.yaml softmax.ref
echo "softmax_plans: ok ($PLAN_RUNS plan runs on $RANKS ranks)"
