#!/usr/bin/env bash
# `mpiexec -n RANKS tra run` executes the 3-D matrix multiply (the `grid3` join on layered
# process grids) and the reduce of partials to grid homes (`preagg-grid`): for every join of
# the example and scaled paper matrix multiplies to which `grid3` applies, the cheapest plan
# with that join pinned to grid3 runs with --check (outputs equal the reference evaluator's,
# measured bytes equal the prediction per operator and per rank) under OpenMPI's pml monitoring
# (tests/mpi/plan_runs.bash), and its outputs equal the committed numpy references. A plan file
# with layered placements, written by `tra plan -o`, runs the same way. On one rank there is no
# grid with two layers: the pin is refused, naming the strategies that apply.
# Usage: bash test_grid3_plans.sh TRA_BINARY SOURCE_DIR WORK_DIR RANKS MPIEXEC
set -euo pipefail

# shellcheck source=tests/test_helpers.bash
source "$(dirname "${BASH_SOURCE[0]}")/../test_helpers.bash" mpi grid3_plans "$@"

# shellcheck source=tests/mpi/plan_runs.bash
source "$SRC/tests/mpi/plan_runs.bash"
require_monitoring

enter_work_dir

if [ "$RANKS" -eq 1 ]; then
    if "$TRA" plan "$SRC/plans/examples/matmul.yaml" --sites 1 --plan "AB=grid3" > one.log 2>&1; then
        fail "grid3 was pinned on one site"
    fi
    grep -q "cannot pin 'AB' to 'grid3'" one.log || { cat one.log >&2; fail "the refusal does not name the pin"; }
    echo "grid3_plans: ok (refused on one rank)"
    exit 0
fi

runs=0
for wf in plans/examples/matmul plans/examples/auto_tiling plans/paper/scaled/mm-general \
    plans/paper/scaled/mm-common-k plans/paper/scaled/mm-two-large; do
    name=$(basename "$wf")
    expected="$SRC/data/examples/$name/expected.h5"
    for join in AB C.join1 D.join1; do
        pin="$join=grid3"
        "$TRA" plan "$SRC/$wf.yaml" --sites "$RANKS" --plan "$pin" > "$name.$join.plan" 2>&1 || continue
        dir="$name.${join//./_}"
        run_plan "$dir" "$SRC/$wf.yaml" --plan "$pin" --check
        grep -q "\"plan\":\"[^\"]*$pin" "$dir.json" || fail "$dir: the run did not use $pin"
        [ ! -f "$expected" ] || check_outputs "$dir" "$expected"
        runs=$((runs + 1))
    done
done
[ "$runs" -ge 4 ] || fail "only $runs grid3 runs: the strategy applies to fewer joins than expected"

# The partials reduced to grid homes after the 3-D multiply, from a plan file with layered grids.
"$TRA" plan "$SRC/plans/examples/matmul.yaml" --sites "$RANKS" --plan "AB=grid3,C=preagg-grid" \
    -o grid3.plan.yaml > grid3.plan.log 2>&1 || { cat grid3.plan.log >&2; fail "tra plan -o with AB=grid3 failed"; }
grep -q "x 1 on [0-9]*x[0-9]*x[0-9]*, replicated along rows" grid3.plan.yaml ||
    fail "the grid3 plan file has no layered grid"
run_plan file grid3.plan.yaml --check
check_outputs file "$SRC/data/examples/matmul/expected.h5"

leftovers=$(find . -name '*.tmp*')
[ -z "$leftovers" ] || fail "temporary files left behind: $leftovers"
echo "grid3_plans: ok ($((runs + 1)) grid3 plan runs on $RANKS ranks)"
