#!/usr/bin/env bash
# The TRA paper's section 6 workflows (plans/paper/): every full-size and scaled workflow passes
# `tra validate`; every scaled one runs with `tra run --reference` and its outputs equal numpy's
# (plans/paper/check_scaled.py, inputs written by `tra gen`, whose values equal
# tools/reference/tragen.py bit for bit: tests/cli/test_generator_numpy.sh).
# Plan pinning and --cost paper checks (Tables 4, 6, 9) come with `tra plan`; their spec is
# plans/paper/README.md.
# Usage: bash test_paper_workflows.sh TRA_BINARY SOURCE_DIR WORK_DIR   (env TRA_PYTHON)
set -euo pipefail

# shellcheck source=tests/test_helpers.bash
source "$(dirname "${BASH_SOURCE[0]}")/../test_helpers.bash" cli paper_workflows "$@"

checker="$SRC/plans/paper/check_scaled.py"
[ -f "$checker" ] || fail "no plans/paper/check_scaled.py under '$SRC'"
"$PY" -c 'import numpy, h5py, yaml' 2>/dev/null || fail "'$PY' lacks numpy, h5py or yaml (set TRA_PYTHON)"

enter_work_dir

names="mm-general mm-common-k mm-two-large nn-large nn-wide ffnn-speech ffnn-xml"

# Every paper experiment exists at full size and scaled, with a top-level `sites: N` field; nothing else.
shopt -s nullglob
expect=$(for n in $names; do echo "$n.yaml"; echo "scaled/$n.yaml"; done | sort)
have=$(cd "$SRC/plans/paper" && for f in *.yaml scaled/*.yaml; do echo "$f"; done | sort)
[ "$expect" = "$have" ] || fail "plans/paper holds [$(tr '\n' ' ' <<< "$have")], expected [$(tr '\n' ' ' <<< "$expect")]"

for f in $have; do
    wf="$SRC/plans/paper/$f"
    grep -Eq '^sites: [0-9]+$' "$wf" || fail "$f has no 'sites: N' field"
    rc=0
    "$TRA" validate "$wf" > "$WORK/validate.log" 2>&1 || rc=$?
    [ "$rc" -eq 0 ] || { cat "$WORK/validate.log" >&2; fail "tra validate $f exited with $rc"; }
done

# Full-size tilings the README's closed forms rely on (frontiers as validate prints them).
frontier() {  # frontier FILE RELATION
    "$TRA" validate "$SRC/plans/paper/$1" | awk -v r="$2" '$1 == r' | sed -E 's/.*\) f(32|64) +(\[[^]]*\]).*/\2/'
}
for n in mm-general mm-common-k mm-two-large; do
    [ "$(frontier $n.yaml AB)" = "[5, 10, 5]" ] || fail "$n: AB frontier is '$(frontier $n.yaml AB)', expected [5, 10, 5] (nI = nJ = 5, nK = s = 10)"
done
for n in nn-large nn-wide; do
    [ "$(frontier $n.yaml projj)" = "[8, 8, 8]" ] || fail "$n: projj frontier is '$(frontier $n.yaml projj)', expected [8, 8, 8] (nD = s = 8)"
done

# Scaled runs, checked against numpy.
for n in $names; do
    wf="$SRC/plans/paper/scaled/$n.yaml"
    rc=0
    "$TRA" gen "$wf" --out-dir "$WORK/gen/$n" > "$WORK/gen-$n.log" 2>&1 || rc=$?
    [ "$rc" -eq 0 ] || { cat "$WORK/gen-$n.log" >&2; fail "tra gen scaled/$n.yaml exited with $rc"; }
    start=$(date +%s%N)
    "$TRA" run "$wf" --reference --out-dir "$WORK/run/$n" > "$WORK/run-$n.log" 2>&1 || rc=$?
    [ "$rc" -eq 0 ] || { cat "$WORK/run-$n.log" >&2; fail "tra run scaled/$n.yaml --reference exited with $rc"; }
    end=$(date +%s%N)
    "$PY" "$checker" "$wf" "$WORK/run/$n" --inputs "$WORK/gen/$n" > "$WORK/check-$n.log" 2>&1 || rc=$?
    [ "$rc" -eq 0 ] || { cat "$WORK/check-$n.log" >&2; fail "scaled/$n.yaml: outputs differ from numpy"; }
    ms=$(( (end - start) / 1000000 ))
    printf '%-14s tra run --reference: %d.%03d s\n' "$n" $((ms / 1000)) $((ms % 1000))
    cat "$WORK/check-$n.log"
    rm -rf "$WORK/gen/$n" "$WORK/run/$n"
done
echo "paper_workflows: ok"
