#!/usr/bin/env bash
# Where tra's time goes on one matrix multiply: runs `tra run` under `perf record` (Debian's
# linux-perf) on RANKS ranks and prints the run report's operator times and a breakdown of the
# samples of the tra processes (tools/bench/profile_breakdown.py explains the buckets).
# Usage: tools/bench/profile.sh [RANKS] [N] [TILE] [build-dir]   (default 1 4096 1024 build)
# BLAS threads per rank: cores / RANKS unless OPENBLAS_NUM_THREADS is set. PERF_DATA=FILE keeps
# the samples there for `perf report -i FILE`.
set -euo pipefail
cd "$(dirname "$0")/../.."
ranks=${1:-1} n=${2:-4096} tile=${3:-1024} build=${4:-build}
tra=$build/apps/tra
[ -x "$tra" ] || { echo "build tra first (bash tools/setup.sh)" >&2; exit 1; }
command -v perf >/dev/null || { echo "perf not found: apt-get install -y linux-perf" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cat > "$work/mm.yaml" <<YAML
name: mm-profile
dtype: f64
inputs:
  A: {shape: [$n, $n], tile: [$tile, $tile], generate: {uniform: [-1, 1], seed: 1}}
  B: {shape: [$n, $n], tile: [$tile, $tile], generate: {uniform: [-1, 1], seed: 2}}
program:
  - C: {einsum: "ik,kj->ij", inputs: [A, B]}
outputs:
  C: {file: out/C.h5}
YAML
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 \
    OMPI_MCA_btl_vader_single_copy_mechanism=none OMPI_MCA_rmaps_base_oversubscribe=1 \
    OMPI_MCA_hwloc_base_binding_policy=none
threads=$(($(nproc) / ranks)); ((threads > 0)) || threads=1
export OPENBLAS_NUM_THREADS=${OPENBLAS_NUM_THREADS:-$threads}
echo "== $n^3, tiles $tile, $ranks rank(s) x $OPENBLAS_NUM_THREADS BLAS thread(s)," \
    "OPENBLAS_CORETYPE=${OPENBLAS_CORETYPE:-unset}"
perf record -q -F 999 -g -o "$work/perf.data" -- mpirun -n "$ranks" "$tra" run "$work/mm.yaml" \
    --out-dir "$work" --report "$work/report.json" >/dev/null 2>"$work/perf.log" ||
    { cat "$work/perf.log" >&2; exit 1; }
/usr/bin/python3 - "$work/report.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
print("plan %s; operator seconds (max over ranks):" % r["plan"])
for op in r["operators"]:
    print("  %-16s %8.3f" % (op["op"], op["seconds"]))
PY
echo "perf samples of the tra processes, whole run:"
perf report -i "$work/perf.data" --no-children --sort dso,sym --stdio --comms tra 2>/dev/null |
    /usr/bin/python3 tools/bench/profile_breakdown.py
[ -z "${PERF_DATA:-}" ] || cp "$work/perf.data" "$PERF_DATA"
