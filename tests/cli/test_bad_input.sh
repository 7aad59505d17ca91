#!/usr/bin/env bash
# Bad workflows through the real binary: `tra validate` and `tra run --reference` exit exactly 2
# with one stderr line "tra: error: FILE:LINE:COL: ..." and create no output (nor temp) file.
# Also `tra diff` exit codes, --help on every verb, and an unknown verb.
# Usage: bash test_bad_input.sh TRA_BINARY SOURCE_DIR WORK_DIR
set -uo pipefail

# shellcheck source=tests/test_helpers.bash
source "$(dirname "${BASH_SOURCE[0]}")/../test_helpers.bash" cli bad_input "$@"
: "$SRC"

count_failures

enter_work_dir

HEADER='name: bad
inputs:
  A: {shape: [8, 6], tile: [4, 3], generate: {uniform: [-1, 1], seed: 1}}
  B: {shape: [6, 4], tile: [3, 2], generate: {uniform: [-1, 1], seed: 2}}
program:'
OUTPUTS='outputs:
  A: {file: out/A.h5}'

# name|expected FILE:LINE:COL|body lines after the header (program steps), outputs appended
write_case() {
    local name=$1 body=$2
    printf '%s\n%s\n%s\n' "$HEADER" "$body" "$OUTPUTS" > "$name.yaml"
}

write_case unknown_relation '  - C: {join: [A, X], on: [[1], [0]], kernel: matmul}'
write_case unknown_kernel   '  - C: {join: [A, B], on: [[1], [0]], kernel: matmull}'
write_case bad_position     '  - C: {join: [A, B], on: [[2], [0]], kernel: matmul}'
write_case shape_mismatch   '  - C: {join: [A, A], on: [[1], [0]], kernel: matmul}'
write_case later_step       '  - C: {transform: D, kernel: relu}
  - D: {transform: A, kernel: relu}'
write_case two_operators    '  - C: {transform: A, rekey: A, kernel: relu}'
write_case rekey_dup        '  - C: {rekey: A, key: "(i, j) -> (i)"}'
write_case einsum_repeat    '  - E: {einsum: "ii->i", inputs: [A]}'
write_case unknown_field    '  - C: {transform: A, kernel: relu, extra: 1}'
write_case softmax_dim      '  - C: {softmax: A, dim: 2}'
write_case softmax_negative '  - C: {softmax: A, dim: -1}'
write_case softmax_unknown  '  - C: {softmax: X, dim: 0}'
write_case softmax_holes    '  - F: {filter: A, where: "k0 == k1"}
  - C: {log_softmax: F, dim: 0}'
# Expression kernels: the error points at the character inside the text (quoted and plain).
write_case expr_unknown     '  - C: {transform: A, kernel: {expr: "x * sqr(x)"}}'
write_case expr_variable    '  - C: {join: [A, A], on: [[0, 1], [0, 1]], kernel: {expr: a + x}}'
write_case expr_arity       '  - C: {transform: A, kernel: {expr: "max(x)"}}'
write_case expr_syntax      '  - C: {transform: A, kernel: {expr: "x * (2 + x"}}'
write_case expr_aggregate   '  - C: {aggregate: A, by: [0], kernel: {expr: "a + b"}}'
write_case expr_einsum      '  - C: {einsum: "ij,ij->i", inputs: [A, A], join: {expr: "a - y"}}'
printf '%s\n%s\n%s\n  F: {file: out/F.h5}\n' "$HEADER" '  - F: {filter: A, where: "k0 == k1"}' "$OUTPUTS" > holes.yaml
printf 'name: bad\ninputs:\n  A: {shape: [8, 6], tile: [4, 4], generate: {constant: 1}}\n%s\n' "$OUTPUTS" > tile.yaml
printf 'name: bad\ninputs:\n  A: {shape: [4, 4], file: missing.h5}\n%s\n' "$OUTPUTS" > missing_file.yaml
printf 'name: bad\ninputs:\n  A: {shape: [4], generate: {constant: 1}}\n  A: {shape: [4], generate: {constant: 2}}\n%s\n' "$OUTPUTS" > dup_key.yaml
printf 'name: bad\nprogram:\n  - C: {join: [A, B}\n' > malformed.yaml
# tile: auto reaching a step whose meaning depends on the tiling: refused at that step.
printf 'name: bad\ninputs:\n  A: {shape: [8, 6], tile: auto, generate: {constant: 1}}\nprogram:\n  - C: {rekey: A, key: "(i, j) -> (j, i)"}\n%s\n' "$OUTPUTS" > auto_rekey.yaml
printf 'name: bad\ninputs:\n  A: {shape: [8, 6], tile: [auto, 0], generate: {constant: 1}}\n%s\n' "$OUTPUTS" > auto_zero.yaml

# case -> FILE:LINE:COL the error must name
declare -A where=(
    [unknown_relation]="unknown_relation.yaml:6:15"
    [unknown_kernel]="unknown_kernel.yaml:6:47"
    [bad_position]="bad_position.yaml:6:27"
    [shape_mismatch]="shape_mismatch.yaml:6:47"
    [later_step]="later_step.yaml:6:20"
    [two_operators]="two_operators.yaml:6:8"
    [rekey_dup]="rekey_dup.yaml:6:24"
    [einsum_repeat]="einsum_repeat.yaml:6:34"
    [unknown_field]="unknown_field.yaml:6:37"
    [softmax_dim]="softmax_dim.yaml:6:26"
    [softmax_negative]="softmax_negative.yaml:6:26"
    [softmax_unknown]="softmax_unknown.yaml:6:18"
    [softmax_holes]="softmax_holes.yaml:7:22"
    [expr_unknown]="expr_unknown.yaml:6:43"
    [expr_variable]="expr_variable.yaml:6:64"
    [expr_arity]="expr_arity.yaml:6:44"
    [expr_syntax]="expr_syntax.yaml:6:49"
    [expr_aggregate]="expr_aggregate.yaml:6:47"
    [expr_einsum]="expr_einsum.yaml:6:63"
    [holes]="holes.yaml:9:6"
    [tile]="tile.yaml:3:28"
    [missing_file]="missing_file.yaml:3:28"
    [dup_key]="dup_key.yaml:4:3"
    [malformed]="malformed.yaml:3:20"
    [auto_rekey]="auto_rekey.yaml:5:8"
    [auto_zero]="auto_zero.yaml:3:28"
)

for name in "${!where[@]}"; do
    for verb in validate run; do
        args=("$verb" "$name.yaml")
        [ "$verb" = run ] && args+=(--reference)
        rc=0
        "$TRA" "${args[@]}" > "$name.$verb.out" 2> "$name.$verb.err" || rc=$?
        [ "$rc" -eq 2 ] || fail "tra ${args[*]} exited $rc, expected 2 ($(cat "$name.$verb.err"))"
        lines=$(wc -l < "$name.$verb.err")
        [ "$lines" -eq 1 ] || fail "tra ${args[*]}: $lines stderr lines, expected 1: $(cat "$name.$verb.err")"
        first=$(head -n 1 "$name.$verb.err")
        case "$first" in
            "tra: error: ${where[$name]}:"*) ;;
            *) fail "tra ${args[*]}: stderr '$first' does not start with 'tra: error: ${where[$name]}:'" ;;
        esac
    done
done

# The softmax and expression refusals also say what is wrong.
declare -A says=(
    [softmax_dim]="dim 2 is out of range: A has 2 dimension(s) (dim 0 to 1)"
    [softmax_negative]="dim -1 is out of range"
    [softmax_unknown]="unknown relation 'X'"
    [softmax_holes]="log_softmax operand F must be a plain tensor"
    [expr_unknown]="column 5 of the expression"
    [expr_variable]="column 5 of the expression"
    [expr_aggregate]="an expression is never assumed to be one"
    [auto_rekey]="step C: its meaning depends on how its operand is tiled (a rekey computes keys"
)
for name in "${!says[@]}"; do
    grep -qF "${says[$name]}" "$name.validate.err" ||
        fail "tra validate $name.yaml does not say '${says[$name]}': $(cat "$name.validate.err")"
done

if [ -e out ]; then fail "bad workflows created output: $(find out)"; fi
leftovers=$(find . -name '*.tmp*' -o -name '*.h5' | head)
[ -z "$leftovers" ] || fail "bad workflows left files behind: $leftovers"

# An existing output without --force: exit 2, the file is left alone.
mkdir -p exist/out
printf 'name: ok\ninputs:\n  A: {shape: [4], generate: {constant: 1}}\noutputs:\n  A: {file: out/A.h5}\n' > exist/ok.yaml
echo precious > exist/out/A.h5
rc=0
"$TRA" run exist/ok.yaml --reference > exist.out 2> exist.err || rc=$?
[ "$rc" -eq 2 ] || fail "run over an existing output exited $rc, expected 2 ($(cat exist.err))"
[ "$(cat exist/out/A.h5)" = precious ] || fail "run over an existing output modified it"
[ -z "$(find exist -name '*.tmp*')" ] || fail "run over an existing output left a temp file"
grep -q '^tra: error: ' exist.err || fail "no 'tra: error:' line for an existing output: $(cat exist.err)"

# tra diff: 2 on a missing file, 1 on different values, 0 on equal ones.
cat > diff.yaml <<'YAML'
name: diffs
inputs:
  X: {shape: [4, 4], tile: [2, 2], generate: {constant: 1}, file: x.h5, dataset: /X}
  Y: {shape: [4, 4], tile: [2, 2], generate: {constant: 2}, file: y.h5, dataset: /Y}
  Z: {shape: [4, 4], tile: [2, 2], generate: {constant: 1}, file: z.h5, dataset: /Z}
YAML
rc=0
"$TRA" gen diff.yaml > gen.log 2>&1 || rc=$?
if [ "$rc" -ne 0 ]; then
    fail "tra gen diff.yaml exited $rc: $(cat gen.log)"
else
    rc=0; "$TRA" diff x.h5 z.h5 > d0.out 2>&1 || rc=$?
    [ "$rc" -eq 0 ] || fail "tra diff of equal tensors exited $rc: $(cat d0.out)"
    rc=0; "$TRA" diff x.h5:/X y.h5:/Y > d1.out 2>&1 || rc=$?
    [ "$rc" -eq 1 ] || fail "tra diff of different tensors exited $rc, expected 1: $(cat d1.out)"
    grep -q differ d1.out || fail "tra diff of different tensors does not say 'differ': $(cat d1.out)"
    rc=0; "$TRA" diff x.h5 nothere.h5 > d2.out 2> d2.err || rc=$?
    [ "$rc" -eq 2 ] || fail "tra diff with a missing file exited $rc, expected 2: $(cat d2.err)"
    grep -q '^tra: error: ' d2.err || fail "tra diff with a missing file: no 'tra: error:' line"
    rc=0; "$TRA" diff x.h5:/nope z.h5 > d3.out 2> d3.err || rc=$?
    [ "$rc" -eq 2 ] || fail "tra diff with a missing dataset exited $rc, expected 2: $(cat d3.err)"
fi

# --help on every verb, an unknown verb, no verb.
for verb in validate gen run diff kernels; do
    rc=0
    "$TRA" "$verb" --help > "help.$verb" 2>&1 || rc=$?
    [ "$rc" -eq 0 ] || fail "tra $verb --help exited $rc"
    grep -qi usage "help.$verb" || fail "tra $verb --help prints no usage"
done
rc=0; "$TRA" --help > help.out 2>&1 || rc=$?
[ "$rc" -eq 0 ] || fail "tra --help exited $rc"
rc=0; "$TRA" frobnicate > unknown.out 2>&1 || rc=$?
[ "$rc" -eq 2 ] || fail "tra frobnicate exited $rc, expected 2"
rc=0; "$TRA" > none.out 2>&1 || rc=$?
[ "$rc" -eq 2 ] || fail "tra without a verb exited $rc, expected 2"
rc=0; "$TRA" validate > noarg.out 2>&1 || rc=$?
[ "$rc" -eq 2 ] || fail "tra validate without a workflow exited $rc, expected 2"

finish_counted "bad_input: ok"
