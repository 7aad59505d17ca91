#!/usr/bin/env bash
# Stage: a short bounded fuzzing run (tools/fuzz.sh, 30 s per target) of the key-expression,
# workflow and plan-file parsers in MAIN_BUILD_DIR-sanitize, the clang build that stage 20
# makes (configured here when stage 20 did not run). Fails on any crash, hang, sanitizer
# finding or uncaught exception.
# Usage: bash tools/test.d/30-fuzz.sh MAIN_BUILD_DIR
set -euo pipefail
cd "$(dirname "$0")/../.."
build="${1:-build}-sanitize"

bash tools/install-packages.sh clang-14 libclang-rt-14-dev llvm-14
bash tools/fuzz.sh 30 "$build"
