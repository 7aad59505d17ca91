#!/usr/bin/env bash
# One pass over everything a lent GPU machine can tell us, ordered so that what matters most
# runs first and a stage that runs long cannot starve the rest (each has its own time limit).
# Run from the source root on the GPU machine, with a bundle made here by tools/bundle.sh:
#   tools/gpu_check.sh BUNDLE OUT_DIR [STAGES]
# STAGES (default all, in this order; comma-separated):
#   kernels   tests/gpu_kernels: every registry kernel on the GPU against the CPU, [large] too
#   examples  tests/gpu/test_examples_gpu.sh: plans/examples and plans/models, GPU against CPU
#   check     each of those workflows with --device gpu --check (reference evaluator, bytes)
#             and --device gpu --verify
#   memcheck  compute-sanitizer memcheck on GPU runs of expressions, block-sparse fills, a loop
#   bench     tools/bench/gpu.py (tra on the GPU against cuBLAS alone): OUT_DIR/gpu.json
#   pair      tools/bench/compare.py on two of the machine's cores (taskset), 1 rank x 2 BLAS
#             threads and 2 ranks x 1, the paper's small-tile workflows, every cost model's plans:
#             OUT_DIR/pair.json and OUT_DIR/pair-machine-{1,2}.yaml
#   ranks     tools/bench/compare.py at 8 and 16 ranks on the machine's CPUs, with tra calibrate:
#             OUT_DIR/bench.json and OUT_DIR/machine-{8,16}.yaml
# Everything is logged to OUT_DIR/gpu_check.log; the exit status is the number of failed stages.
# GPU_CHECK_SECONDS (default 540) bounds the whole pass: a stage's limit is cut to what is left,
# and stages that would get under 10 s are skipped (so the results still come back inside a
# lent machine's command limit).
# docs/gpu.md records what it found.
set -uo pipefail
usage="usage: tools/gpu_check.sh BUNDLE OUT_DIR [STAGES]"
bundle=$(cd "${1:?$usage}" && pwd)
out=${2:?$usage}
stages=${3:-kernels,examples,check,memcheck,bench,pair,ranks}
mkdir -p "$out"
out=$(cd "$out" && pwd)
log="$out/gpu_check.log"
source "$bundle/env.sh"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
export OPENBLAS_NUM_THREADS=1 PYTHONUNBUFFERED=1
work=$(mktemp -d)
# The benchmarks want a build folder's layout: BUILD/apps/tra, BUILD/tools/bench/bench_*.
mkdir -p "$work/build/apps" "$work/build/tools/bench"
ln -s "$bundle/bin/tra" "$work/build/apps/tra"
for program in "$bundle"/bin/bench_*; do ln -s "$program" "$work/build/tools/bench/"; done
tra="$bundle/bin/tra"
failed=0
budget=${GPU_CHECK_SECONDS:-540}

say() { echo "$*" | tee -a "$log"; }
# stage NAME LIMIT_SECONDS COMMAND...: runs it under its limit, logs its output and its time.
stage() {
    local name=$1 limit=$2
    shift 2
    [[ ",$stages," == *",$name,"* ]] || return 0
    local left=$((budget - SECONDS - 10))
    [ "$left" -lt "$limit" ] && limit=$left
    if [ "$limit" -lt 10 ]; then
        say "=== $name: skipped (the pass's $budget s are spent)"
        failed=$((failed + 1))
        return 0
    fi
    say "=== $name (limit ${limit} s) $(date -u +%T)"
    local start=$SECONDS rc=0
    timeout --kill-after=5 "$limit" "$@" >> "$log" 2>&1 || rc=$?
    say "=== $name: rc=$rc in $((SECONDS - start)) s"
    [ "$rc" -eq 0 ] || failed=$((failed + 1))
}

workflows() { ls plans/examples/*.yaml plans/models/*.yaml; }

check_runs() {
    local rc=0 wf name
    for wf in $(workflows); do
        name=$(basename "$wf" .yaml)
        for flag in --check --verify; do
            if "$tra" run "$wf" --device gpu "$flag" --out-dir "$work/check/$name$flag" \
                > "$work/check.$name$flag.log" 2>&1; then
                echo "ok   $name $flag"
            else
                echo "FAIL $name $flag"
                cat "$work/check.$name$flag.log"
                rc=1
            fi
        done
    done
    return $rc
}

memcheck_runs() {
    local rc=0 wf
    command -v compute-sanitizer > /dev/null || { echo "no compute-sanitizer here"; return 1; }
    for wf in plans/examples/distances.yaml plans/examples/block_sparse.yaml \
              plans/models/mlp_loop.yaml plans/models/decoder.yaml; do
        compute-sanitizer --tool memcheck --error-exitcode 9 \
            "$tra" run "$wf" --device gpu --out-dir "$work/memcheck/$(basename "$wf" .yaml)" ||
            rc=1
    done
    return $rc
}

# timeout runs programs, not functions: the stages below that are functions run in a bash that
# inherits them.
export -f workflows check_runs memcheck_runs
export tra work

{
    date -u
    nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv
    lscpu | grep -E 'Model name|^CPU\(s\)|cache|Flags' | cut -c1-200
    "$tra" --version
} >> "$log" 2>&1

stage kernels 100 "$bundle/bin/gpu_kernels"
stage examples 150 bash tests/gpu/test_examples_gpu.sh "$tra" . "$work/examples" mpiexec
stage check 90 bash -c check_runs
stage memcheck 90 bash -c memcheck_runs
stage bench 100 /usr/bin/env python3 tools/bench/gpu.py --build "$work/build" --out "$work/bench-gpu" \
    --repeats 2
stage pair 100 env OMPI_MCA_hwloc_base_binding_policy=none taskset -c 0,1 python3 tools/bench/compare.py --build "$work/build" \
    --out "$work/pair" --ranks 1,2 --top 3 --all-models --repeats 3 --cases ffnn-xml,nn-large
stage ranks 330 /usr/bin/env python3 tools/bench/compare.py --build "$work/build" \
    --out "$work/ranks" --ranks 8,16 --top 3 --repeats 1 --tiles 1024 \
    --cases mm-square,mm-common-k,mm-two-large,ffnn-xml
# Only the results come back (the benchmarks' folders hold their HDF5 inputs too).
cp "$work"/bench-gpu/gpu.json "$work"/ranks/bench.json "$work"/ranks/machine-*.yaml "$out"/ 2> /dev/null
cp "$work"/pair/bench.json "$out"/pair.json 2> /dev/null
for f in "$work"/pair/machine-*.yaml; do [ -f "$f" ] && cp "$f" "$out/pair-$(basename "$f")"; done
say "=== done: $failed failed stage(s) $(date -u +%T)"
exit $failed
