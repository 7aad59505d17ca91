#!/usr/bin/env bash
# `mpiexec -n RANKS tra run` executes IA plans: for each example workflow, a deterministic sample
# of its candidate plans for RANKS sites runs with --check --report; every output equals the
# committed expected output (tra diff) and, for every operator, the measured bytes (payload and
# overhead) equal the plan's exact prediction. Also: a plan file made for another site count is
# refused with exit 2, an existing output is kept without --force, and without a launcher
# `tra run` runs as one site.
# Sampling (to keep each rank count under ~60 s on 2 cores): a workflow with K plans (the count
# `tra run --plan N` accepts: the same ranking as `tra plan --sites RANKS --top K`) runs plans
# 1, 1+k, 1+2k, ... with k = ceil(K / MAX_PLANS), and always plan K; MAX_PLANS = 8.
# Usage: bash test_run_plans.sh TRA_BINARY SOURCE_DIR WORK_DIR RANKS MPIEXEC
set -euo pipefail

usage="usage: bash test_run_plans.sh TRA_BINARY SOURCE_DIR WORK_DIR RANKS MPIEXEC"
TRA=${1:?$usage}
SRC=${2:?$usage}
WORK=${3:?$usage}
RANKS=${4:?$usage}
MPIEXEC=${5:?$usage}
MAX_PLANS=8

fail() {
    echo "FAIL (run_plans, $RANKS ranks): $*" >&2
    exit 1
}

[ -x "$TRA" ] || fail "tra binary '$TRA' is missing or not executable"
command -v "$MPIEXEC" > /dev/null || fail "mpiexec '$MPIEXEC' not found"
[[ "$RANKS" =~ ^[1-9][0-9]*$ ]] || fail "RANKS must be a positive integer, not '$RANKS'"

rm -rf "$WORK"
mkdir -p "$WORK"
cd "$WORK"

# The report's operators: measured == predicted payload and overhead, for every operator; the
# measured peak (exchange buffers included) never above the predicted peak.
check_report() {
    python3 - "$1" << 'PY'
import json, sys
r = json.load(open(sys.argv[1]))
bad = [o for o in r["operators"]
       if o["measured_bytes"] != o["predicted_bytes"]
       or o["overhead_bytes"] != o["predicted_overhead_bytes"]]
for o in bad:
    print("operator #%d %s: measured %d + %d, predicted %d + %d" % (
        o["id"], o["op"], o["measured_bytes"], o["overhead_bytes"], o["predicted_bytes"],
        o["predicted_overhead_bytes"]))
if r["measured_bytes"] != r["predicted_bytes"] or r["overhead_bytes"] != r["predicted_overhead_bytes"]:
    print("totals differ"); bad.append(None)
for key in ("sites", "plan", "seconds", "peak_bytes", "predicted_peak_bytes"):
    if key not in r: print("missing " + key); bad.append(None)
if r.get("peak_bytes", 0) > r.get("predicted_peak_bytes", 0):
    print("measured peak %d above the predicted %d" % (r["peak_bytes"], r["predicted_peak_bytes"]))
    bad.append(None)
sys.exit(1 if bad else 0)
PY
}

# A plan file of matmul for S sites. `tra plan` is tested by tests/cli; here only the file matters
# (its exit status is reported, not required, so this test checks `tra run` alone).
make_plan() {
    local rc=0
    "$TRA" plan "$SRC/plans/examples/matmul.yaml" --sites "$1" -o "$2" > "$2.log" 2>&1 || rc=$?
    [ "$rc" -eq 0 ] || echo "note: tra plan -o $2 exited with $rc" >&2
    [ -s "$2" ] || { cat "$2.log" >&2; fail "tra plan -o $2 wrote no plan file"; }
}

runs=0
for name in matmul diag tile_concat shortest_paths nn_search; do
    wf="$SRC/plans/examples/$name.yaml"
    expected="$SRC/data/examples/$name/expected.h5"
    rc=0
    timeout 120 "$MPIEXEC" -n "$RANKS" "$TRA" run "$wf" --plan 1000000000 --out-dir count > "$name.count.log" 2>&1 || rc=$?
    [ "$rc" -eq 2 ] || { cat "$name.count.log" >&2; fail "$name: --plan 1000000000 exited with $rc, expected 2"; }
    K=$(sed -n 's/.*there are \([0-9]*\) plans.*/\1/p' "$name.count.log" | head -1)
    [ -n "$K" ] && [ "$K" -ge 1 ] || { cat "$name.count.log" >&2; fail "$name: cannot tell how many plans there are"; }
    k=$(( (K + MAX_PLANS - 1) / MAX_PLANS ))
    plans=$(seq 1 "$k" "$K"; echo "$K")
    for n in $(echo "$plans" | sort -n | uniq); do
        dir="$name.p$n"
        rc=0
        timeout 120 "$MPIEXEC" -n "$RANKS" "$TRA" run "$wf" --plan "$n" --check --report "$dir.json" \
            --out-dir "$dir" > "$dir.log" 2>&1 || rc=$?
        [ "$rc" -ne 124 ] || fail "$name plan $n hung (killed after 120 s)"
        [ "$rc" -eq 0 ] || { cat "$dir.log" >&2; fail "$name plan $n of $K exited with $rc"; }
        check_report "$dir.json" > "$dir.bytes" || { cat "$dir.bytes" >&2; fail "$name plan $n: measured bytes differ from the prediction"; }
        written=0
        while read -r output location; do
            written=$((written + 1))
            rc=0
            "$TRA" diff "$location" "$expected:/$output" > "$dir.$output.diff" 2>&1 || rc=$?
            [ "$rc" -eq 0 ] || { cat "$dir.$output.diff" >&2; fail "$name plan $n: $location differs from $expected:/$output"; }
        done < <(sed -n 's/^wrote \([^ ]*\) to \(.*\)$/\1 \2/p' "$dir.log")
        [ "$written" -gt 0 ] || { cat "$dir.log" >&2; fail "$name plan $n: the run reported no outputs written"; }
        runs=$((runs + 1))
    done
    echo "$name: $(echo "$plans" | sort -n | uniq | wc -l) of $K plans ok on $RANKS ranks"
done

# A plan file made for another site count is refused with exit 2 on every rank, writing nothing.
other=$((RANKS + 1))
make_plan "$other" other.plan.yaml
rc=0
timeout 120 "$MPIEXEC" -n "$RANKS" "$TRA" run other.plan.yaml --out-dir refused > refused.log 2>&1 || rc=$?
[ "$rc" -eq 2 ] || { cat refused.log >&2; fail "a plan file for $other sites under $RANKS ranks exited with $rc, expected 2"; }
grep -q "made for $other sites" refused.log || { cat refused.log >&2; fail "the refusal does not say why"; }
[ ! -e refused ] || [ -z "$(find refused -type f)" ] || fail "a refused run wrote files: $(find refused -type f)"

# A plan file made for this site count runs, with the same bytes as the workflow run with it.
make_plan "$RANKS" same.plan.yaml
rc=0
timeout 120 "$MPIEXEC" -n "$RANKS" "$TRA" run same.plan.yaml --check --report same.json --out-dir same > same.log 2>&1 || rc=$?
[ "$rc" -eq 0 ] || { cat same.log >&2; fail "tra run of a plan file for $RANKS sites exited with $rc"; }
check_report same.json > same.bytes || { cat same.bytes >&2; fail "plan file run: bytes differ"; }

# An existing output without --force: every rank exits 2, the file is untouched; --force replaces it.
before=$(cksum < matmul.p1/out/C.h5)
rc=0
timeout 120 "$MPIEXEC" -n "$RANKS" "$TRA" run "$SRC/plans/examples/matmul.yaml" --out-dir matmul.p1 > exists.log 2>&1 || rc=$?
[ "$rc" -eq 2 ] || { cat exists.log >&2; fail "a run onto existing outputs exited with $rc, expected 2"; }
[ "$(cksum < matmul.p1/out/C.h5)" = "$before" ] || fail "a refused run changed an existing output"
rc=0
timeout 120 "$MPIEXEC" -n "$RANKS" "$TRA" run "$SRC/plans/examples/matmul.yaml" --out-dir matmul.p1 --force > force.log 2>&1 || rc=$?
[ "$rc" -eq 0 ] || { cat force.log >&2; fail "--force onto existing outputs exited with $rc"; }

# A failure on rank 0 after the outputs are written (the report cannot be written): the whole job
# ends non-zero without hanging, and no output appears, neither at its final name nor temporary.
rc=0
timeout 120 "$MPIEXEC" -n "$RANKS" "$TRA" run "$SRC/plans/examples/matmul.yaml" --out-dir failed \
    --report "$PWD/no-such-folder/run.json" > failed.log 2>&1 || rc=$?
[ "$rc" -ne 124 ] || fail "a failing run hung (killed after 120 s)"
[ "$rc" -ne 0 ] || { cat failed.log >&2; fail "a run whose report cannot be written exited with 0"; }
grep -q "cannot write the report" failed.log || { cat failed.log >&2; fail "the failure does not say why"; }
[ ! -e failed ] || [ -z "$(find failed -type f)" ] || fail "a failed run left files: $(find failed -type f)"

if [ "$RANKS" -eq 1 ]; then
    # Without a launcher: one site.
    rc=0
    timeout 120 "$TRA" run "$SRC/plans/examples/matmul.yaml" --check --report solo.json --out-dir solo > solo.log 2>&1 || rc=$?
    [ "$rc" -eq 0 ] || { cat solo.log >&2; fail "tra run without a launcher exited with $rc"; }
    grep -q '"sites":1' solo.json || fail "tra run without a launcher did not run as one site"
fi

leftovers=$(find . -name '*.tmp*')
[ -z "$leftovers" ] || fail "temporary files left behind: $leftovers"
echo "run_plans: ok ($runs plan runs on $RANKS ranks)"
