#!/usr/bin/env bash
# The README's main job: sets up and builds tra (tools/setup.sh), then plans the workflow
# plans/demo/ffnn.yaml for 2 ranks, runs the chosen plan under mpirun (measured transfer checked
# against the prediction, --check against the reference evaluator) and checks the result
# against numpy (tools/reference/check_demo.py).
set -euo pipefail
cd "$(dirname "$0")/.."
bash tools/setup.sh build
export OPENBLAS_NUM_THREADS=${OPENBLAS_NUM_THREADS:-1} OMP_NUM_THREADS=${OMP_NUM_THREADS:-1}
tra=build/apps/tra
out=out/demo
mkdir -p "$out"
echo "== tra validate plans/demo/ffnn.yaml"
"$tra" validate plans/demo/ffnn.yaml
echo "== tra gen (inputs for the numpy check)"
"$tra" gen plans/demo/ffnn.yaml --out-dir "$out" --force
echo "== tra plan --sites 2"
"$tra" plan plans/demo/ffnn.yaml --sites 2 --top 5
echo "== mpirun -n 2 tra run (the cheapest plan)"
# Root may run mpirun only when it says so; 2 ranks fit 2 cores, one BLAS thread each.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_btl_vader_single_copy_mechanism=none
mpirun -n 2 -x OPENBLAS_NUM_THREADS -x OMP_NUM_THREADS "$tra" run plans/demo/ffnn.yaml \
    --out-dir "$out" --force --check --report "$out/run.json"
echo "== checking against numpy"
/usr/bin/python3 tools/reference/check_demo.py "$out"
