#!/usr/bin/env bash
# `tra run --verify` (lib/runtime/output_verification.hpp, docs/reliability.md): for every
# workflow in plans/examples and plans/paper/scaled (the paper ones shrunk: the same tile grids,
# tiles a tenth as wide, so the plans keep their shape), one plan under `mpiexec -n RANKS`:
#   - without a fault, --verify passes and says so in one line, and the outputs are written;
#   - for one output (the one at index RANKS modulo their count, so the rank counts 1-4 between
#     them corrupt every output of every workflow: at most 3 each), TRA_FAULT=corrupt@R:N, N the
#     output's producing IA node as `tra explain` lists it ("output C <- #N"), flips one element
#     of one tile N produces on rank R: the run exits 1 with one error naming the output, and no
#     output appears at its final name. (One corrupted output per run keeps a rank count near a
#     minute on two cores: most of a run is mpiexec's start.)
# R is the first rank that produces a tile of N (the hook fails, saying so, on a rank that
# produces none).
# Usage: bash test_verify.sh TRA_BINARY SOURCE_DIR WORK_DIR RANKS MPIEXEC
set -euo pipefail

# shellcheck source=tests/test_helpers.bash
source "$(dirname "${BASH_SOURCE[0]}")/../test_helpers.bash" mpi verify "$@"
count_failures
enter_work_dir

# shrink WORKFLOW OUT: OUT is WORKFLOW with every tile dimension divided by 10 (at least 1) and
# every shape the same grid of the smaller tiles; file inputs' paths made absolute.
shrink() {
    "$PY" - "$1" "$2" << 'PYEOF'
import os, re, sys
src, out = sys.argv[1], sys.argv[2]
text = open(src).read()
def fix(m):
    shape = [int(x) for x in m.group(1).split(",")]
    tile = [int(x) for x in m.group(2).split(",")]
    small = [max(1, t // 10) for t in tile]
    grid = [-(-s // t) for s, t in zip(shape, tile)]
    new = [g * t for g, t in zip(grid, small)]
    return "shape: [%s], tile: [%s]" % (", ".join(map(str, new)), ", ".join(map(str, small)))
text = re.sub(r"shape: \[([0-9, ]+)\], tile: \[([0-9, ]+)\]", fix, text)
base = os.path.dirname(os.path.abspath(src))
text = re.sub(r"file: (\.\./[^,}]+)", lambda m: "file: " + os.path.normpath(os.path.join(base, m.group(1))), text)
open(out, "w").write(text)
PYEOF
}

# run NAME WORKFLOW [env...]: tra run --verify under mpiexec; sets rc, NAME.out, NAME.err.
run() {
    local name=$1 wf=$2
    shift 2
    rc=0
    env "$@" timeout 60 "$MPIEXEC" -n "$RANKS" "$TRA" run "$wf" --verify --plan 1 \
        --out-dir "$name" --report "$name.report.json" > "$name.out" 2> "$name.err" || rc=$?
}

# --verify checks a distributed run: with the reference evaluator it is bad input (exit 2).
rc=0
"$TRA" run "$SRC/plans/examples/diag.yaml" --reference --verify --out-dir refused > refused.out 2>&1 || rc=$?
[ "$rc" -eq 2 ] && grep -q -- "--verify checks a distributed run" refused.out ||
    fail "--reference --verify: exit $rc, expected 2 with a message: $(cat refused.out)"
[ ! -e refused ] || fail "--reference --verify wrote something"

checked=0
for wf in "$SRC"/plans/examples/*.yaml "$SRC"/plans/paper/scaled/*.yaml; do
    name=$(basename "$wf" .yaml)
    case $wf in */paper/*) shrink "$wf" "$name.yaml" ;; *) cp "$wf" "$name.yaml" ;; esac
    sed -i -e "s|file: \.\./\.\./data|file: $SRC/data|" "$name.yaml"
    # The producing node of each output, from the plan `tra run --plan 1` runs.
    "$TRA" explain "$name.yaml" --sites "$RANKS" --plan 1 > "$name.explain" 2>&1 ||
        { fail "$name: tra explain failed: $(cat "$name.explain")"; continue; }
    mapfile -t produced < <(sed -n 's/^output \([^ ]*\) <- #\([0-9]*\) .*/\1 \2/p' "$name.explain")
    [ "${#produced[@]}" -gt 0 ] || { fail "$name: tra explain lists no output"; continue; }

    run "$name.ok" "$name.yaml"
    if [ "$rc" -ne 0 ]; then
        fail "$name: --verify without a fault exited $rc: $(cat "$name.ok.err")"
        continue
    fi
    lines=$(grep -c '^verify: passed: ' "$name.ok.out" || true)
    [ "$lines" -eq 1 ] || fail "$name: $lines 'verify: passed' lines, expected one"
    # The report's `verify`: the printed line and the check's seconds; the peak prediction
    # counts the operands the check keeps (measured <= predicted, as without --verify).
    /usr/bin/python3 - "$name.ok.report.json" "$name.ok.out" << 'PY' || fail "$name: the report's verify or peak is wrong (above)"
import json, sys
report = json.load(open(sys.argv[1]))
assert report["peak_bytes"] <= report["predicted_peak_bytes"], (report["peak_bytes"], report["predicted_peak_bytes"])
v = report["verify"]
line = next(l for l in open(sys.argv[2]) if l.startswith("verify: passed: "))
assert line.startswith(v["result"] + " ("), (v, line)
assert 0 <= v["seconds"] < 60, v
PY
    for entry in "${produced[@]}"; do
        out=${entry% *}
        grep -q "^wrote $out to " "$name.ok.out" || fail "$name: output $out was not written"
        grep -q "^verify: passed: .*$out (" "$name.ok.out" ||
            fail "$name: the verify line does not say how $out was verified"
    done

    # In a loop (`repeat:`) the fault hits iteration 2 (TRA_FAULT's #ITERATION, default 1): the
    # outputs and the carried values are checked after every iteration, so a corruption is
    # caught in the iteration it happens, not only in the last (docs/reliability.md).
    last=$(grep -q '^repeat:' "$name.yaml" && echo '#2' || true)
    for entry in "${produced[RANKS % ${#produced[@]}]}"; do
        out=${entry% *} node=${entry#* }
        caught=""
        for ((r = 0; r < RANKS; r++)); do
            tag="$name.$out.r$r"
            run "$tag" "$name.yaml" "TRA_FAULT=corrupt@$r:$node$last"
            grep -q "produces no tile of operator" "$tag.err" && continue
            caught=$tag
            break
        done
        [ -n "$caught" ] || { fail "$name: no rank produces a tile of #$node ($out)"; continue; }
        checked=$((checked + 1))
        [ "$rc" -eq 1 ] || { fail "$caught: corrupting #$node exited $rc, expected 1: $(cat "$caught.out" "$caught.err")"; continue; }
        errors=$(grep -c '^tra: error' "$caught.err" || true)
        [ "$errors" -eq 1 ] || fail "$caught: $errors error lines, expected one"
        grep -q "verify: \(in iteration 2: \)\?output $out failed verification" "$caught.err" ||
            fail "$caught: the error does not name output $out: $(cat "$caught.err")"
        if [ -d "$caught" ] && [ -n "$(find "$caught" -type f)" ]; then
            fail "$caught: files appeared although verification failed: $(find "$caught" -type f)"
        fi
    done
done
[ "$checked" -gt 0 ] || fail "no output was checked"
finish_counted "verify: ok ($checked outputs corrupted and caught on $RANKS ranks)"
