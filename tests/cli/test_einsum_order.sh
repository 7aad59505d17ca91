#!/usr/bin/env bash
# Contraction order of a multi-operand einsum, end to end, on opt_einsum's example
# ea,fb,gc,hd,abcd->efgh: the result equals numpy's einsum on 1 and 3 ranks; validate and
# explain show the order and its flops (explain's text, JSON and dot); with every label 32
# (where joining left to right builds a 32^8 intermediate) `tra plan`'s first plan peaks at
# most 4x the largest operand per site on 1 to 4 sites.
# Usage: bash test_einsum_order.sh TRA_BINARY SOURCE_DIR WORK_DIR   (env TRA_PYTHON)
set -euo pipefail

# shellcheck source=tests/test_helpers.bash
source "$(dirname "${BASH_SOURCE[0]}")/../test_helpers.bash" cli einsum_order "$@"
"$PY" -c 'import numpy, h5py' 2>/dev/null || fail "'$PY' lacks numpy or h5py (set TRA_PYTHON)"
MPIEXEC=${MPIEXEC:-mpiexec}
command -v "$MPIEXEC" > /dev/null || fail "mpiexec '$MPIEXEC' not found"

enter_work_dir
count_failures

# z5_workflow NAME M K M_TILE K_TILE: the matrices are M x K, abcd is K^4.
z5_workflow() {
    local name=$1 m=$2 k=$3 mt=$4 kt=$5
    echo "name: $name"
    echo "inputs:"
    local seed=1
    for x in E F G H; do
        echo "  $x: {shape: [$m, $k], tile: [$mt, $kt], generate: {uniform: [-1, 1], seed: $seed}}"
        seed=$((seed + 1))
    done
    echo "  T: {shape: [$k, $k, $k, $k], tile: [$kt, $kt, $kt, $kt], generate: {uniform: [-1, 1], seed: 5}}"
    echo "program:"
    echo '  - Z: {einsum: "ea,fb,gc,hd,abcd->efgh", inputs: [E, F, G, H, T]}'
    echo "outputs:"
    echo "  Z: {file: out/Z.h5}"
}

# Numbers: e..h = 6 (tiles of 3), a..d = 4 (tiles of 2).
z5_workflow z5 6 4 3 2 > z5.yaml
"$TRA" gen z5.yaml > gen.log 2>&1 || { cat gen.log >&2; fail "tra gen z5.yaml failed"; }
"$PY" - <<'PYTHON' || fail "numpy could not compute the expected result"
import h5py, numpy as np
x = {n: h5py.File(n + ".h5", "r")["/" + n][...] for n in "EFGHT"}
z = np.einsum("ea,fb,gc,hd,abcd->efgh", x["E"], x["F"], x["G"], x["H"], x["T"])
with h5py.File("expected.h5", "w") as f:
    f["Z"] = z
PYTHON
for ranks in 1 3; do
    rc=0
    timeout 300 "$MPIEXEC" -n "$ranks" "$TRA" run z5.yaml --out-dir "r$ranks" < /dev/null \
        > "r$ranks.log" 2>&1 || rc=$?
    if [ "$rc" -ne 0 ]; then
        cat "r$ranks.log" >&2
        fail "tra run z5.yaml on $ranks rank(s) exited with $rc"
        continue
    fi
    "$TRA" diff "r$ranks/out/Z.h5:/Z" expected.h5:/Z > "r$ranks.diff" 2>&1 ||
        fail "$ranks rank(s): Z differs from numpy's einsum: $(cat "r$ranks.diff")"
done

# Every label 32, tiles of 8: largest operand abcd is 32^4 f64 = 8 MiB. The optimal order joins
# abcd with one matrix after another: 4 * 32^5 = 134217728 flops.
z5_workflow z32 32 32 8 8 > z32.yaml
largest=$((32 * 32 * 32 * 32 * 8))
"$TRA" validate z32.yaml > validate.log 2>&1 || fail "tra validate z32.yaml failed: $(cat validate.log)"
order_line='^einsum Z: order .* flops 134217728$'
grep -q "$order_line" validate.log || fail "tra validate shows no order line with 134217728 flops: $(grep '^einsum' validate.log)"
grep -q '^relation ' validate.log || fail "tra validate lost its relation table"
for sites in 1 3; do
    "$TRA" explain z32.yaml --sites "$sites" > "explain$sites.log" 2>&1 ||
        fail "tra explain z32.yaml --sites $sites failed: $(cat "explain$sites.log")"
    grep -q "$order_line" "explain$sites.log" ||
        fail "tra explain --sites $sites shows no order line: $(grep '^einsum' "explain$sites.log")"
done
# The same order in explain's JSON (einsum_orders) and as a comment of its dot graph.
"$TRA" explain z32.yaml --sites 3 --format json > explain3.json 2> explain3.err ||
    fail "tra explain --format json failed: $(cat explain3.err)"
text_order=$(sed -n 's/^einsum Z: order \(.*\) flops .*$/\1/p' explain3.log)
"$PY" - explain3.json "$text_order" <<'PYTHON' || fail "explain --format json lacks Z's einsum order"
import json, sys
orders = json.load(open(sys.argv[1]))["einsum_orders"]
want = [{"output": "Z", "order": sys.argv[2], "flops": 134217728}]
if orders != want:
    sys.exit(f"einsum_orders {orders}, expected {want}")
PYTHON
"$TRA" explain z32.yaml --sites 3 --format dot > explain3.dot 2> explain3.err ||
    fail "tra explain --format dot failed: $(cat explain3.err)"
grep -qx "  // einsum Z: order $text_order flops 134217728" explain3.dot ||
    fail "explain --format dot lacks Z's order comment: $(grep einsum explain3.dot)"

# Joined left to right, the best plan peaks at 8.8 TB per site. On 1 to 4 sites the default
# (time-ranked) first plan peaks at most 4x the largest operand, read off the workflow's shapes.
# On 3 sites (4 tiles per label) an RMM plan peaked at 5.3x while the time model did not price
# its replication map's copies (docs/cost-model.md, "Time model"); priced, a plan that peaks
# at 1.5x ranks first.
largest=$("$PY" - z32.yaml <<'PYTHON'
import math, re, sys
shapes = re.findall(r"shape: \[([0-9, ]+)\]", open(sys.argv[1]).read())
sizes = [math.prod(int(x) for x in s.split(",")) * 8 for s in shapes]  # f64 elements
print(max(sizes))
PYTHON
)
[ "$largest" -eq $((32 * 32 * 32 * 32 * 8)) ] || fail "largest operand read as $largest bytes"
for sites in 1 2 3 4; do
    "$TRA" plan z32.yaml --sites "$sites" --format json > "plan$sites.json" 2> "plan$sites.err" ||
        fail "tra plan z32.yaml --sites $sites failed: $(cat "plan$sites.err")"
    "$PY" - "plan$sites.json" "$largest" <<'PYTHON' || fail "$sites site(s): the first plan peaks over 4x the largest operand"
import json, sys
plans = json.load(open(sys.argv[1]))["plans"]
peak, largest = plans[0]["peak_bytes_per_site"], int(sys.argv[2])
if peak > 4 * largest:
    sys.exit(f"peak {peak} bytes per site > 4 x {largest} ({plans[0]['name']})")
PYTHON
done

finish_counted "einsum_order: ok (numpy on 1 and 3 ranks; order shown; peak <= 4x largest operand)"
