#!/usr/bin/env bash
# `tra run` plans on rank 0 only and sends the chosen plan to the other ranks as plan-file text,
# which every rank decodes and checks (docs/runtime.md, "How a plan runs", step 2):
# - a run with pins, fixed cost model and plan rank runs exactly the plan `tra plan` lists under
#   that rank (name and predicted bytes), with measured bytes equal to the prediction;
# - a rank that cannot decode the plan ends the run with exit 2 and ONE message naming that rank
#   and the cause, and no output appears. Here ranks 1.. start in another folder whose workflow
#   of the same name differs from rank 0's (as on nodes that do not share a file system), so its
#   content hash differs from the one in rank 0's plan.
# Usage: bash test_plan_broadcast.sh TRA_BINARY SOURCE_DIR WORK_DIR RANKS MPIEXEC
set -euo pipefail

# shellcheck source=tests/test_helpers.bash
source "$(dirname "${BASH_SOURCE[0]}")/../test_helpers.bash" mpi plan_broadcast "$@"

enter_work_dir
mkdir -p a b
matmul_workflow mm "8, 12" "4, 4" "12, 8" "4, 4" join > a/mm.yaml
matmul_workflow mm "8, 12" "4, 4" "12, 8" "4, 4" join 3 > b/mm.yaml
cmp -s a/mm.yaml b/mm.yaml && fail "the two workflows should differ (seed of B)"

# Rank 3 of the time-model ranking, as `tra plan` lists it, is what every rank runs.
"$TRA" plan a/mm.yaml --sites "$RANKS" --cost time --top 3 --format json > a/plans.json
read -r name bytes < <("$PY" -c '
import json, sys
p = json.load(open(sys.argv[1]))["plans"][-1]
print(p["name"], p["exact_bytes"])' a/plans.json)
rc=0
(cd a && timeout 120 "$MPIEXEC" -n "$RANKS" "$TRA" run mm.yaml --cost time --plan 3 \
    --report run.json --out-dir ranked > ranked.log 2>&1) || rc=$?
[ "$rc" -eq 0 ] || { cat a/ranked.log >&2; fail "the run of plan 3 exited with $rc"; }
"$PY" - a/run.json "$name" "$bytes" <<'PY' || fail "the run did not run the listed plan 3"
import json, sys
r = json.load(open(sys.argv[1]))
assert r["plan"] == sys.argv[2], (r["plan"], sys.argv[2])
assert r["predicted_bytes"] == int(sys.argv[3]), (r["predicted_bytes"], sys.argv[3])
assert r["measured_bytes"] == r["predicted_bytes"], (r["measured_bytes"], r["predicted_bytes"])
PY

# Pins choose the plan on rank 0; the others run what it sent.
rc=0
(cd a && timeout 120 "$MPIEXEC" -n "$RANKS" "$TRA" run mm.yaml --plan 'AB=bcast-left' \
    --report pinned.json --out-dir pinned > pinned.log 2>&1) || rc=$?
[ "$rc" -eq 0 ] || { cat a/pinned.log >&2; fail "the pinned run exited with $rc"; }
grep -q '"plan":"AB=bcast-left,' a/pinned.json || fail "the pinned run ran another plan"

[ "$RANKS" -ge 2 ] || { echo "plan_broadcast: ok (1 rank: no other rank to send to)"; exit 0; }

# Ranks 1.. read another mm.yaml: they refuse rank 0's plan before any work.
rc=0
timeout 120 "$MPIEXEC" -n 1 --wdir "$WORK/a" "$TRA" run mm.yaml --out-dir split : \
    -n $((RANKS - 1)) --wdir "$WORK/b" "$TRA" run mm.yaml --out-dir split > split.log 2>&1 || rc=$?
[ "$rc" -eq 2 ] || { cat split.log >&2; fail "ranks reading another workflow: exit $rc, expected 2"; }
[ "$(grep -c 'tra: error' split.log)" -eq 1 ] || { cat split.log >&2; fail "expected one error line"; }
grep -q 'tra: error (rank 1): .*the workflow changed since the plan was made' split.log ||
    { cat split.log >&2; fail "the error does not name rank 1 and the changed workflow"; }
[ -z "$(find a/split b/split -name '*.h5' 2>/dev/null)" ] || fail "a refused run left an output"
echo "plan_broadcast: ok"
