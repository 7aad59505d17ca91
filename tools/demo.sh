#!/usr/bin/env bash
# The README's main job: sets up and builds tra (tools/setup.sh), then takes one SGD step of the
# TRA paper's two-layer FFNN (section 6.3, AmazonCat-14K shapes scaled down:
# plans/paper/scaled/ffnn-xml.yaml), plans it for 2 ranks, runs the cheapest plan under mpirun
# with --check (outputs equal the reference evaluator's, measured bytes equal the prediction for
# every operator) and shows the run report, then checks the updated weights against numpy
# (plans/paper/check_scaled.py, which recomputes the step from the inputs `tra gen` wrote).
# Usage: bash tools/demo.sh [WORKFLOW]   (any of plans/paper/scaled/*.yaml; default ffnn-xml)
set -euo pipefail
cd "$(dirname "$0")/.."
wf=${1:-plans/paper/scaled/ffnn-xml.yaml}
bash tools/setup.sh build
export OPENBLAS_NUM_THREADS=${OPENBLAS_NUM_THREADS:-1} OMP_NUM_THREADS=${OMP_NUM_THREADS:-1}
tra=build/apps/tra
out=out/demo/$(basename "$wf" .yaml)
mkdir -p "$out"
echo "== tra validate $wf"
"$tra" validate "$wf"
echo "== tra gen (inputs for the numpy check)"
"$tra" gen "$wf" --out-dir "$out/inputs" --force
echo "== tra plan --sites 2"
"$tra" plan "$wf" --sites 2 --top 5
echo "== mpirun -n 2 tra run --check (the cheapest plan)"
# Root may run mpirun only when it says so; 2 ranks fit 2 cores, one BLAS thread each.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_btl_vader_single_copy_mechanism=none
mpirun -n 2 -x OPENBLAS_NUM_THREADS -x OMP_NUM_THREADS "$tra" run "$wf" \
    --out-dir "$out" --force --check --report "$out/run.json"
echo "== the run report ($out/run.json)"
/usr/bin/python3 - "$out/run.json" << 'PY'
import json, sys
r = json.load(open(sys.argv[1]))
print("plan %s on %d sites, %.2f s" % (r["plan"], r["sites"], r["seconds"]))
print("moved %d payload + %d overhead bytes (predicted %d + %d); peak %d bytes per rank "
      "(predicted %d)" % (r["measured_bytes"], r["overhead_bytes"], r["predicted_bytes"],
                          r["predicted_overhead_bytes"], r["peak_bytes"], r["predicted_peak_bytes"]))
PY
echo "== checking against numpy"
/usr/bin/python3 plans/paper/check_scaled.py "$wf" "$out" --inputs "$out/inputs"
