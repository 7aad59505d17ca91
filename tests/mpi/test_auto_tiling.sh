#!/usr/bin/env bash
# Workflows with `tile: auto` (docs/workflow-format.md, "Automatic tiling") under `mpiexec -n
# RANKS`: EVERY plan `tra plan --sites RANKS --top 10` lists -- plans of several tilings -- runs
# with pml monitoring, its outputs equal the reference evaluator's, and for every operator the
# measured bytes equal the exact prediction and OpenMPI's count (tests/mpi/plan_runs.bash). The
# reference runs are checked against numpy first. Workflows: the TRA paper's matrix multiplies
# (plans/paper/auto/scaled) and EinDecomp's chains (plans/eindecomp), both scaled down here, and
# the padded example (plans/examples/padded.yaml).
# Usage: bash test_auto_tiling.sh TRA_BINARY SOURCE_DIR WORK_DIR RANKS MPIEXEC
set -euo pipefail

# shellcheck source=tests/test_helpers.bash
source "$(dirname "${BASH_SOURCE[0]}")/../test_helpers.bash" mpi auto_tiling "$@"

# shellcheck source=tests/mpi/plan_runs.bash
source "$SRC/tests/mpi/plan_runs.bash"
require_monitoring

enter_work_dir

# scale WF OUT DIVISOR: WF with every extent divided by DIVISOR, still tile: auto.
scale() {
    "$PY" - "$@" << 'PYEOF'
import re, sys
# On the text: a YAML round trip would turn a join's `on:` key into `true:` (YAML 1.1).
divide = lambda m: "shape: [%s]" % ", ".join(str(int(n) // int(sys.argv[3])) for n in m[1].split(","))
text = re.sub(r"shape: \[([0-9, ]+)\]", divide, open(sys.argv[1]).read())
open(sys.argv[2], "w").write(text)
PYEOF
}
# The chains at s = 80 instead of 1280; the paper's scaled matrix multiplies / 5 again.
for shape in square skewed; do
    scale "$SRC/plans/eindecomp/chain-$shape-auto.yaml" "chain-$shape.yaml" 16
done
for wf in "$SRC"/plans/paper/auto/scaled/mm-*.yaml; do
    scale "$wf" "auto-$(basename "$wf")" 5
done

check_reference() {  # NAME WF: tra run --reference into NAME.ref, checked against numpy
    local rc=0
    timeout 300 "$TRA" run "$2" --reference --out-dir "$1.ref" > "$1.ref.log" 2>&1 || rc=$?
    [ "$rc" -eq 0 ] || { cat "$1.ref.log" >&2; fail "$1: tra run --reference exited with $rc"; }
}

for shape in square skewed; do
    check_reference "chain-$shape" "chain-$shape.yaml"
    "$PY" "$SRC/plans/eindecomp/check_chain.py" "chain-$shape.yaml" "chain-$shape.ref" ||
        fail "chain-$shape: the reference differs from numpy"
    run_every_plan "chain-$shape" "chain-$shape.yaml" "chain-$shape.ref"
    rm -rf "chain-$shape".p*/
done
# Cut apart (docs/cost-model.md, "Re-tilings between steps"), as the search places re-tilings:
# M3 re-cuts M2 (M3.retile2) to C's j, split where C's j is in two tiles and M2's rows (D's)
# whole, merged (a rekey, an exchange and a concat) where it is the other way round.
for cut in split:C@80x4,D@8x800 merge:C@80x8,D@4x800; do
    name=chain-${cut%%:*} pins=${cut#*:}
    run_plan "$name" chain-skewed.yaml --plan "$pins"
    "$TRA" explain chain-skewed.yaml --sites "$RANKS" --plan "$pins" > "$name.explain"
    grep -q ' M3.retile2 ' "$name.explain" || fail "$name: the plan does not re-tile M2"
    [ "$name" = chain-split ] || grep -q ' M3.retile2.group ' "$name.explain" ||
        fail "$name: M2 is not merged"
    check_outputs "$name" chain-skewed.ref
    rm -rf "${name:?}/"
done
for wf in auto-mm-*.yaml; do
    name=$(basename "$wf" .yaml)
    check_reference "$name" "$wf"
    "$PY" "$SRC/plans/paper/check_scaled.py" "$wf" "$name.ref" || fail "$name: the reference differs from numpy"
    run_every_plan "$name" "$wf" "$name.ref"
    rm -rf "$name".p*/ "$name.ref"
done
# Padding through the paper's matmul joins and aggregates, checked against numpy: the matrix
# multiply (400 = 3 x 136 - 8 along i and k, 3 x 192 - 176 along j) and one FFNN training step
# (sigmoid's padding, 1/2, only ever meets zeros in its sums; 64 = 3 x 24 - 8 features).
scale "$SRC/plans/paper/auto/scaled/ffnn-speech.yaml" auto-ffnn-speech.yaml 5
run_plan mm-padded auto-mm-general.yaml --plan 'A@136x136,B@136x192'
"$PY" "$SRC/plans/paper/check_scaled.py" auto-mm-general.yaml mm-padded ||
    fail "mm-padded: the outputs differ from numpy"
run_plan ffnn-padded auto-ffnn-speech.yaml --plan 'X@136x24,W1@24x136'
"$PY" "$SRC/plans/paper/check_scaled.py" auto-ffnn-speech.yaml ffnn-padded ||
    fail "ffnn-padded: the outputs differ from numpy"
rm -rf mm-padded/ ffnn-padded/

# Padding (docs/workflow-format.md, "Padding"): extents no tile count divides, checked against
# numpy's outputs (data/examples/padded, tools/reference/examples.py). Every listed plan, and a
# tiling that pads every dimension but the batch: 27 -> 28, 45 -> 48, 101 -> 104.
padded_expected="$SRC/data/examples/padded/expected.h5"
run_every_plan padded "$SRC/plans/examples/padded.yaml" "$padded_expected"
# Through a plan file, which records the padded tiling (tiling:) and rebuilds the program from it.
"$TRA" plan "$SRC/plans/examples/padded.yaml" --sites "$RANKS" --plan 'X@8x7,W1@7x12,W2@12x26' \
    -o padded.plan.yaml > /dev/null || fail "padded: tra plan -o failed"
grep -q "W2: \[12, 26\]" padded.plan.yaml || fail "padded: the plan file does not record W2's tile"
run_plan padded.pin padded.plan.yaml
check_outputs padded.pin "$padded_expected"
grep -q "padded 45 -> 48, 101 -> 104" <("$TRA" explain "$SRC/plans/examples/padded.yaml" \
    --sites "$RANKS" --plan 'X@8x7,W1@7x12,W2@12x26') ||
    fail "padded: tra explain does not show W2's padding"
rm -rf padded.p*/ padded.pin/

# Each listed plan names its tiling: several tilings are among them.
tilings=$(cat ./*.plans | awk '{print $2}' | sed -E 's/,[A-Za-z0-9_.]+=.*//' | sort -u | wc -l)
[ "$tilings" -gt 3 ] || fail "the listed plans use only $tilings tilings"
echo "auto_tiling: ok ($PLAN_RUNS plan runs on $RANKS ranks, $tilings tilings)"
