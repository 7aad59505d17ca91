#!/usr/bin/env bash
# The replicated (rmm) join through the real binary: for a matrix multiply at S = 2, 3, 4,
# `tra plan --top 1000` lists exactly the join strategies bcast-left, bcast-right, cmm, grid,
# grid3 and rmm (plus `local` when the free input starts happen to co-locate A and B); the rmm plan's
# paper cost is xDups|A| + yDups|B|; explain shows the replication maps; `plan -o` then
# `explain PLAN.yaml` gives the same costs; a hand-edited replication is refused (exit 2, naming
# the node).
# Usage: bash test_rmm_strategies.sh TRA_BINARY SOURCE_DIR WORK_DIR
set -euo pipefail
# shellcheck source=tests/test_helpers.bash
source "$(dirname "${BASH_SOURCE[0]}")/../test_helpers.bash" cli rmm_strategies "$@"
enter_work_dir

# 4 x 4 tiles of 2x2 on each side: |A| = |B| = 64 floats, xDups = yDups = 4.
matmul_workflow mm "8, 8" "2, 2" "8, 8" "2, 2" join > mm.yaml

strategies() {  # plan JSON -> the sorted distinct strategies of AB, comma separated
    "$PY" -c '
import json, sys
names = {p["name"].split(",")[0].split("=")[1] for p in json.load(open(sys.argv[1]))["plans"]}
print(",".join(sorted(names)))' "$1"
}

for S in 2 3 4; do
    "$TRA" plan mm.yaml --sites "$S" --top 1000 --format json \
        --input-placement 'A=Part[0]' --input-placement 'B=Part[0]' > fixed.$S.json
    got=$(strategies fixed.$S.json)
    [ "$got" = "bcast-left,bcast-right,cmm,grid,grid3,rmm" ] ||
        fail "S=$S, inputs on Part[0]: join strategies $got"
    "$TRA" plan mm.yaml --sites "$S" --top 1000 --format json > free.$S.json
    got=$(strategies free.$S.json)
    [ "$got" = "bcast-left,bcast-right,cmm,grid,grid3,local,rmm" ] ||
        fail "S=$S, free input starts: join strategies $got"
    "$PY" - free.$S.json <<'PYEOF' || fail "S=$S: rmm's paper cost"
import json, sys
rmm = [p for p in json.load(open(sys.argv[1]))["plans"] if p["name"] == "AB=rmm,C=local"]
assert len(rmm) == 1, rmm
assert rmm[0]["paper_floats"] == 4 * 64 + 4 * 64, rmm[0]
PYEOF
done

# explain shows the two replication maps and the all-position join.
"$TRA" explain mm.yaml --sites 3 --plan 'AB=rmm,C=local' > explain.txt
grep -q 'map x4 (k0, k1, 0:4) .* A\* ' explain.txt || fail "no replication map of A: $(cat explain.txt)"
grep -q 'map x4 (0:4, k0, k1) .* B\* ' explain.txt || fail "no replication map of B: $(cat explain.txt)"
grep -q 'on \[0, 1, 2\]=\[0, 1, 2\] kernel matmul' explain.txt || fail "no all-position join"
"$TRA" explain mm.yaml --sites 3 --plan 'AB=rmm,C=local' --format dot | grep -q 'A\*' ||
    fail "dot shows no replicated relation"

# Round trip: the plan file's costs are the planner's, in every field explain prints.
"$TRA" plan mm.yaml --sites 3 --plan 'AB=rmm,C=local' -o rmm.plan.yaml > /dev/null
grep -q 'replicate: "(k0, k1, 0:4)"' rmm.plan.yaml || fail "plan file: $(cat rmm.plan.yaml)"
"$TRA" explain mm.yaml --sites 3 --plan 'AB=rmm,C=local' --format json > from_workflow.json
"$TRA" explain rmm.plan.yaml --format json > from_file.json
cmp -s from_workflow.json from_file.json || fail "explain of the plan file differs: $(diff from_workflow.json from_file.json)"

# A replication with too few copies (arity edited along) is refused at the join that needs more.
sed 's/arity: 4, replicate: "(k0, k1, 0:4)"/arity: 3, replicate: "(k0, k1, 0:3)"/' rmm.plan.yaml > bad.yaml
rc=0
"$TRA" explain bad.yaml > bad.log 2>&1 || rc=$?
[ "$rc" -eq 2 ] || fail "an edited replication exited with $rc, expected 2"
grep -q "bad.yaml:[0-9]*:[0-9]*: nodes\[6\]: IA node #6 (local_join producing 'AB'): its left input holds 'A' replicated as (k0, k1, 0:3), the replicated join needs (k0, k1, 0:4)" bad.log ||
    fail "unexpected message: $(cat bad.log)"
echo "rmm_strategies: ok"
