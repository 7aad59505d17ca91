#!/usr/bin/env bash
# Integer overflow in what tra computes from a workflow is an error naming the step (exit 2),
# never a wrapped value turned into a wrong message: a rekey whose keys reach the largest 64-bit
# integer (its frontier, one past the largest key, would overflow) or whose frontier holds more
# than 2^63 keys; a join whose kernel grows tiles (an outer product of two 2^31-element tiles)
# past 2^63 bytes.
# Usage: bash test_checked_arithmetic.sh TRA_BINARY SOURCE_DIR WORK_DIR
set -euo pipefail

# shellcheck source=tests/test_helpers.bash
source "$(dirname "${BASH_SOURCE[0]}")/../test_helpers.bash" cli checked_arithmetic "$@"
enter_work_dir

# expect_refusal NAME KEY MESSAGE_REGEX: a workflow rekeying A with KEY is refused by validate
# and plan with exit 2, a message naming the step C at NAME.yaml:line:col and MESSAGE_REGEX.
expect_refusal() {
    local name=$1 key=$2 pattern=$3 rc
    cat > "$name.yaml" <<YAML
name: $name
inputs:
  A: {shape: [4, 4], tile: [2, 2], generate: {uniform: [0, 1], seed: 1}}
program:
  - C: {rekey: A, key: "$key"}
outputs:
  C: {file: out/C.h5}
YAML
    for verb in validate plan; do
        rc=0
        "$TRA" "$verb" "$name.yaml" > "$name.$verb.log" 2>&1 || rc=$?
        [ "$rc" -eq 2 ] || { cat "$name.$verb.log" >&2; fail "tra $verb $name.yaml exited with $rc, expected 2"; }
        grep -Eq "$name\\.yaml:5:[0-9]+: program\\[0\\]\.C\.key: C: rekey \"[^\"]*\" $pattern" "$name.$verb.log" ||
            { cat "$name.$verb.log" >&2; fail "tra $verb $name.yaml does not name the step, its place and the overflow"; }
        if grep -q "holes" "$name.$verb.log"; then
            cat "$name.$verb.log" >&2
            fail "tra $verb $name.yaml reports holes computed from an overflowed frontier"
        fi
    done
    [ ! -e out ] || fail "tra wrote out/ for $name.yaml"
}

expect_refusal largest "(i, j) -> (i * 9223372036854775807, j)" \
    "gives key \\(9223372036854775807, 0\\), whose position 0 is the largest 64-bit integer"
expect_refusal count "(i, j) -> (i * 4294967296, j * 4294967296)" \
    "gives keys below the frontier \\[4294967297, 4294967297\\], which holds more than 2\\^63 keys"

# The largest key that still has a frontier is fine as far as arithmetic goes (the output is
# then refused for its holes, a true statement).
cat > fine.yaml <<'YAML'
name: fine
inputs:
  A: {shape: [2, 2], tile: [2, 2], generate: {uniform: [0, 1], seed: 1}}
program:
  - C: {rekey: A, key: "(i, j) -> (i + 9223372036854775806, j)"}
YAML
"$TRA" validate fine.yaml > fine.log 2>&1 || { cat fine.log >&2; fail "a rekey to 2^63 - 2 was refused"; }

# An outer product of two vectors of one 2^31-element tile each: a tile of 2^62 elements, 2^65
# bytes in f64. validate once printed its bytes as 0 (wrapped).
cat > outer.yaml <<'YAML'
name: outer
inputs:
  A: {shape: [2147483648], tile: [2147483648], generate: {uniform: [0, 1], seed: 1}}
  B: {shape: [2147483648], tile: [2147483648], generate: {uniform: [0, 1], seed: 2}}
program:
  - C: {join: [A, B], on: [[], []], kernel: {name: einsum, spec: "i,j->ij"}}
outputs:
  C: {file: out/C.h5}
YAML
for verb in validate plan; do
    rc=0
    "$TRA" "$verb" outer.yaml > "outer.$verb.log" 2>&1 || rc=$?
    [ "$rc" -eq 2 ] || { cat "outer.$verb.log" >&2; fail "tra $verb outer.yaml exited with $rc, expected 2"; }
    grep -q "outer.yaml:6:[0-9]*: program\[0\].C: C has tiles of \[2147483648, 2147483648\] elements, more bytes than 64 bits count" \
        "outer.$verb.log" || { cat "outer.$verb.log" >&2; fail "tra $verb outer.yaml does not name the step and the overflow"; }
done
[ ! -e out ] || fail "tra wrote out/ for outer.yaml"

echo "checked_arithmetic: ok"
