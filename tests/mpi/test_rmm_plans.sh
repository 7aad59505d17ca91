#!/usr/bin/env bash
# `mpiexec -n RANKS tra run` executes replicated (rmm, "3-D") joins: for every join of the example
# workflows and the scaled paper matrix multiplies to which the `rmm` strategy applies, the
# cheapest plan with that join pinned to rmm runs with --check (outputs equal the reference
# evaluator's, measured bytes equal the prediction per operator and per rank) under OpenMPI's
# pml monitoring (its count equals the report's payload plus overhead; tests/mpi/plan_runs.bash),
# and its outputs equal the committed numpy references where there are some. A plan file with a
# replication map, written by `tra plan -o`, runs the same way, and so does a replicated join of
# a rekeyed operand (Unknown placement: the replicas' sites are traced).
# Usage: bash test_rmm_plans.sh TRA_BINARY SOURCE_DIR WORK_DIR RANKS MPIEXEC
set -euo pipefail

# shellcheck source=tests/test_helpers.bash
source "$(dirname "${BASH_SOURCE[0]}")/../test_helpers.bash" mpi rmm_plans "$@"

# shellcheck source=tests/mpi/plan_runs.bash
source "$SRC/tests/mpi/plan_runs.bash"
require_monitoring

enter_work_dir

# join_names WF: the TRA joins that the workflow's cheapest plan computes (tra explain).
join_names() {
    "$TRA" explain "$1" --sites "$RANKS" --format json > joins.json ||
        fail "tra explain $1 failed"
    "$PY" -c '
import json, sys
seen = []
for o in json.load(open(sys.argv[1]))["operators"]:
    if o["tra_op"] == "join" and o["op"] == "local_join" and o["origin"] not in seen:
        seen.append(o["origin"])
print("\n".join(seen))' joins.json
}

runs=0
for wf in plans/examples/matmul plans/examples/ffnn plans/examples/nn_search \
    plans/examples/shortest_paths plans/paper/scaled/mm-general plans/paper/scaled/mm-common-k; do
    name=$(basename "$wf")
    expected="$SRC/data/examples/$name/expected.h5"
    applied=0
    while read -r join; do
        [ -n "$join" ] || continue
        pin="$join=rmm"
        # rmm applies to joins with a free key position on each side; planning says which.
        if ! "$TRA" plan "$SRC/$wf.yaml" --sites "$RANKS" --plan "$pin" > "$name.$join.plan" 2>&1; then
            grep -q "cannot pin" "$name.$join.plan" || { cat "$name.$join.plan" >&2; fail "tra plan $wf --plan $pin failed"; }
            continue
        fi
        dir="$name.${join//./_}"
        run_plan "$dir" "$SRC/$wf.yaml" --plan "$pin" --check
        grep -q "\"plan\":\"[^\"]*$pin" "$dir.json" || fail "$dir: the run did not use $pin"
        [ ! -f "$expected" ] || check_outputs "$dir" "$expected"
        applied=$((applied + 1))
    done < <(join_names "$SRC/$wf.yaml")
    echo "$name: $applied rmm join(s) ran on $RANKS ranks"
    runs=$((runs + applied))
done
[ "$runs" -ge 6 ] || fail "only $runs rmm runs: the strategy applies to fewer joins than expected"

# The left operand after a rekey: its placement is Unknown, so where its replicas are is traced.
cat > rekeyed.yaml <<'YAML'
name: rekeyed
inputs:
  A: {shape: [8, 6], tile: [2, 2], generate: {uniform: [-1, 1], seed: 1}}
  B: {shape: [8, 10], tile: [2, 2], generate: {uniform: [-1, 1], seed: 2}}
program:
  - At: {rekey: A, key: "(i, k) -> (k, i)"}
  - T:  {transform: At, kernel: transpose}
  - AB: {join: [T, B], on: [[1], [0]], kernel: matmul}
  - C:  {aggregate: AB, by: [0, 2], kernel: add}
outputs:
  C: {file: out/C.h5}
YAML
run_plan rekeyed rekeyed.yaml --plan "AB=rmm" --check
runs=$((runs + 1))

# A plan file holding replication maps runs like the plan it was written from.
"$TRA" plan "$SRC/plans/examples/matmul.yaml" --sites "$RANKS" --plan "AB=rmm" -o rmm.plan.yaml \
    > rmm.plan.log 2>&1 || { cat rmm.plan.log >&2; fail "tra plan -o with AB=rmm failed"; }
grep -q 'replicate: "' rmm.plan.yaml || fail "the rmm plan file has no replication map"
run_plan file rmm.plan.yaml --check
check_outputs file "$SRC/data/examples/matmul/expected.h5"

leftovers=$(find . -name '*.tmp*')
[ -z "$leftovers" ] || fail "temporary files left behind: $leftovers"
echo "rmm_plans: ok ($((runs + 1)) rmm plan runs on $RANKS ranks)"
