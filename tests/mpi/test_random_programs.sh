#!/usr/bin/env bash
# Property test of the runtime: random small programs (tools/reference/random_workflow.py: random
# shapes and tilings; einsums in (+, x), min-plus, max-plus and max-min; element-wise and matmul
# joins with aggregates; rekey, filter, tile, concat, transforms) run under `mpiexec -n RANKS`
# with --check: outputs equal the reference evaluator's, every operator's measured bytes equal
# the prediction and pml monitoring's independent count (tests/mpi/plan_runs.bash). Each program
# runs its cheapest plan and one more of those `tra plan --top 10` lists, chosen by the seed.
# Seeds are fixed (reproducible): program i at RANKS ranks has seed BASE + 100 * RANKS + i, with
# BASE = $TRA_RANDOM_SEED (default 0) and $TRA_RANDOM_PROGRAMS programs (default 12). A failure
# prints the seed and the commands that reproduce it.
# Usage: bash test_random_programs.sh TRA_BINARY SOURCE_DIR WORK_DIR RANKS MPIEXEC
set -euo pipefail

# shellcheck source=tests/test_helpers.bash
source "$(dirname "${BASH_SOURCE[0]}")/../test_helpers.bash" mpi random_programs "$@"
BASE=${TRA_RANDOM_SEED:-0}
PROGRAMS=${TRA_RANDOM_PROGRAMS:-12}
seed=none

fail() {
    echo "FAIL (random_programs, $RANKS ranks, seed $seed): $*" >&2
    if [ "$seed" != none ]; then
        echo "reproduce: /usr/bin/python3 tools/reference/random_workflow.py $seed > wf.yaml &&" \
            "mpiexec -n $RANKS tra run wf.yaml --check --plan N  (workflow kept in $WORK/r$seed.yaml)" >&2
    fi
    exit 1
}

[[ "$BASE" =~ ^[0-9]+$ ]] || fail "TRA_RANDOM_SEED must be a non-negative integer, not '$BASE'"
[[ "$PROGRAMS" =~ ^[0-9]+$ ]] || fail "TRA_RANDOM_PROGRAMS must be a non-negative integer, not '$PROGRAMS'"
# shellcheck source=tests/mpi/plan_runs.bash
source "$SRC/tests/mpi/plan_runs.bash"
require_monitoring

enter_work_dir

runs=0
for ((i = 0; i < PROGRAMS; i++)); do
    seed=$((BASE + 100 * RANKS + i))
    wf="r$seed.yaml"
    "$PY" "$SRC/tools/reference/random_workflow.py" "$seed" > "$wf" || fail "the generator failed"
    "$TRA" validate "$wf" > "r$seed.validate.log" 2>&1 ||
        { cat "$wf" "r$seed.validate.log" >&2; fail "the generator made an invalid workflow"; }
    list_plans "$wf" > "r$seed.plans"
    K=$(wc -l < "r$seed.plans")
    [ "$K" -ge 1 ] || fail "tra plan lists no plans"
    for n in $(printf '%s\n' 1 $((seed % K + 1)) | sort -un); do
        read -r _ plan exact overhead < <(sed -n "${n}p" "r$seed.plans")
        run_plan "r$seed.p$n" "$wf" --plan "$n" --check
        ran_listed_plan "r$seed.p$n" "$plan" "$exact" "$overhead"
        runs=$((runs + 1))
    done
    echo "seed $seed: $(grep -c '^  - ' "$wf") steps, $K plans, ok"
done
seed=none
echo "random_programs: ok ($PROGRAMS programs, $runs runs on $RANKS ranks, seeds $((BASE + 100 * RANKS)) ..)"
