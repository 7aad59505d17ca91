#!/usr/bin/env bash
# The output writers (docs/runtime.md, "Writing outputs") make the same files byte for byte:
# the run's outputs written in rank turns (TRA_OUTPUT_WRITER=turns), and, with a parallel HDF5,
# by every rank at once with collective or independent MPI-IO transfers, at RANKS ranks, equal
# (cmp) the outputs of a one-rank run. The workflow has two outputs in one file (one in a group)
# and a one-tile output (most ranks write nothing); a loop's observations (`every:`), whose
# files stay open from one observation to the next, likewise. A fault at the write (for the loop
# at a later observation, its files open) leaves no output at its final name and no temporary
# file, with every writer; an unknown writer is refused.
# Usage: bash test_output_writers.sh TRA_BINARY SOURCE_DIR WORK_DIR RANKS MPIEXEC
set -euo pipefail

# shellcheck source=tests/test_helpers.bash
source "$(dirname "${BASH_SOURCE[0]}")/../test_helpers.bash" mpi output_writers "$@"
LAST=$((RANKS - 1))

enter_work_dir
count_failures

cat > w.yaml <<'YAML'
name: writers
dtype: f64
inputs:
  A: {shape: [50, 30], tile: [10, 6], generate: {uniform: [-1, 1], seed: 1}}
  B: {shape: [30, 21], tile: [6, 7], generate: {uniform: [-1, 1], seed: 2}}
  X: {shape: [5, 3], tile: [5, 3], generate: {uniform: [-1, 1], seed: 3}}
program:
  - C: {einsum: "ik,kj->ij", inputs: [A, B]}
  - R: {transform: A, kernel: relu}
  - E: {transform: X, kernel: relu}
outputs:
  C: {file: out/CR.h5, dataset: /C}
  R: {file: out/CR.h5, dataset: /grp/R}
  E: {file: out/E.h5}
YAML

cat > loop.yaml <<'YAML'
name: observed
dtype: f64
inputs:
  X: {shape: [12, 6], tile: [4, 3], generate: {uniform: [-1, 1], seed: 4}}
program:
  - Y: {transform: X, kernel: scale(0.5)}
  - S: {transform: Y, kernel: relu}
  - T: {transform: Y, kernel: exp}
repeat: {times: 7, carry: {X: Y}}
outputs:
  S: {file: out/obs.h5, every: 2}
  Y: {file: out/obs.h5}
  T: {file: out/T.h5, every: 3}
YAML

# run NAME RANKS [env...]: `tra run w.yaml --out-dir NAME` under mpiexec; sets rc.
run() {
    local name=$1 n=$2
    shift 2
    rc=0
    env "$@" timeout 120 "$MPIEXEC" -n "$n" "$TRA" run "${WF:-w.yaml}" --out-dir "$name" \
        > "$name.log" 2>&1 || rc=$?
    [ "$rc" -ne 124 ] || fail "$name hung (killed after 120 s)"
}

run one 1 TRA_OUTPUT_WRITER=turns
[ "$rc" -eq 0 ] || { cat one.log >&2; fail "the one-rank run exited with $rc"; }
WF=loop.yaml run loop.one 1 TRA_OUTPUT_WRITER=turns
[ "$rc" -eq 0 ] || { cat loop.one.log >&2; fail "the loop's one-rank run exited with $rc"; }

writers="turns"
"$TRA" --version | grep -qi 'hdf5.*parallel' && writers="turns collective independent"
for w in $writers; do
    run "$w" "$RANKS" TRA_OUTPUT_WRITER="$w"
    [ "$rc" -eq 0 ] || { cat "$w.log" >&2; fail "$w: exited with $rc"; continue; }
    for f in CR.h5 E.h5; do
        cmp "one/out/$f" "$w/out/$f" || fail "$w: out/$f differs from the one-rank run's"
    done
    echo "$w: outputs byte-identical to the one-rank run's"

    WF=loop.yaml run "loop.$w" "$RANKS" TRA_OUTPUT_WRITER="$w"
    [ "$rc" -eq 0 ] || { cat "loop.$w.log" >&2; fail "loop.$w: exited with $rc"; continue; }
    for f in obs.h5 T.h5; do
        cmp "loop.one/out/$f" "loop.$w/out/$f" ||
            fail "loop.$w: out/$f differs from the one-rank run's"
    done
    echo "loop.$w: observations byte-identical to the one-rank run's"

    WF=loop.yaml run "loop.fault.$w" "$RANKS" TRA_OUTPUT_WRITER="$w" TRA_FAULT="error@$LAST:write#4"
    [ "$rc" -ne 0 ] || fail "loop.fault.$w: exited with 0"
    grep -q "injected fault" "loop.fault.$w.log" ||
        { cat "loop.fault.$w.log" >&2; fail "loop.fault.$w: no message"; }
    [ -z "$(find "loop.fault.$w" -name '*.h5*' 2> /dev/null)" ] ||
        fail "loop.fault.$w: files left: $(find "loop.fault.$w" -name '*.h5*')"

    run "fault.$w" "$RANKS" TRA_OUTPUT_WRITER="$w" TRA_FAULT="error@$LAST:write"
    [ "$rc" -ne 0 ] || fail "fault.$w: exited with 0"
    grep -q "injected fault" "fault.$w.log" || { cat "fault.$w.log" >&2; fail "fault.$w: no message"; }
    [ -z "$(find "fault.$w" -name '*.h5*' 2> /dev/null)" ] ||
        fail "fault.$w: files left: $(find "fault.$w" -name '*.h5*')"
done

run unknown "$RANKS" TRA_OUTPUT_WRITER=sideways
[ "$rc" -ne 0 ] && grep -q "TRA_OUTPUT_WRITER is turns" unknown.log ||
    { cat unknown.log >&2; fail "an unknown TRA_OUTPUT_WRITER was not refused"; }
[ ! -e unknown/out/E.h5 ] || fail "unknown: an output appeared"

finish_counted "output_writers: ok ($writers)"
