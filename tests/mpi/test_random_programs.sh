#!/usr/bin/env bash
# Property test of the runtime: random small programs (tools/reference/random_workflow.py: random
# shapes and tilings; einsums in (+, x), min-plus, max-plus and max-min; element-wise and matmul
# joins with aggregates; rekey, filter, tile, concat, transforms) run under `mpiexec -n RANKS`
# with --check: outputs equal the reference evaluator's, every operator's measured bytes equal
# the prediction and pml monitoring's independent count (tests/mpi/plan_runs.bash). Each program
# runs its cheapest plan and one more of those `tra plan --top 10` lists, chosen by the seed.
# Sparse programs: a seed that is 2 mod 3 (so 4 of the default 12) makes some input matrices
# block-sparse (`density:` in 0.2..0.7) and draws only steps whose held tiles it follows ((+, x)
# products, add/max/min reductions, element-wise joins, matmul join + add aggregate, the
# tile-wise transpose, tile/concat, transforms; fill steps where zeros take part, see
# random_workflow.py's docstring); about half their outputs are written `sparse: true`. Each
# run of one is also checked against numpy on the dense equivalents (random_workflow.py SEED
# --numpy DIR: values and shapes, and for a `sparse: true` output one chunk per held tile),
# which does not rely on tra's reference evaluator.
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
        "$PY" "$SRC/tools/reference/random_workflow.py" "$seed" --numpy "r$seed.p$n" ||
            fail "r$seed.p$n: tra run $wf --plan $n: outputs differ from numpy's (dense equivalents;" \
                "$PY tools/reference/random_workflow.py $seed --numpy $WORK/r$seed.p$n)"
        runs=$((runs + 1))
    done
    grep -q 'density:' "$wf" && kind=sparse || kind=dense
    echo "seed $seed: $kind, $(grep -c '^  - ' "$wf") steps, $K plans, ok"
done
seed=none
echo "random_programs: ok ($PROGRAMS programs, $runs runs on $RANKS ranks, seeds $((BASE + 100 * RANKS)) ..)"
