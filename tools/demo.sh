#!/usr/bin/env bash
# The README's main job: sets up and builds tra (tools/setup.sh), then runs the workflow
# plans/demo/ffnn.yaml and checks its result against numpy (tools/reference/check_demo.py).
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
echo "== tra run --reference"
"$tra" run plans/demo/ffnn.yaml --reference --out-dir "$out" --force
echo "== checking against numpy"
/usr/bin/python3 tools/reference/check_demo.py "$out"
