#!/usr/bin/env bash
# Inputs that once made tra allocate without bound: 1e8 tiles (100000 x 100000 in 10 x 10), a
# shape of 2^32 x 2^32 in 1 x 1 tiles, and a tile of 2^64 bytes. Under a 1 GB address-space limit
# (`ulimit -v`, skipped under AddressSanitizer, which reserves far more address space), validate,
# plan and run must each exit 2 with an error naming the file, line and field, and suggest
# coarser tiles; --max-tuples and TRA_MAX_TUPLES move the limit. The timeout only catches a hang.
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

where_many="many_tiles.yaml:3:38: inputs.A.tile: A has more tuples (tiles) (100000000) than the limit of 10000000"
expect_refusal validate_many "$where_many" validate many_tiles.yaml
expect_refusal validate_hint "e.g. tile: [40, 40] (6250000 tiles)" validate many_tiles.yaml
expect_refusal plan_many "$where_many" plan many_tiles.yaml --sites 4
expect_refusal run_many "$where_many" run many_tiles.yaml --reference
expect_refusal validate_overflow "overflow.yaml:3:46: inputs.A.tile: A has more tuples (tiles) than" \
    validate overflow.yaml
expect_refusal validate_tile_bytes "has more bytes than 64 bits count" validate huge_tile.yaml

# The limit is the user's: lower (flag or environment) refuses a workflow the default accepts,
# and the flag wins over the environment.
one_input small "[100, 100]" "[10, 10]"
expect_refusal max_tuples_flag "than the limit of 50 (--max-tuples" validate small.yaml --max-tuples 50
TRA_MAX_TUPLES=50 expect_refusal max_tuples_env "than the limit of 50" validate small.yaml
"$TRA" validate small.yaml > small.log 2>&1 || fail "small.yaml: validate failed: $(cat small.log)"
TRA_MAX_TUPLES=50 "$TRA" validate small.yaml --max-tuples 100 > flag.log 2>&1 ||
    fail "--max-tuples 100 did not override TRA_MAX_TUPLES=50: $(cat flag.log)"
expect_refusal bad_flag "max-tuples" validate small.yaml --max-tuples 0

finish_counted "bounded_inputs: ok"
