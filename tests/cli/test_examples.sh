#!/usr/bin/env bash
# Every workflow in plans/examples/ validates, runs with --reference into a fresh folder, and each
# of its outputs equals the committed numpy result data/examples/NAME/expected.h5:/OUTPUT (tra diff,
# default tolerances; a loop's observations /OUTPUT@K likewise). Needs no python: the expected
# files are committed (tools/reference/examples.py makes them; test_examples_numpy.sh checks they
# are up to date).
# Usage: bash test_examples.sh TRA_BINARY SOURCE_DIR WORK_DIR
set -euo pipefail

# shellcheck source=tests/test_helpers.bash
source "$(dirname "${BASH_SOURCE[0]}")/../test_helpers.bash" cli examples "$@"

[ -d "$SRC/plans/examples" ] || fail "no plans/examples under '$SRC'"

enter_work_dir

shopt -s nullglob
workflows=("$SRC"/plans/examples/*.yaml)
[ "${#workflows[@]}" -gt 0 ] || fail "no workflows in $SRC/plans/examples"

checked=0
for wf in "${workflows[@]}"; do
    name=$(basename "$wf" .yaml)
    out="$WORK/$name"
    expected="$SRC/data/examples/$name/expected.h5"
    [ -f "$expected" ] || fail "$name: no expected outputs $expected (make them with tools/reference/examples.py $name)"

    rc=0
    "$TRA" validate "$wf" > "$WORK/$name.validate.log" 2>&1 || rc=$?
    [ "$rc" -eq 0 ] || { cat "$WORK/$name.validate.log" >&2; fail "$name: 'tra validate $wf' exited with $rc"; }
    declared=$(grep -c '^output ' "$WORK/$name.validate.log" || true)
    [ "$declared" -gt 0 ] || { cat "$WORK/$name.validate.log" >&2; fail "$name: validate lists no outputs"; }

    rc=0
    "$TRA" run "$wf" --reference --out-dir "$out" > "$WORK/$name.run.log" 2>&1 || rc=$?
    [ "$rc" -eq 0 ] || { cat "$WORK/$name.run.log" >&2; fail "$name: 'tra run $wf --reference --out-dir $out' exited with $rc"; }

    # "wrote NAME to FILE:/DATASET" for every output actually written.
    written=0
    while read -r output location; do
        written=$((written + 1))
        case "$location" in
            "$out"/*) ;;
            *) fail "$name: output $output written to '$location', outside --out-dir $out" ;;
        esac
        # The expected dataset is named like the written one: /OUTPUT, or /OUTPUT@K for a loop's
        # observation after iteration K (an output with `every:`).
        dataset=${location##*/}
        rc=0
        "$TRA" diff "$location" "$expected:/$dataset" > "$WORK/$name.$dataset.diff.log" 2>&1 || rc=$?
        if [ "$rc" -ne 0 ]; then
            cat "$WORK/$name.$dataset.diff.log" >&2
            fail "$name: output $output ($location) differs from $expected:/$dataset (tra diff exited $rc)"
        fi
        echo "$name/$dataset: $(cat "$WORK/$name.$dataset.diff.log")"
        checked=$((checked + 1))
    done < <(outputs_written "$WORK/$name.run.log")
    [ "$written" -eq "$declared" ] || { cat "$WORK/$name.run.log" >&2; fail "$name: the workflow declares $declared outputs, the run reported writing $written"; }
    leftovers=$(find "$out" -name '*.tmp*')
    [ -z "$leftovers" ] || fail "$name: temporary files left behind: $leftovers"
done

echo "examples: ok (${#workflows[@]} workflows, $checked outputs)"
