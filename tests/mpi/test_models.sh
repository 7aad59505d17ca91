#!/usr/bin/env bash
# The model workflows of plans/models/ (a LLaMA-style decoder block, one MLP training step with
# softmax cross-entropy, EinDecomp's attention) are what tools/reference/models.py writes, and
# under `mpiexec -n RANKS tra run` EVERY plan `tra plan --sites RANKS --top 10` lists gives
# numpy's outputs (models.py expected: plain numpy on the same generated inputs), with the
# measured bytes of every operator equal to the prediction and to OpenMPI's pml monitoring's count
# (tests/mpi/plan_runs.bash).
# Usage: bash test_models.sh TRA_BINARY SOURCE_DIR WORK_DIR RANKS MPIEXEC   (env TRA_PYTHON)
set -euo pipefail

# shellcheck source=tests/test_helpers.bash
source "$(dirname "${BASH_SOURCE[0]}")/../test_helpers.bash" mpi models "$@"
# shellcheck source=tests/mpi/plan_runs.bash
source "$SRC/tests/mpi/plan_runs.bash"
require_monitoring

models="$SRC/tools/reference/models.py"
"$PY" -c 'import numpy, h5py, yaml' 2> /dev/null || fail "'$PY' lacks numpy, h5py or yaml (set TRA_PYTHON)"
enter_work_dir

# The committed workflows are the script's, so the numpy side and the workflows cannot drift.
"$PY" "$models" write --out fresh > write.log 2>&1 || { cat write.log >&2; fail "models.py write failed"; }
for wf in fresh/*.yaml; do
    name=$(basename "$wf")
    cmp -s "$wf" "$SRC/plans/models/$name" ||
        fail "plans/models/$name is not what tools/reference/models.py writes; rerun '$PY tools/reference/models.py write'"
done

for name in $("$PY" "$models" list); do
    wf="$SRC/plans/models/$name.yaml"
    "$PY" "$models" expected "$wf" "$name.expected.h5" > "$name.expected.log" 2>&1 ||
        { cat "$name.expected.log" >&2; fail "models.py expected $wf failed"; }
    run_every_plan "$name" "$wf" "$PWD/$name.expected.h5"
done
echo "models: ${PLAN_RUNS:-0} plan runs ok on $RANKS ranks"
