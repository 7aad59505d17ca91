#!/usr/bin/env bash
# Under `mpiexec -n RANKS`, for the cheapest and the last listed plan of several workflows
# (examples, and the paper's scaled nearest-neighbour search): running the same plan again gives
# bitwise-identical outputs and the same bytes per operator; the plan pinned by its name
# (`--plan NAME`) and the plan file `tra plan --plan N -o PLAN.yaml` run as `tra run PLAN.yaml`
# give the same outputs, bit for bit, and the same bytes. Every run's bytes also equal the
# prediction and pml monitoring's count (tests/mpi/plan_runs.bash).
# Usage: bash test_repeat_and_plan_files.sh TRA_BINARY SOURCE_DIR WORK_DIR RANKS MPIEXEC
set -euo pipefail

# shellcheck source=tests/test_helpers.bash
source "$(dirname "${BASH_SOURCE[0]}")/../test_helpers.bash" mpi repeat_and_plan_files "$@"

# shellcheck source=tests/mpi/plan_runs.bash
source "$SRC/tests/mpi/plan_runs.bash"
require_monitoring

enter_work_dir

# same_run A B WHAT: B wrote the same outputs, bit for bit, and moved the same bytes as A.
same_run() {
    "$PY" "$SAME_OUTPUTS" "$1" "$2" > "$2.same" || { cat "$2.same" >&2; fail "$3: outputs differ from $1's"; }
    "$PY" "$CHECK_REPORT" "$2.json" --same-bytes "$1.json" > "$2.samebytes" ||
        { cat "$2.samebytes" >&2; fail "$3: bytes differ from $1's"; }
    [ "$(report_field "$2.json" plan)" = "$(report_field "$1.json" plan)" ] ||
        fail "$3: ran '$(report_field "$2.json" plan)', not '$(report_field "$1.json" plan)'"
}

checked=0
for wf in plans/examples/matmul.yaml plans/examples/nn_search.yaml plans/examples/shortest_paths.yaml \
    plans/examples/ffnn.yaml plans/examples/tile_concat.yaml plans/paper/scaled/nn-large.yaml; do
    name=$(basename "$wf" .yaml)
    list_plans "$SRC/$wf" > "$name.plans"
    picked=$( (head -1 "$name.plans"; tail -1 "$name.plans") | awk '{print $1}' | sort -un | tr '\n' ' ')
    for n in $picked; do
        plan=$(awk -v n="$n" '$1 == n {print $2}' "$name.plans")
        run_plan "$name.p$n" "$SRC/$wf" --plan "$n"
        run_plan "$name.p$n.again" "$SRC/$wf" --plan "$n"
        same_run "$name.p$n" "$name.p$n.again" "$name plan $n run twice"
        rc=0
        "$TRA" plan "$SRC/$wf" --sites "$RANKS" --plan "$n" -o "$name.p$n.plan.yaml" > "$name.p$n.plan.log" 2>&1 || rc=$?
        [ "$rc" -eq 0 ] || { cat "$name.p$n.plan.log" >&2; fail "tra plan $wf --plan $n -o exited with $rc"; }
        run_plan "$name.p$n.file" "$name.p$n.plan.yaml"
        same_run "$name.p$n" "$name.p$n.file" "$name plan $n from its plan file"
        if [[ "$plan" == *=* ]]; then  # a plan with strategies to choose can be pinned by name
            run_plan "$name.p$n.pinned" "$SRC/$wf" --plan "$plan"
            same_run "$name.p$n.file" "$name.p$n.pinned" "$name plan $n pinned as $plan"
        fi
        checked=$((checked + 1))
    done
    echo "$name: plans ${picked}repeat bit for bit; their plan files run the same"
done
echo "repeat_and_plan_files: ok ($checked plans on $RANKS ranks)"
