#!/usr/bin/env bash
# Sets up everything (tools/setup.sh), runs the whole test suite, then every extra stage in
# tools/test.d/ in name order (other builds and harnesses: CUDA, sanitizers, fuzzers, Slurm, ...).
# .ci/run calls this. Each stage installs what it needs and exits non-zero on failure; a stage
# that cannot run on this machine says exactly why and exits 0.
# Usage: tools/test.sh [build-dir]   (default: build)
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
# The stages build tra again in folders beside the first (-cuda, -mpich) through ccache. Paths
# under the checkout become relative for ccache, so the unity sources CMake writes into each
# build folder (lib/CMakeLists.txt, apps/CMakeLists.txt) come out of the first build's cache too.
export CCACHE_BASEDIR="$PWD"
bash tools/setup.sh "$build"
echo "== testing"
(cd "$build" && ctest --output-on-failure -j "$(nproc)")
shopt -s nullglob
for stage in tools/test.d/*.sh; do
    echo "== stage $(basename "$stage" .sh)"
    start=$SECONDS
    bash "$stage" "$build"
    echo "== stage $(basename "$stage" .sh) passed in $((SECONDS - start)) s"
done
