#!/usr/bin/env bash
# Sets up everything (tools/setup.sh) and runs the whole test suite. .ci/run calls this.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
bash tools/setup.sh "$build"
echo "== testing"
cd "$build"
ctest --output-on-failure -j "$(nproc)"
