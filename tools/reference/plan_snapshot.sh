#!/usr/bin/env bash
# Records what a tra binary plans, predicts and computes for every example and paper workflow, so
# a refactor can show it changed none of it: plan listings (`tra plan --cost exact --top 1000`)
# and `tra explain` of plan 1 at 1-4 sites (and at the workflow's own sites:), and for the
# example, demo and scaled paper workflows `mpiexec -n S tra run --plan N` at S = 1-4 (plans
# 1-3): every operator's predicted and measured bytes and peak, and the outputs.
# Compare two snapshots with --compare: plan texts and run bytes with diff, outputs' data with
# tools/reference/same_outputs.py (HDF5 files differ in metadata such as object times).
# Usage: tools/reference/plan_snapshot.sh TRA_BINARY SNAPSHOT_DIR
#        tools/reference/plan_snapshot.sh --compare SNAPSHOT_A SNAPSHOT_B
set -euo pipefail
py=${TRA_PYTHON:-/usr/bin/python3}
src=$(cd "$(dirname "$0")/../.." && pwd)
if [ "${1:-}" = --compare ]; then
    [ $# -eq 3 ] || { echo "usage: $0 --compare SNAPSHOT_A SNAPSHOT_B" >&2; exit 2; }
    diff -r --exclude='*.h5' --exclude=out "$2" "$3"
    for d in "$2"/runs/*/; do
        [ "$(head -1 "$d/bytes.txt")" = "exit 0" ] || continue  # refused the same way in both
        "$py" "$src/tools/reference/same_outputs.py" "$d/out" "$3/runs/$(basename "$d")/out"
    done
    echo "same: plans, predictions, measured bytes and output data"
    exit 0
fi
[ $# -eq 2 ] || { echo "usage: $0 TRA_BINARY SNAPSHOT_DIR | --compare A B" >&2; exit 2; }
tra=$(realpath "$1")
snap=$(realpath -m "$2")
mpiexec=${MPIEXEC:-mpiexec}
export OPENBLAS_NUM_THREADS=1 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 \
    OMPI_MCA_rmaps_base_oversubscribe=1 OMPI_MCA_hwloc_base_binding_policy=none
mkdir -p "$snap/plans" "$snap/runs"

# Operators, their predicted and measured bytes and peaks, without seconds.
report_bytes() {
    "$py" - "$1" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
print("plan", r["plan"], "predicted", r["predicted_bytes"], r["predicted_overhead_bytes"],
      "peak", r["predicted_peak_bytes"], r["peak_bytes"], "reserved", r["reserved_bytes"])
for o in r["operators"]:
    print(o["id"], o["op"], o["predicted_bytes"], o["predicted_overhead_bytes"],
          o["measured_bytes"], o["overhead_bytes"], o["peak_bytes"])
PY
}

for wf in "$src"/plans/examples/*.yaml "$src"/plans/demo/*.yaml "$src"/plans/paper/*.yaml \
          "$src"/plans/paper/scaled/*.yaml; do
    name=$(basename "$(dirname "$wf")")-$(basename "$wf" .yaml)
    own=$(sed -n 's/^sites: *\([0-9]*\).*/\1/p' "$wf")
    for s in 1 2 3 4 $own; do
        "$tra" plan "$wf" --sites "$s" --cost exact --top 1000 > "$snap/plans/$name.s$s.txt" 2>&1 || true
        "$tra" explain "$wf" --sites "$s" > "$snap/plans/$name.s$s.explain.txt" 2>&1 || true
    done
    case "$wf" in */paper/*.yaml) [[ "$wf" == */scaled/* ]] || continue ;; esac
    for s in 1 2 3 4; do
        for p in 1 2 3; do
            run="$snap/runs/$name.s$s.p$p"
            mkdir -p "$run"
            rc=0
            "$mpiexec" -n "$s" "$tra" run "$wf" --plan "$p" --cost exact --out-dir "$run/out" \
                --report "$run/report.json" > "$run/log" 2>&1 || rc=$?
            echo "exit $rc" > "$run/bytes.txt"
            [ "$rc" -ne 0 ] || report_bytes "$run/report.json" >> "$run/bytes.txt"
            [ "$rc" -eq 0 ] || grep -i error "$run/log" | sort -u >> "$run/bytes.txt" || true
            rm -f "$run/report.json" "$run/log"
        done
    done
    echo "$name" >&2
done
