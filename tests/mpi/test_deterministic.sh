#!/usr/bin/env bash
# `tra run` is deterministic for a given plan and rank count, and never modifies its inputs: for
# the matmul (a committed input file) and FFNN (sums over many tiles) examples and their first
# and last plans for RANKS sites, two runs under mpiexec give bit-identical outputs (tra diff
# with both tolerances 0), and the committed input files keep their checksums.
# Usage: bash test_deterministic.sh TRA_BINARY SOURCE_DIR WORK_DIR RANKS MPIEXEC
set -euo pipefail

# shellcheck source=tests/test_helpers.bash
source "$(dirname "${BASH_SOURCE[0]}")/../test_helpers.bash" mpi deterministic "$@"

enter_work_dir

# run NAME ARGS...: `mpiexec -n RANKS tra run ARGS`, which must succeed within 120 s.
run() {
    local name=$1 rc=0
    shift
    timeout 120 "$MPIEXEC" -n "$RANKS" "$TRA" run "$@" > "$name.log" 2>&1 || rc=$?
    [ "$rc" -ne 124 ] || fail "$name hung (killed after 120 s)"
    [ "$rc" -eq 0 ] || { cat "$name.log" >&2; fail "$name exited with $rc"; }
}

for name in matmul ffnn; do
    wf="$SRC/plans/examples/$name.yaml"
    inputs=$(find "$SRC/data/examples/$name" -name '*.h5' ! -name expected.h5 | sort)
    before=$(cat /dev/null $inputs | sha256sum)
    rc=0
    timeout 120 "$MPIEXEC" -n "$RANKS" "$TRA" run "$wf" --plan 1000000000 --out-dir count \
        > "$name.count.log" 2>&1 || rc=$?
    K=$(sed -n 's/.*there are \([0-9]*\) plans.*/\1/p' "$name.count.log" | head -1)
    [ -n "$K" ] || { cat "$name.count.log" >&2; fail "$name: cannot tell how many plans there are"; }
    for n in $(printf '%s\n' 1 "$K" | sort -nu); do
        run "$name.p$n.a" "$wf" --plan "$n" --out-dir "$name.p$n.a"
        run "$name.p$n.b" "$wf" --plan "$n" --out-dir "$name.p$n.b"
        outputs=$(sed -n 's/^wrote \([^ ]*\) to \(.*\)$/\2/p' "$name.p$n.a.log")
        [ -n "$outputs" ] || { cat "$name.p$n.a.log" >&2; fail "$name plan $n wrote no outputs"; }
        for location in $outputs; do
            other=${location/#$name.p$n.a/$name.p$n.b}
            "$TRA" diff "$location" "$other" --rtol 0 --atol 0 > "$name.p$n.diff" 2>&1 || {
                cat "$name.p$n.diff" >&2
                fail "$name plan $n: two runs differ in $location"
            }
        done
    done
    [ "$(cat /dev/null $inputs | sha256sum)" = "$before" ] || fail "$name: a run modified an input file"
    echo "$name: plans 1 and $K bit-identical across two runs on $RANKS ranks"
done
echo "deterministic: ok"
