#!/usr/bin/env bash
# Loops under `mpiexec -n RANKS tra run` (docs/runtime.md, "Loops", "Checkpoint and restart"):
# a rank killed (SIGKILL, TRA_FAULT=kill@RANK:OPERATOR#ITERATION) at a random operator of a
# random iteration of plans/models/mlp_loop.yaml ends the job with no output at its final name
# and either no checkpoint or a complete one; `--resume` then finishes with outputs bit-identical
# (h5diff, no tolerance) to an uninterrupted run of the same plan on as many ranks, whose outputs
# the reference evaluator checks (--check, every iteration's bytes equal to the prediction).
# A kill in the carry between iterations and in the checkpoint itself resumes the same way.
# Refused with exit 2: --resume from another plan's checkpoint, --checkpoint without repeat:.
# A block-sparse carry is checkpointed with its tiles' chunks only, and resumes bit for bit.
# The random choices are printed (and TRA_LOOP_SEED fixes them) so a failure can be rerun.
# Usage: bash test_loop_resume.sh TRA_BINARY SOURCE_DIR WORK_DIR RANKS MPIEXEC
set -euo pipefail

# shellcheck source=tests/test_helpers.bash
source "$(dirname "${BASH_SOURCE[0]}")/../test_helpers.bash" mpi loop_resume "$@"
enter_work_dir
command -v h5diff > /dev/null || fail "h5diff not found (hdf5-tools)"

WF="$SRC/plans/models/mlp_loop.yaml"
TIMES=$(sed -n 's/^repeat: {times: \([0-9]*\),.*/\1/p' "$WF")
[ -n "$TIMES" ] || fail "cannot read the iteration count of $WF"
OUT=out/mlp_loop.h5

# run NAME [tra run args...]: under mpiexec with a time limit; sets rc; NAME.log.
run() {
    local name=$1
    shift
    rc=0
    timeout 120 "$MPIEXEC" -n "$RANKS" "$TRA" run "$WF" --threads 1 --out-dir "$name" "$@" \
        < /dev/null > "$name.log" 2>&1 || rc=$?
    [ "$rc" -ne 124 ] || fail "$name: the job hung (killed after 120 s)"
}

run full --check
[ "$rc" -eq 0 ] || { cat full.log >&2; fail "the uninterrupted loop failed"; }
grep -q "^check: outputs equal the reference" full.log || fail "full: --check did not pass"
grep -q "^loop: iterations 1 to $TIMES, .* $TIMES of $TIMES moved exactly" full.log ||
    fail "full: not every iteration moved the predicted bytes: $(grep '^loop:' full.log)"

# How many operators the plan has: a kill may hit any of them.
OPERATORS=$("$TRA" explain "$WF" --sites "$RANKS" | grep -c '^#[0-9]')
[ "$OPERATORS" -gt 0 ] || fail "tra explain lists no operators"

seed=${TRA_LOOP_SEED:-$RANDOM}
RANDOM=$seed
echo "seed $seed (TRA_LOOP_SEED=$seed reruns these choices)"

# kill_and_resume NAME FAULT [run args]: the killed run fails and leaves no output; the resumed
# one (same command line) writes what the uninterrupted run wrote, bit for bit.
kill_and_resume() {
    local name=$1 fault=$2
    shift 2
    rm -rf "$name" "$name.ck"
    rc=0
    TRA_FAULT=$fault run "$name" --checkpoint "$name.ck" --resume "$name.ck" "$@"
    [ "$rc" -ne 0 ] || { cat "$name.log" >&2; fail "$name: TRA_FAULT=$fault did not end the job"; }
    [ ! -e "$name/$OUT" ] || fail "$name: the killed run left its output at the final name"
    if [ -e "$name.ck/checkpoint.h5" ]; then
        h5ls "$name.ck/checkpoint.h5" > /dev/null 2>&1 ||
            fail "$name: the killed run left an unreadable checkpoint"
    fi
    # A dead run's temporary checkpoint (checkpoint.h5.tmp-HOST-PID-N) is removed by the next run
    # once its process has ended, as after a requeue: wait for mpiexec's teardown to end it.
    local temp pid tries
    for temp in "$name".ck/checkpoint.h5.tmp-*; do
        [ -e "$temp" ] || continue
        pid=${temp##*.tmp-"$(hostname)"-}
        pid=${pid%%-*}
        tries=0
        while kill -0 "$pid" 2> /dev/null && [ "$tries" -lt 600 ]; do
            sleep 0.1
            tries=$((tries + 1))
        done
        echo "note: $temp is a dead run's temporary checkpoint (the next run removes it)"
    done
    run "$name" --checkpoint "$name.ck" --resume "$name.ck" "$@"
    [ "$rc" -eq 0 ] || { cat "$name.log" >&2; fail "$name: --resume failed"; }
    h5diff -q "full/$OUT" "$name/$OUT" ||
        fail "$name: the resumed outputs differ from the uninterrupted run's"
    ls "$name.ck" | grep -qv '^checkpoint.h5$' && fail "$name: a temporary checkpoint was left"
    echo "$name ($fault): $(grep -E '^resume:' "$name.log" | head -1)"
}

rank=$((RANDOM % RANKS))
op=$((RANDOM % OPERATORS))
iteration=$((RANDOM % TIMES + 1))
kill_and_resume random "kill@$rank:$op#$iteration" --checkpoint-every 2
kill_and_resume in_carry "kill@$((RANKS - 1)):carry#$((TIMES / 2))" --checkpoint-every 1
kill_and_resume in_checkpoint "kill@$((RANKS - 1)):checkpoint#3" --checkpoint-every 1

# A checkpoint is the plan's and the ranks' own: another plan is refused, naming the file.
plans=$("$TRA" plan "$WF" --sites "$RANKS" --top 2 | grep -c '^[0-9]' || true)
if [ "$plans" -ge 2 ]; then
    rm -rf other other.ck
    run other --checkpoint other.ck --checkpoint-every 1 --plan 1
    TRA_FAULT="kill@0:0#3" run other --checkpoint other.ck --checkpoint-every 1 --plan 1
    run other --resume other.ck --plan 2
    [ "$rc" -eq 2 ] || { cat other.log >&2; fail "other: resuming another plan's checkpoint gave $rc, not 2"; }
    grep -q "other.ck/checkpoint.h5 was written by plan" other.log ||
        fail "other: the refusal does not name the checkpoint: $(cat other.log)"
fi

# --checkpoint needs a loop.
rc=0
timeout 60 "$MPIEXEC" -n "$RANKS" "$TRA" run "$SRC/plans/models/mlp_train.yaml" --out-dir none \
    --checkpoint none.ck > none.log 2>&1 || rc=$?
[ "$rc" -eq 2 ] || { cat none.log >&2; fail "--checkpoint without repeat: gave $rc, not 2"; }
grep -q "has no repeat:" none.log || fail "--checkpoint without repeat: $(cat none.log)"
[ ! -e none/out/mlp_train.h5 ] || fail "--checkpoint without repeat: wrote an output"
# A block-sparse carry: the checkpoint holds only its tiles' chunks (as many as the sparse output
# of the same relation), and resuming from it gives the uninterrupted run's outputs bit for bit.
cat > sparse_loop.yaml << 'EOF'
name: sparse_loop
dtype: f64
inputs:
  W: {shape: [64, 64], tile: [8, 8], generate: {uniform: [-1, 1], seed: 5, density: 0.3}}
  X: {shape: [64, 16], tile: [8, 8], generate: {uniform: [-1, 1], seed: 6}}
program:
  - Y: {einsum: "ij,jk->ik", inputs: [W, X]}
  - Wn: {transform: W, kernel: scale(0.5)}
repeat: {times: 6, carry: {W: Wn}}
outputs:
  Y: {file: out/Y.h5}
  Wn: {file: out/Wn.h5, sparse: true}
EOF
sparse_run() {
    local name=$1
    shift
    rc=0
    timeout 120 "$MPIEXEC" -n "$RANKS" "$TRA" run sparse_loop.yaml --threads 1 --out-dir "$name" \
        "$@" < /dev/null > "$name.log" 2>&1 || rc=$?
    [ "$rc" -eq 0 ] || { cat "$name.log" >&2; fail "$name: exited with $rc"; }
}
sparse_run sparse_full --check
sparse_run sparse_ck --checkpoint sparse.ck --checkpoint-every 2
sparse_run sparse_resumed --resume sparse.ck
grep -q "^resume: .* after iteration 4 of 6" sparse_resumed.log ||
    fail "sparse: did not resume after iteration 4: $(grep '^resume' sparse_resumed.log)"
for f in Y Wn; do
    h5diff -q "sparse_full/out/$f.h5" "sparse_resumed/out/$f.h5" ||
        fail "sparse: the resumed $f differs from the uninterrupted run's"
done
"$PY" - sparse.ck/checkpoint.h5 sparse_full/out/Wn.h5 << 'PY' || fail "sparse: the checkpoint's carry is not sparse"
import sys
import h5py
with h5py.File(sys.argv[1]) as ck, h5py.File(sys.argv[2]) as out:
    carried, written = ck["carry/W"].id.get_num_chunks(), out["Wn"].id.get_num_chunks()
    assert 0 < carried == written < 64, (carried, written)
PY

echo "loop_resume: ok on $RANKS ranks"
