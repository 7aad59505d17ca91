#!/usr/bin/env bash
# The TRA paper's experiments (plans/paper/scaled/*.yaml in smaller tiles) under `mpiexec -n
# RANKS`: EVERY candidate plan `tra plan --sites RANKS --top 10` lists runs with pml monitoring; its outputs
# equal the reference evaluator's (`tra run --reference`, run once per workflow instead of
# `--check` in each of the 10 runs, which would double the cost; tests/cli/test_paper_workflows.sh
# checks the reference against numpy), and for every operator the measured bytes equal the
# exact prediction and OpenMPI's independent count (tests/mpi/plan_runs.bash).
# Usage: bash test_paper_plans.sh TRA_BINARY SOURCE_DIR WORK_DIR RANKS MPIEXEC
set -euo pipefail

# shellcheck source=tests/test_helpers.bash
source "$(dirname "${BASH_SOURCE[0]}")/../test_helpers.bash" mpi paper_plans "$@"

# shellcheck source=tests/mpi/plan_runs.bash
source "$SRC/tests/mpi/plan_runs.bash"
require_monitoring

enter_work_dir

shopt -s nullglob
workflows=("$SRC"/plans/paper/scaled/*.yaml)
[ "${#workflows[@]}" -gt 0 ] || fail "no workflows in plans/paper/scaled"
for source in "${workflows[@]}"; do
    name=$(basename "$source" .yaml)
    # The same tile counts in smaller tiles (shrink_workflow.py): the workflow's operators and
    # candidate strategies, about 100x less work (the sweep runs about 280 plans at 1-4 ranks).
    wf="$name.yaml"
    "$PY" "$SRC/tests/mpi/shrink_workflow.py" "$source" "$wf" || fail "$name: cannot shrink $source"
    rc=0
    timeout 300 "$TRA" run "$wf" --reference --out-dir "$name.ref" > "$name.ref.log" 2>&1 || rc=$?
    [ "$rc" -eq 0 ] || { cat "$name.ref.log" >&2; fail "$name: tra run --reference exited with $rc"; }
    run_every_plan "$name" "$wf" "$name.ref"
    # Each run's outputs are no longer needed once checked: keep the work folder small.
    rm -rf "$name".p*/ "$name.ref"
done
echo "paper_plans: ok ($PLAN_RUNS plan runs on $RANKS ranks)"
