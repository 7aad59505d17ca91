#!/usr/bin/env bash
# Loops (`repeat:` and `every:`, docs/workflow-format.md "Loops: `repeat`") through the real
# binary: `tra validate` accepts plans/models/mlp_loop.yaml, and `tra run --reference` of it (and
# of a 3-iteration variant observing every iteration) writes exactly the datasets numpy's loop
# writes (tools/reference/models.py expected: /loss@K observations included), equal to 1e-12.
# Bad loops exit 2 with one stderr line naming FILE:LINE:COL and the field, and write nothing.
# Usage: bash test_loops.sh TRA_BINARY SOURCE_DIR WORK_DIR   (env TRA_PYTHON)
set -uo pipefail

# shellcheck source=tests/test_helpers.bash
source "$(dirname "${BASH_SOURCE[0]}")/../test_helpers.bash" cli loops "$@"

models="$SRC/tools/reference/models.py"
wf="$SRC/plans/models/mlp_loop.yaml"
"$PY" -c 'import numpy, h5py, yaml' 2> /dev/null || fail "'$PY' lacks numpy, h5py or yaml (set TRA_PYTHON)"
[ -f "$wf" ] || fail "$wf is missing"

count_failures
enter_work_dir

# same_as_numpy WANT.h5 GOT.h5: the same dataset names, shapes and dtypes, values within 1e-12.
same_as_numpy() {
    "$PY" - "$1" "$2" "$SRC/tools/reference" << 'PYTHON'
import sys

import numpy as np

sys.path.insert(0, sys.argv[3])
from same_outputs import datasets  # noqa: E402

want, got = datasets(sys.argv[1]), datasets(sys.argv[2])
ok = sorted(want) == sorted(got)
if not ok:
    print("datasets %s, numpy's %s" % (sorted(got), sorted(want)))
for name in sorted(set(want) & set(got)):
    w, g = np.asarray(want[name]), np.asarray(got[name])
    if w.shape != g.shape or w.dtype != g.dtype:
        print("%s: %s %s, numpy's %s %s" % (name, g.shape, g.dtype, w.shape, w.dtype))
        ok = False
    elif not np.allclose(g, w, rtol=1e-12, atol=1e-14):
        print("%s: differs from numpy by %g" % (name, np.max(np.abs(g - w))))
        ok = False
print("%d datasets equal numpy's" % len(want) if ok else "mismatch")
sys.exit(0 if ok else 1)
PYTHON
}

# run_against_numpy NAME WORKFLOW: tra run --reference into NAME/ against models.py expected.
run_against_numpy() {
    local name=$1 workflow=$2 rc=0
    "$TRA" validate "$workflow" > "$name.validate.log" 2>&1 || rc=$?
    [ "$rc" -eq 0 ] || fail "tra validate $workflow exited $rc: $(cat "$name.validate.log")"
    rc=0
    "$TRA" run "$workflow" --reference --out-dir "$name" > "$name.run.log" 2>&1 || rc=$?
    [ "$rc" -eq 0 ] || { fail "tra run $workflow --reference exited $rc: $(cat "$name.run.log")"; return; }
    rc=0
    "$PY" "$models" expected "$workflow" "$name.want.h5" > "$name.expected.log" 2>&1 || rc=$?
    [ "$rc" -eq 0 ] || { fail "models.py expected $workflow exited $rc: $(cat "$name.expected.log")"; return; }
    if same_as_numpy "$name.want.h5" "$name/out/mlp_loop.h5" > "$name.check.log" 2>&1; then
        echo "$name: $(tail -n 1 "$name.check.log")"
    else
        fail "$name: tra run --reference differs from numpy: $(cat "$name.check.log")"
    fi
}

# (a, b) The committed model: 6 iterations, the loss observed after iterations 2, 4 and 6.
run_against_numpy mlp_loop "$wf"
written=$(outputs_written mlp_loop.run.log | sed 's/ .*:/ /' | tr '\n' ' ')
[ "$written" = "loss /loss@2 loss /loss@4 loss /loss@6 loss /loss W1n /W1n W2n /W2n " ] ||
    fail "tra run --reference of mlp_loop wrote '$written'"
grep -q '^loop: 6 iterations; carry W1 <- W1n, W2 <- W2n$' mlp_loop.validate.log ||
    fail "tra validate does not show the loop: $(grep '^loop' mlp_loop.validate.log)"
grep -q '^output loss -> .*:/loss@4 (after iteration 4)$' mlp_loop.validate.log ||
    fail "tra validate does not say when /loss@4 is written"
# The loop really advances: every observation differs from the others.
"$PY" -c '
import sys, h5py
with h5py.File(sys.argv[1], "r") as f:
    losses = [float(f["loss@%d" % k][()]) for k in (2, 4, 6)]
sys.exit(0 if losses[0] > losses[1] > losses[2] else 1)' mlp_loop/out/mlp_loop.h5 ||
    fail "the observed losses do not decrease from iteration 2 to 4 to 6"

# A variant: 3 iterations, the loss and W2n observed after every one (expected reads times and
# every from the workflow).
sed -e 's/^repeat: {times: 6,/repeat: {times: 3,/' \
    -e 's|^  loss: {file: out/mlp_loop.h5, every: 2}|  loss: {file: out/mlp_loop.h5, every: 1}|' \
    -e 's|^  W2n:  {file: out/mlp_loop.h5}|  W2n:  {file: out/mlp_loop.h5, every: 1}|' "$wf" > three.yaml
if ! grep -q 'times: 3,' three.yaml || ! grep -q 'W2n: .*every: 1' three.yaml; then
    fail "cannot write three.yaml"
fi
run_against_numpy three "$PWD/three.yaml"
h5ls three/out/mlp_loop.h5 2> /dev/null | grep -q '^W2n@3 ' || fail "three: no dataset W2n@3"

# (c) Bad loops: mlp_loop.yaml with its repeat line (38) or its loss output (line 40) replaced.
repeat_line=$(grep -n '^repeat:' "$wf" | cut -d: -f1)
loss_line=$(grep -n '^  loss: {file' "$wf" | cut -d: -f1)
if [ "$repeat_line" != 38 ] || [ "$loss_line" != 40 ]; then
    fail "mlp_loop.yaml has repeat on line $repeat_line and loss on $loss_line, not 38 and 40; update the cases"
fi
mkdir bad
# bad NAME REPEAT_LINE LOSS_LINE
bad() {
    sed -e "${repeat_line}s|.*|$2|" -e "${loss_line}s|.*|$3|" "$wf" > "bad/$1.yaml"
}
R='repeat: {times: 6, carry: {W1: W1n, W2: W2n}}'
L='  loss: {file: out/mlp_loop.h5, every: 2}'
bad times0 'repeat: {times: 0, carry: {W1: W1n, W2: W2n}}' "$L"
bad carry_from_step 'repeat: {times: 6, carry: {z1: W1n, W2: W2n}}' "$L"
bad carry_from_unknown 'repeat: {times: 6, carry: {W3: W1n, W2: W2n}}' "$L"
bad carry_to_unknown 'repeat: {times: 6, carry: {W1: W1m, W2: W2n}}' "$L"
bad carry_type 'repeat: {times: 6, carry: {W1: W2n, W2: W2n}}' "$L"
bad carry_itself 'repeat: {times: 6, carry: {W1: W1, W2: W2n}}' "$L"
bad carry_list 'repeat: {times: 6, carry: [W1, W1n]}' "$L"
bad no_times 'repeat: {carry: {W1: W1n, W2: W2n}}' "$L"
bad unknown_key 'repeat: {times: 6, carry: {W1: W1n, W2: W2n}, every: 2}' "$L"
bad every0 "$R" '  loss: {file: out/mlp_loop.h5, every: 0}'
bad every_no_repeat '' "$L"
bad too_many 'repeat: {times: 1000000, carry: {W1: W1n, W2: W2n}}' \
    '  loss: {file: out/mlp_loop.h5, every: 1}'

# case -> "FILE:LINE:COL: FIELD: message" the error line must start with
declare -A says=(
    [times0]="times0.yaml:38:17: repeat.times: repeat needs times of at least 1"
    [carry_from_step]="carry_from_step.yaml:38:32: repeat.carry.z1: carry: 'z1' is a step, not an input"
    [carry_from_unknown]="carry_from_unknown.yaml:38:32: repeat.carry.W3: unknown relation 'W3'"
    [carry_to_unknown]="carry_to_unknown.yaml:38:32: repeat.carry.W1: unknown relation 'W1m'"
    [carry_type]="carry_type.yaml:38:32: repeat.carry.W1: carry: W2n is R^(2,2,[5, 3]) f64 but input W1 is R^(2,2,[6, 5]) f64; a carried step must have the input's type and tiling"
    [carry_itself]="carry_itself.yaml:38:32: repeat.carry.W1: carry: W1: W1 keeps the input as it is"
    [carry_list]="carry_list.yaml:38:27: repeat.carry: carry is a map from an input to the step"
    [no_times]="no_times.yaml:38:9: repeat: missing field 'times'"
    [unknown_key]="unknown_key.yaml:38:47: repeat: unknown field 'every'"
    [every0]="every0.yaml:40:40: outputs.loss.every: every must be at least 1"
    [every_no_repeat]="every_no_repeat.yaml:40:40: outputs.loss.every: every: observes an output during a loop; this workflow has no repeat"
    [too_many]="too_many.yaml:40:40: outputs.loss.every: every 1 of 1000000 iterations writes 1000000 datasets, more than 100000"
)
for name in "${!says[@]}"; do
    for verb in validate run; do
        args=("$verb" "bad/$name.yaml")
        [ "$verb" = run ] && args+=(--reference)
        rc=0
        "$TRA" "${args[@]}" > "bad/$name.$verb.out" 2> "bad/$name.$verb.err" || rc=$?
        [ "$rc" -eq 2 ] || fail "tra ${args[*]} exited $rc, expected 2 ($(cat "bad/$name.$verb.err"))"
        lines=$(wc -l < "bad/$name.$verb.err")
        [ "$lines" -eq 1 ] || fail "tra ${args[*]}: $lines stderr lines, expected 1: $(cat "bad/$name.$verb.err")"
        first=$(head -n 1 "bad/$name.$verb.err")
        case "$first" in
            "tra: error: bad/${says[$name]}"*) ;;
            *) fail "tra ${args[*]}: stderr '$first' does not start with 'tra: error: bad/${says[$name]}'" ;;
        esac
    done
done
# Bad slices: mlp_minibatch.yaml (X and T read a batch per iteration) with its X line or its
# repeat line changed.
mb="$SRC/plans/models/mlp_minibatch.yaml"
x_line=$(grep -n '^  X: ' "$mb" | cut -d: -f1)
mb_repeat=$(grep -n '^repeat:' "$mb" | cut -d: -f1)
X='  X:  {shape: [24, 12], tile: [4, 6], slice: SLICE, generate: {uniform: [-1, 1], seed: 21}}'
sed -e "${mb_repeat}s|.*||" -e "s|^  loss: {file: \(.*\), every: [0-9]*}|  loss: {file: \1}|" "$mb" \
    > bad/slice_no_repeat.yaml
sed -e "${x_line}s|.*|${X/SLICE/\{dim: 0, size: 5\}}|" "$mb" > bad/slice_size.yaml
sed -e "${x_line}s|.*|${X/SLICE/\{dim: 2, size: 8\}}|" "$mb" > bad/slice_dim.yaml
sed -e "${x_line}s|.*|${X/SLICE/\{dim: 0, size: 8, step: 1\}}|" "$mb" > bad/slice_field.yaml
declare -A slice_says=(
    [slice_no_repeat]="slice_no_repeat.yaml:$x_line:46: inputs.X.slice: slice: an input read a slice at a time needs a loop (repeat:)"
    [slice_size]="slice_size.yaml:$x_line:46: inputs.X.slice: slice size 5 must divide the extent 24 of dimension 0 and be a multiple of its tile 4"
    [slice_dim]="slice_dim.yaml:$x_line:46: inputs.X.slice: slice dim 2 is out of range: the input has 2 dimensions"
    [slice_field]="slice_field.yaml:$x_line:64: inputs.X.slice: unknown field 'step'"
)
for name in "${!slice_says[@]}"; do
    rc=0
    "$TRA" validate "bad/$name.yaml" > "bad/$name.out" 2> "bad/$name.err" || rc=$?
    [ "$rc" -eq 2 ] || fail "tra validate bad/$name.yaml exited $rc, expected 2 ($(cat "bad/$name.err"))"
    first=$(head -n 1 "bad/$name.err")
    case "$first" in
        "tra: error: bad/${slice_says[$name]}"*) ;;
        *) fail "tra validate bad/$name.yaml: '$first' does not start with 'tra: error: bad/${slice_says[$name]}'" ;;
    esac
done
leftovers=$(find bad -name out -o -name '*.h5' -o -name '*.tmp*' | head)
[ -z "$leftovers" ] || fail "bad loops left files behind: $leftovers"

finish_counted "loops: ok"
