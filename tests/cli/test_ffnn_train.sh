#!/usr/bin/env bash
# plans/examples/ffnn_train.yaml (100 SGD steps of the paper's FFNN as a `repeat:` loop, the loss
# observed every 10 steps) through the real binary against plain numpy
# (tools/reference/examples.py ffnn_train, recomputed here, and the committed
# data/examples/ffnn_train/expected.h5): `tra run --reference` and `mpiexec -n 2|3 tra run --check`
# each write exactly numpy's datasets (W1n, W2n, loss, loss@10 ... loss@100), every one within
# rtol 1e-9 / atol 1e-12 of numpy, and the loss falls from loss@10 to loss@100.
# Usage: bash test_ffnn_train.sh TRA_BINARY SOURCE_DIR WORK_DIR   (env TRA_PYTHON; MPIEXEC, default
# mpiexec)
set -uo pipefail

# shellcheck source=tests/test_helpers.bash
source "$(dirname "${BASH_SOURCE[0]}")/../test_helpers.bash" cli ffnn_train "$@"

wf="$SRC/plans/examples/ffnn_train.yaml"
script="$SRC/tools/reference/examples.py"
committed="$SRC/data/examples/ffnn_train/expected.h5"
MPIEXEC=${MPIEXEC:-mpiexec}
[ -f "$wf" ] || fail "$wf is missing"
[ -f "$committed" ] || fail "$committed is missing (run tools/reference/examples.py ffnn_train)"
"$PY" -c 'import numpy, h5py, yaml' 2> /dev/null || fail "'$PY' lacks numpy, h5py or yaml (set TRA_PYTHON)"
command -v "$MPIEXEC" > /dev/null || fail "mpiexec '$MPIEXEC' not found (set MPIEXEC)"

count_failures
enter_work_dir

# same_as_numpy WANT.h5 GOT.h5: the same dataset names, shapes and dtypes, values within
# rtol 1e-9 / atol 1e-12 (100 steps of f64 arithmetic summed in another order than numpy's).
same_as_numpy() {
    "$PY" - "$1" "$2" << 'PYTHON'
import sys

import h5py
import numpy as np


def datasets(path):
    with h5py.File(path, "r") as f:
        return {k: f[k][()] for k in f if isinstance(f[k], h5py.Dataset)}


want, got = datasets(sys.argv[1]), datasets(sys.argv[2])
ok = sorted(want) == sorted(got)
if not ok:
    print("datasets %s, numpy's %s" % (sorted(got), sorted(want)))
worst = 0.0
for name in sorted(set(want) & set(got)):
    w, g = np.asarray(want[name]), np.asarray(got[name])
    if w.shape != g.shape or w.dtype != g.dtype:
        print("%s: %s %s, numpy's %s %s" % (name, g.shape, g.dtype, w.shape, w.dtype))
        ok = False
        continue
    worst = max(worst, float(np.max(np.abs(g - w) / (1e-12 + np.abs(w)))))
    if not np.allclose(g, w, rtol=1e-9, atol=1e-12):
        print("%s: differs from numpy by %g" % (name, np.max(np.abs(g - w))))
        ok = False
print("%d datasets equal numpy's (largest relative difference %.1e)" % (len(want), worst)
      if ok else "mismatch")
sys.exit(0 if ok else 1)
PYTHON
}

# numpy, now (the committed file must be what examples.py computes today).
rc=0
"$PY" "$script" --out fresh ffnn_train > numpy.log 2>&1 || rc=$?
[ "$rc" -eq 0 ] || fail "examples.py ffnn_train exited $rc: $(cat numpy.log)"
want=fresh/ffnn_train/expected.h5
if same_as_numpy "$want" "$committed" > committed.log 2>&1; then
    echo "committed expected.h5: $(tail -n 1 committed.log)"
else
    fail "committed $committed differs from examples.py's: $(cat committed.log)"
fi

rc=0
"$TRA" validate "$wf" > validate.log 2>&1 || rc=$?
[ "$rc" -eq 0 ] || fail "tra validate $wf exited $rc: $(cat validate.log)"

# check_run NAME LOG: the run wrote each numpy dataset once, to NAME/out/ffnn_train.h5, equal to numpy.
check_run() {
    local name=$1 log=$2 datasets expected_list
    datasets=$(outputs_written "$log" | sed 's/^[^ ]* .*:\//\//' | sort | tr '\n' ' ')
    expected_list=$("$PY" -c 'import sys, h5py; print(" ".join(sorted("/" + k for k in h5py.File(sys.argv[1], "r"))))' "$want")
    [ "$datasets" = "$expected_list " ] || fail "$name: wrote [$datasets], numpy has [$expected_list]"
    if same_as_numpy "$want" "$name/out/ffnn_train.h5" > "$name.check.log" 2>&1; then
        echo "$name: $(tail -n 1 "$name.check.log")"
    else
        fail "$name: differs from numpy: $(cat "$name.check.log")"
    fi
}

rc=0
timeout 120 "$TRA" run "$wf" --reference --out-dir ref > ref.log 2>&1 || rc=$?
if [ "$rc" -eq 0 ]; then check_run ref ref.log; else fail "tra run --reference exited $rc: $(cat ref.log)"; fi

# The distributed runtime on 2 and 3 ranks (3: the 4 x 4 tiles split unevenly), with --check
# (outputs, observations included, equal to the reference evaluator's; every operator's bytes
# equal to the prediction) and against numpy.
for ranks in 2 3; do
    rc=0
    timeout 120 "$MPIEXEC" -n "$ranks" "$TRA" run "$wf" --check --threads 1 --out-dir "mpi$ranks" \
        > "mpi$ranks.log" 2>&1 < /dev/null || rc=$?
    if [ "$rc" -ne 0 ]; then
        fail "mpiexec -n $ranks tra run --check exited $rc: $(tail -n 30 "mpi$ranks.log")"
        continue
    fi
    grep -q '^check: outputs equal' "mpi$ranks.log" || fail "$ranks ranks: no 'check: outputs equal' line"
    grep -q '^loop: iterations 1 to 100,.* 100 of 100 moved exactly the bytes predicted' "mpi$ranks.log" ||
        fail "$ranks ranks: no 'loop: iterations 1 to 100 ... 100 of 100 moved exactly the bytes predicted' line"
    check_run "mpi$ranks" "mpi$ranks.log"
done

# Training does something: the observed loss falls from step 10 to step 100.
"$PY" - "$want" > falls.log 2>&1 << 'PYTHON' || fail "the loss does not fall: $(cat falls.log)"
import sys

import h5py

with h5py.File(sys.argv[1], "r") as f:
    losses = [float(f["loss@%d" % k][()]) for k in range(10, 101, 10)]
print(" ".join("%.4g" % v for v in losses))
sys.exit(0 if all(b < a for a, b in zip(losses, losses[1:])) and losses[-1] < 0.1 * losses[0] else 1)
PYTHON
echo "loss@10 ... loss@100: $(cat falls.log)"

finish_counted "ffnn_train: ok"
