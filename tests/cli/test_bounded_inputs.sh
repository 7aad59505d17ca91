#!/usr/bin/env bash
# Inputs that once made tra allocate without bound: 1e8 tiles (100000 x 100000 in 10 x 10), a
# shape of 2^32 x 2^32 in 1 x 1 tiles, and a tile of 2^64 bytes. Under a 1 GB address-space limit
# (`ulimit -v`, skipped under AddressSanitizer, which reserves far more address space): validate
# holds dense relations as boxes, so it checks 1e8 and 2^59 tiles and prints their counts; plan
# and run visit every key, so they exit 2 with an error naming the file, line and field and
# suggesting coarser tiles; validate also exits 2 where it would list the keys (a filter of 1e8
# tiles) or no 64-bit count holds them (2^64 tiles, 2^64 bytes). --max-tuples and
# TRA_MAX_TUPLES move the limit. The timeout only catches a hang; nothing here is timed.
# Usage: bash test_bounded_inputs.sh TRA_BINARY SOURCE_DIR WORK_DIR
set -uo pipefail

# shellcheck source=tests/test_helpers.bash
source "$(dirname "${BASH_SOURCE[0]}")/../test_helpers.bash" cli bounded_inputs "$@"
: "$SRC"

count_failures

enter_work_dir

one_input() {  # NAME SHAPE TILE
    cat > "$1.yaml" <<EOF
name: $1
inputs:
  A: {shape: $2, tile: $3, generate: {uniform: [0, 1], seed: 1}}
program:
  - B: {transform: A, kernel: relu}
outputs:
  B: {file: out/B.h5}
EOF
}
one_input many_tiles "[100000, 100000]" "[10, 10]"
one_input overflow "[4294967296, 4294967296]" "[1, 1]"
one_input huge_tile "[4294967296, 4294967296]" "[4294967296, 4294967296]"
one_input two_to_59 "[536870912, 1073741824]" "[1, 1]"
cat > filtered.yaml <<EOF
name: filtered
inputs:
  A: {shape: [100000, 100000], tile: [10, 10], generate: {uniform: [0, 1], seed: 1}}
program:
  - F: {filter: A, where: "k0 == k1"}
EOF

limit_memory=1
if [ -n "${ASAN_OPTIONS:-}" ]; then
    echo "not limiting the address space: AddressSanitizer (ASAN_OPTIONS is set) reserves more"
    limit_memory=0
fi

# expect_refusal CASE WANT ARGS...: `tra ARGS` exits 2 with WANT in its one error line.
expect_refusal() {
    local case=$1 want=$2
    shift 2
    local rc=0
    (
        [ "$limit_memory" -eq 1 ] && ulimit -v 1048576
        exec timeout 120 "$TRA" "$@"
    ) > "$case.out" 2> "$case.err" || rc=$?
    [ "$rc" -eq 2 ] || fail "$case: tra $* exited $rc, not 2: $(cat "$case.err")"
    grep -qF -- "$want" "$case.err" || fail "$case: '$want' not in: $(cat "$case.err")"
    [ ! -e out ] || fail "$case: an output folder was created"
}

# expect_validated CASE WANT: `tra validate CASE.yaml` exits 0 with WANT in its table.
expect_validated() {
    local case=$1 want=$2
    local rc=0
    (
        [ "$limit_memory" -eq 1 ] && ulimit -v 1048576
        exec timeout 120 "$TRA" validate "$case.yaml"
    ) > "$case.out" 2> "$case.err" || rc=$?
    [ "$rc" -eq 0 ] || fail "$case: tra validate exited $rc, not 0: $(cat "$case.err")"
    grep -qE -- "$want" "$case.out" || fail "$case: '$want' not in: $(cat "$case.out")"
    [ ! -e out ] || fail "$case: an output folder was created"
}

# Dense relations are boxes to validate: A and B of 1e8 (and 2^59) tiles, counted, not listed.
expect_validated many_tiles "^B +transform +A +.* 100000000 +80000000000 "
expect_validated two_to_59 "^B +transform +A +.* 576460752303423488 +4611686018427387904 "

where_many="many_tiles.yaml:3:38: inputs.A.tile: A has more tuples (tiles) (100000000) than the limit of 10000000"
expect_refusal plan_many "$where_many" plan many_tiles.yaml --sites 4
expect_refusal plan_hint "e.g. tile: [40, 40] (6250000 tiles)" plan many_tiles.yaml --sites 4
expect_refusal run_many "$where_many" run many_tiles.yaml --reference
expect_refusal run_hint "e.g. tile: [40, 40] (6250000 tiles)" run many_tiles.yaml --reference
# A filter lists the keys it keeps, so validate refuses to filter 1e8 tiles.
expect_refusal validate_filter \
    "filtered.yaml:5:27: program[0].F.where: A has more tuples (tiles) (100000000) than the limit" \
    validate filtered.yaml
expect_refusal validate_overflow "overflow.yaml:3:46: inputs.A.tile: A has more tuples (tiles) than" \
    validate overflow.yaml
expect_refusal plan_overflow "overflow.yaml:3:46: inputs.A.tile: A has more tuples (tiles) than" \
    plan overflow.yaml --sites 4
expect_refusal validate_tile_bytes "has more bytes than 64 bits count" validate huge_tile.yaml

# The limit is the user's: lower (flag or environment) refuses a workflow the default accepts,
# and the flag wins over the environment; validate passes the dense workflow under any limit.
one_input small "[100, 100]" "[10, 10]"
expect_refusal max_tuples_flag "than the limit of 50 (--max-tuples" plan small.yaml --sites 4 \
    --max-tuples 50
TRA_MAX_TUPLES=50 expect_refusal max_tuples_env "than the limit of 50" plan small.yaml --sites 4
"$TRA" plan small.yaml --sites 4 > small.log 2>&1 || fail "small.yaml: plan failed: $(cat small.log)"
"$TRA" validate small.yaml --max-tuples 50 > small_validate.log 2>&1 ||
    fail "small.yaml: validate refused a dense workflow: $(cat small_validate.log)"
TRA_MAX_TUPLES=50 "$TRA" plan small.yaml --sites 4 --max-tuples 100 > flag.log 2>&1 ||
    fail "--max-tuples 100 did not override TRA_MAX_TUPLES=50: $(cat flag.log)"
expect_refusal bad_flag "max-tuples" validate small.yaml --max-tuples 0

finish_counted "bounded_inputs: ok"
