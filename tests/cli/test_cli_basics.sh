#!/usr/bin/env bash
# Basic verbs of the real binary: `tra run` without a launcher runs as one site; `tra validate` prints a
# header and one row per relation (einsum steps lowered, unused ones marked); `tra kernels` lists
# the registry; `tra run --reference` writes outputs that `tra diff` compares.
# Usage: bash test_cli_basics.sh TRA_BINARY SOURCE_DIR WORK_DIR
set -uo pipefail

# shellcheck source=tests/test_helpers.bash
source "$(dirname "${BASH_SOURCE[0]}")/../test_helpers.bash" cli cli_basics "$@"
: "$SRC"

count_failures

enter_work_dir

cat > mm.yaml <<'YAML'
name: basics
dtype: f64
inputs:
  A: {shape: [8, 6], tile: [4, 3], generate: {integers: [-3, 3], seed: 1}}
  B: {shape: [6, 4], tile: [3, 2], generate: {integers: [-3, 3], seed: 7}}
program:
  - AB: {join: [A, B], on: [[1], [0]], kernel: matmul}
  - C:  {aggregate: AB, by: [0, 2], kernel: add}
  - D:  {einsum: "ik,kj->ij", inputs: [A, B]}
  - F:  {filter: D, where: "k0 == k1"}
outputs:
  C: {file: out/C.h5}
  D: {file: out/D.h5}
YAML

# run without a launcher: one site, outputs written under --out-dir (the workflow's folder stays
# untouched), then validate must not create anything either.
rc=0
"$TRA" run mm.yaml --out-dir single > run.out 2> run.err || rc=$?
[ "$rc" -eq 0 ] || fail "tra run on one site exited $rc: $(cat run.err)"
[ -e single/out/C.h5 ] || fail "tra run on one site wrote no single/out/C.h5"
[ ! -e out ] || fail "tra run --out-dir wrote into the workflow's folder"

# validate: one row per relation: A B AB C D.join1 D F, plus a header row (and output and
# einsum order lines after the table).
rc=0
"$TRA" validate mm.yaml > validate.out 2> validate.err || rc=$?
[ "$rc" -eq 0 ] || fail "tra validate exited $rc: $(cat validate.err)"
grep -q '^workflow basics: 7 relations, 2 outputs, default dtype f64$' validate.out ||
    fail "validate summary line missing: $(head -n 1 validate.out)"
grep -q '^relation  *operator  *inputs  *type  *frontier  *tuples  *bytes  *arguments$' validate.out ||
    fail "validate header row missing"
rows=$(awk 'NR > 2 && $0 !~ /^(output|einsum) / {n++} END {print n + 0}' validate.out)
[ "$rows" -eq 7 ] || fail "validate printed $rows relation rows, expected 7: $(cat validate.out)"
for rel in A B AB C D.join1 D; do
    grep -qE "^$rel +(input|join|aggregate) " validate.out || fail "validate has no row for $rel"
done
grep -qE '^F \(unused\) +filter +D +R\^\(2,2,\[4, 2\]\) f64 +\[2, 2\] +2 +128 ' validate.out ||
    fail "validate row for F is wrong: $(grep '^F' validate.out)"
grep -qE '^AB +join +A,B +R\^\(3,2,\[4, 2\]\) f64 +\[2, 2, 2\] +8 +512 +on \[1\]=\[0\] kernel matmul$' validate.out ||
    fail "validate row for AB is wrong: $(grep '^AB' validate.out)"
grep -q "^output C -> .*out/C.h5:/C$" validate.out || fail "validate lists no output C"
[ ! -e out ] || fail "tra validate created out/"

# kernels: one line per kernel, with matmul and min_index among them, and their properties.
rc=0
"$TRA" kernels > kernels.out 2>&1 || rc=$?
[ "$rc" -eq 0 ] || fail "tra kernels exited $rc"
for k in matmul min_index add einsum softmax_rows argmin; do
    grep -qE "^$k " kernels.out || fail "tra kernels does not list $k"
done
grep -qE '^add .*aggregates' kernels.out || fail "tra kernels does not mark add as aggregating"
grep -qE '^sub ' kernels.out && grep -qE '^sub .*aggregates' kernels.out && fail "tra kernels marks sub as aggregating"
# f(0) = 0: sin keeps zeros, cos (cos 0 = 1) does not, einsum's depends on its join.
grep -qE '^sin .*zero-preserving' kernels.out || fail "tra kernels does not mark sin as zero-preserving"
grep -qE '^cos ' kernels.out && grep -qE '^cos .*zero-preserving' kernels.out && fail "tra kernels marks cos as zero-preserving"
grep -qE '^einsum .*zero-preserving-by-params' kernels.out || fail "tra kernels does not say einsum's f(0) = 0 depends on its params"

# run --reference: writes both outputs; C and D (same product) are equal.
rc=0
"$TRA" run mm.yaml --reference > ref.out 2> ref.err || rc=$?
[ "$rc" -eq 0 ] || fail "tra run --reference exited $rc: $(cat ref.err)"
[ -f out/C.h5 ] && [ -f out/D.h5 ] || fail "tra run --reference did not write out/C.h5 and out/D.h5"
[ -z "$(find out -name '*.tmp*')" ] || fail "tra run --reference left temp files"
rc=0
"$TRA" diff out/C.h5 out/D.h5 > diff.out 2>&1 || rc=$?
[ "$rc" -eq 0 ] || fail "C and D differ (exit $rc): $(cat diff.out)"
# A second run refuses to overwrite; --force replaces; --out-dir redirects.
rc=0
"$TRA" run mm.yaml --reference > again.out 2>&1 || rc=$?
[ "$rc" -eq 2 ] || fail "second run without --force exited $rc, expected 2"
rc=0
"$TRA" run mm.yaml --reference --force > force.out 2>&1 || rc=$?
[ "$rc" -eq 0 ] || fail "run --force exited $rc: $(cat force.out)"
rc=0
"$TRA" run mm.yaml --reference --out-dir moved > moved.out 2>&1 || rc=$?
[ "$rc" -eq 0 ] || fail "run --out-dir exited $rc: $(cat moved.out)"
[ -f moved/out/C.h5 ] || fail "run --out-dir moved did not write moved/out/C.h5"

finish_counted "cli_basics: ok"
