#!/usr/bin/env bash
# tools/slurm/compare_report.py (what every Slurm job runs after `tra run`) accepts a run report
# of the plan it is compared with, and rejects, naming the difference, a report whose bytes, plan
# name or operators differ from the plan's `tra explain --format json`. The run is a plan file of
# the matmul example under mpiexec -n 2 (the comparison itself is tested; the Slurm jobs are
# tools/test.d/40-slurm.sh).
# Usage: bash test_compare_report.sh TRA_BINARY SOURCE_DIR WORK_DIR   (env TRA_PYTHON)
set -euo pipefail

# shellcheck source=tests/test_helpers.bash
source "$(dirname "${BASH_SOURCE[0]}")/../test_helpers.bash" cli compare_report "$@"
COMPARE=$SRC/tools/slurm/compare_report.py

enter_work_dir

"$TRA" plan "$SRC/plans/examples/matmul.yaml" --sites 2 -o plan.yaml > plan.txt
"$TRA" explain plan.yaml --format json > explain.json
timeout 120 mpiexec -n 2 "$TRA" run plan.yaml --out-dir run --report run.json > run.log 2>&1 ||
    { cat run.log >&2; fail "tra run of the plan file failed"; }

"$PY" "$COMPARE" run.json explain.json > same.txt || { cat same.txt >&2; fail "a matching report was rejected"; }
grep -q "^report matches the plan" same.txt || fail "no verdict for a matching report"
moved=$(grep -c "^ *[0-9]* *\(bcast\|shuffle\|grid\) " same.txt || true)
[ "$moved" -ge 1 ] || { cat same.txt >&2; fail "the plan moves nothing, so the comparison tests nothing"; }

# expect_rejected NAME PYTHON_EDIT MESSAGE: the report edited by PYTHON_EDIT (on `r`) is rejected
# with MESSAGE in a DIFFERS line.
expect_rejected() {
    "$PY" - run.json "$1.json" "$2" << 'PY'
import json, sys
r = json.load(open(sys.argv[1]))
exec(sys.argv[3])
json.dump(r, open(sys.argv[2], "w"))
PY
    local rc=0
    "$PY" "$COMPARE" "$1.json" explain.json > "$1.txt" || rc=$?
    [ "$rc" -eq 1 ] || { cat "$1.txt" >&2; fail "$1: exit $rc, expected 1"; }
    grep -q "^DIFFERS: .*$3" "$1.txt" || { cat "$1.txt" >&2; fail "$1: no DIFFERS line saying '$3'"; }
}
moving='next(o for o in r["operators"] if o["measured_bytes"] > 0)'
expect_rejected payload "${moving}[\"measured_bytes\"] += 8" "bytes, the plan predicts"
expect_rejected overhead "${moving}[\"overhead_bytes\"] -= 8" "bytes, the plan predicts"
expect_rejected total 'r["measured_bytes"] += 1' "total: measured"
expect_rejected name 'r["plan"] = "AB=other"' "plan: the report says"
expect_rejected missing 'r["operators"].pop(0)' "is in the plan but not in the report"
expect_rejected write 'r["operators"][-1]["measured_bytes"] += 1' "the write (each rank writes its own tiles)"
echo "compare_report: ok"
