#!/usr/bin/env bash
# The committed expected outputs data/examples/*/expected.h5 are what tools/reference/examples.py
# computes now (plain numpy, independent of tra): regenerate them into WORK_DIR and tra diff each
# dataset with the committed one, so a change to the numpy script, the workflows' inputs or the
# committed data that is not followed by a regeneration is caught.
# Usage: bash test_examples_numpy.sh TRA_BINARY SOURCE_DIR WORK_DIR   (env TRA_PYTHON)
set -euo pipefail

# shellcheck source=tests/test_helpers.bash
source "$(dirname "${BASH_SOURCE[0]}")/../test_helpers.bash" cli examples_numpy "$@"

script="$SRC/tools/reference/examples.py"
[ -f "$script" ] || fail "no tools/reference/examples.py under '$SRC'"
"$PY" -c 'import numpy, h5py, yaml' 2>/dev/null || fail "'$PY' lacks numpy, h5py or yaml (set TRA_PYTHON)"

enter_work_dir
mkdir fresh

rc=0
"$PY" "$script" --out "$WORK/fresh" > "$WORK/examples.log" 2>&1 || rc=$?
[ "$rc" -eq 0 ] || { cat "$WORK/examples.log" >&2; fail "'$PY $script --out $WORK/fresh' exited with $rc"; }

# Every workflow has an example in the script, and every example a workflow.
names=$("$PY" "$script" --list | sort)
shopt -s nullglob
plans=$(for wf in "$SRC"/plans/examples/*.yaml; do basename "$wf" .yaml; done | sort)
[ "$names" = "$plans" ] || fail "examples.py knows [$(tr '\n' ' ' <<< "$names")], plans/examples has [$(tr '\n' ' ' <<< "$plans")]"

checked=0
for name in $names; do
    fresh="$WORK/fresh/$name/expected.h5"
    committed="$SRC/data/examples/$name/expected.h5"
    [ -f "$fresh" ] || fail "$name: examples.py wrote no $fresh"
    [ -f "$committed" ] || fail "$name: no committed $committed (run tools/reference/examples.py $name)"
    # Both files hold the same datasets (a stale extra one in the committed file is an error too).
    datasets=$("$PY" -c 'import sys, h5py; print(" ".join("/" + k for k in sorted(h5py.File(sys.argv[1], "r"))))' "$fresh")
    have=$("$PY" -c 'import sys, h5py; print(" ".join("/" + k for k in sorted(h5py.File(sys.argv[1], "r"))))' "$committed")
    [ -n "$datasets" ] || fail "$name: examples.py wrote no datasets to $fresh"
    [ "$datasets" = "$have" ] || fail "$name: committed $committed holds [$have], examples.py computes [$datasets]; rerun '$PY tools/reference/examples.py $name'"
    for ds in $datasets; do
        # Bitwise equality is expected (same numpy, same inputs); allow only rounding noise from a
        # different numpy/BLAS build.
        rc=0
        "$TRA" diff "$committed:$ds" "$fresh:$ds" --rtol 1e-12 --atol 1e-14 > "$WORK/$name.diff.log" 2>&1 || rc=$?
        if [ "$rc" -ne 0 ]; then
            cat "$WORK/$name.diff.log" >&2
            fail "$name$ds: committed $committed differs from what examples.py computes now; if the change is intended, rerun '$PY tools/reference/examples.py $name' and commit"
        fi
        checked=$((checked + 1))
    done
done

echo "examples_numpy: ok ($checked datasets)"
