#!/usr/bin/env bash
# `tra run --reference` is the single-process oracle: under `MPIEXEC -n 1` it runs and its outputs
# equal the committed numpy results; under more ranks every rank refuses with exit 2 and a message
# that says why, and nothing is written.
# Usage: bash test_reference_refuses_ranks.sh TRA_BINARY SOURCE_DIR WORK_DIR RANKS MPIEXEC
# (ctest sets OMPI_ALLOW_RUN_AS_ROOT*, oversubscription and no binding in the environment.)
set -euo pipefail

# shellcheck source=tests/test_helpers.bash
source "$(dirname "${BASH_SOURCE[0]}")/../test_helpers.bash" mpi reference_refuses_ranks "$@"

enter_work_dir

examples=(matmul nn_search)

if [ "$RANKS" -eq 1 ]; then
    for name in "${examples[@]}"; do
        wf="$SRC/plans/examples/$name.yaml"
        expected="$SRC/data/examples/$name/expected.h5"
        rc=0
        timeout 120 "$MPIEXEC" -n 1 "$TRA" run "$wf" --reference --out-dir "$name" > "$name.log" 2>&1 || rc=$?
        [ "$rc" -eq 0 ] || { cat "$name.log" >&2; fail "'$MPIEXEC -n 1 tra run $wf --reference' exited with $rc"; }
        written=0
        while read -r output location; do
            written=$((written + 1))
            rc=0
            "$TRA" diff "$location" "$expected:/$output" > "$name.$output.diff" 2>&1 || rc=$?
            [ "$rc" -eq 0 ] || { cat "$name.$output.diff" >&2; fail "$name: $location differs from $expected:/$output"; }
            echo "$name/$output: $(cat "$name.$output.diff")"
        done < <(outputs_written "$name.log")
        [ "$written" -gt 0 ] || { cat "$name.log" >&2; fail "$name: the run reported no outputs written"; }
    done
    echo "reference_refuses_ranks: ok (1 rank runs)"
    exit 0
fi

wf="$SRC/plans/examples/matmul.yaml"

# As a user would launch it: the launcher's exit status is 2 and the reason is printed.
rc=0
timeout 120 "$MPIEXEC" -n "$RANKS" "$TRA" run "$wf" --reference --out-dir direct > direct.log 2>&1 || rc=$?
[ "$rc" -ne 124 ] || fail "'$MPIEXEC -n $RANKS tra run --reference' hung (killed after 120 s)"
[ "$rc" -eq 2 ] || { cat direct.log >&2; fail "'$MPIEXEC -n $RANKS tra run $wf --reference' exited with $rc, expected 2"; }
grep -q -- "--reference" direct.log || { cat direct.log >&2; fail "the refusal does not mention --reference"; }
grep -q "ranks" direct.log || { cat direct.log >&2; fail "the refusal does not mention the ranks"; }
[ ! -e direct ] || [ -z "$(find direct -type f)" ] || fail "a refused run wrote files: $(find direct -type f)"

# Every rank on its own: each wrapper records tra's exit status and output, then exits 0 so that
# the launcher does not abort the other ranks before they report.
rc=0
# shellcheck disable=SC2016  # the script is expanded by each rank's bash, not here
timeout 120 "$MPIEXEC" -n "$RANKS" bash -c '
    rank=${OMPI_COMM_WORLD_RANK:-${PMIX_RANK:-${PMI_RANK:-unknown}}}
    rc=0
    "$0" run "$1" --reference --out-dir "$2" > "rank.$rank.log" 2>&1 || rc=$?
    echo "$rc" > "rank.$rank.rc"
    exit 0' "$TRA" "$wf" "$PWD/ranks" > ranks.log 2>&1 || rc=$?
[ "$rc" -eq 0 ] || { cat ranks.log >&2; fail "the per-rank wrapper under $MPIEXEC -n $RANKS exited with $rc"; }
for ((r = 0; r < RANKS; r++)); do
    [ -f "rank.$r.rc" ] || { cat ranks.log >&2; fail "rank $r did not report (no rank.$r.rc)"; }
    [ "$(cat "rank.$r.rc")" -eq 2 ] || { cat "rank.$r.log" >&2; fail "rank $r exited with $(cat "rank.$r.rc"), expected 2"; }
    grep -q -- "--reference" "rank.$r.log" || { cat "rank.$r.log" >&2; fail "rank $r's message does not mention --reference"; }
done
[ ! -e ranks ] || [ -z "$(find ranks -type f)" ] || fail "a refused run wrote files: $(find ranks -type f)"
leftovers=$(find . -name '*.tmp*')
[ -z "$leftovers" ] || fail "temporary files left behind: $leftovers"

echo "reference_refuses_ranks: ok ($RANKS ranks refused with exit 2)"
