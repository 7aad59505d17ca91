#!/usr/bin/env bash
# `mpiexec -n RANKS tra run` executes IA plans: for each example workflow (plans/examples), EVERY
# candidate plan `tra plan --sites RANKS --top 10` lists runs with --check (outputs equal the
# reference evaluator's) and pml monitoring; `tra run --plan N` runs the plan listed as N with the
# listed prediction; every output equals the committed expected output (tra diff); for every
# operator the measured bytes (payload and overhead) equal the plan's exact prediction, and
# OpenMPI's pml monitoring counts exactly the report's payload plus overhead (tests/mpi/
# plan_runs.bash). Also: a plan file made for another site count is refused with exit 2, an
# existing output is kept without --force, a failing run leaves no output, and without a
# launcher `tra run` runs as one site.
# Usage: bash test_run_plans.sh TRA_BINARY SOURCE_DIR WORK_DIR RANKS MPIEXEC
set -euo pipefail

# shellcheck source=tests/test_helpers.bash
source "$(dirname "${BASH_SOURCE[0]}")/../test_helpers.bash" mpi run_plans "$@"

# shellcheck source=tests/mpi/plan_runs.bash
source "$SRC/tests/mpi/plan_runs.bash"
require_monitoring

enter_work_dir

# A plan file of matmul for S sites. `tra plan` is tested by tests/cli; here only the file matters
# (its exit status is reported, not required, so this test checks `tra run` alone).
make_plan() {
    local rc=0
    "$TRA" plan "$SRC/plans/examples/matmul.yaml" --sites "$1" -o "$2" > "$2.log" 2>&1 || rc=$?
    [ "$rc" -eq 0 ] || echo "note: tra plan -o $2 exited with $rc" >&2
    [ -s "$2" ] || { cat "$2.log" >&2; fail "tra plan -o $2 wrote no plan file"; }
}

for name in matmul ffnn diag tile_concat shortest_paths nn_search distances block_sparse retile auto_tiling; do
    run_every_plan "$name" "$SRC/plans/examples/$name.yaml" "$SRC/data/examples/$name/expected.h5" --check
done

# A plan file made for another site count is refused with exit 2 on every rank, writing nothing.
other=$((RANKS + 1))
make_plan "$other" other.plan.yaml
rc=0
timeout 120 "$MPIEXEC" -n "$RANKS" "$TRA" run other.plan.yaml --out-dir refused > refused.log 2>&1 || rc=$?
[ "$rc" -eq 2 ] || { cat refused.log >&2; fail "a plan file for $other sites under $RANKS ranks exited with $rc, expected 2"; }
grep -q "made for $other sites" refused.log || { cat refused.log >&2; fail "the refusal does not say why"; }
[ ! -e refused ] || [ -z "$(find refused -type f)" ] || fail "a refused run wrote files: $(find refused -type f)"

# A plan file made for this site count runs (test_repeat_and_plan_files.sh compares it with the
# workflow run with that plan).
make_plan "$RANKS" same.plan.yaml
run_plan same same.plan.yaml --check

# An existing output without --force: every rank exits 2, the file is untouched; --force replaces it.
before=$(cksum < matmul.p1/out/C.h5)
rc=0
timeout 120 "$MPIEXEC" -n "$RANKS" "$TRA" run "$SRC/plans/examples/matmul.yaml" --out-dir matmul.p1 > exists.log 2>&1 || rc=$?
[ "$rc" -eq 2 ] || { cat exists.log >&2; fail "a run onto existing outputs exited with $rc, expected 2"; }
[ "$(cksum < matmul.p1/out/C.h5)" = "$before" ] || fail "a refused run changed an existing output"
rc=0
timeout 120 "$MPIEXEC" -n "$RANKS" "$TRA" run "$SRC/plans/examples/matmul.yaml" --out-dir matmul.p1 --force > force.log 2>&1 || rc=$?
[ "$rc" -eq 0 ] || { cat force.log >&2; fail "--force onto existing outputs exited with $rc"; }

# A failure on rank 0 after the outputs are written (the report cannot be written): the whole job
# ends non-zero without hanging, and no output appears, neither at its final name nor temporary.
rc=0
timeout 120 "$MPIEXEC" -n "$RANKS" "$TRA" run "$SRC/plans/examples/matmul.yaml" --out-dir failed \
    --report "$PWD/no-such-folder/run.json" > failed.log 2>&1 || rc=$?
[ "$rc" -ne 124 ] || fail "a failing run hung (killed after 120 s)"
[ "$rc" -ne 0 ] || { cat failed.log >&2; fail "a run whose report cannot be written exited with 0"; }
grep -q "cannot write the report" failed.log || { cat failed.log >&2; fail "the failure does not say why"; }
[ ! -e failed ] || [ -z "$(find failed -type f)" ] || fail "a failed run left files: $(find failed -type f)"

if [ "$RANKS" -eq 1 ]; then
    # Without a launcher: one site.
    rc=0
    timeout 120 "$TRA" run "$SRC/plans/examples/matmul.yaml" --check --report solo.json --out-dir solo > solo.log 2>&1 || rc=$?
    [ "$rc" -eq 0 ] || { cat solo.log >&2; fail "tra run without a launcher exited with $rc"; }
    grep -q '"sites":1' solo.json || fail "tra run without a launcher did not run as one site"
fi

leftovers=$(find . -name '*.tmp*')
[ -z "$leftovers" ] || fail "temporary files left behind: $leftovers"
echo "run_plans: ok ($PLAN_RUNS plan runs on $RANKS ranks)"
