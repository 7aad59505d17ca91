#!/usr/bin/env bash
# Stage: a short bounded fuzzing run (tools/fuzz.sh, 30 s per target) of the key-expression,
# workflow and plan-file parsers in MAIN_BUILD_DIR-sanitize, the clang build that stage 20
# makes (configured here when stage 20 did not run). Fails on any crash, hang, sanitizer
# finding or uncaught exception.
# Usage: bash tools/test.d/30-fuzz.sh MAIN_BUILD_DIR
set -euo pipefail
cd "$(dirname "$0")/../.."
build="${1:-build}-sanitize"

packages=(clang-14 libclang-rt-14-dev llvm-14)
missing=()
for p in "${packages[@]}"; do dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p"); done
if ((${#missing[@]})); then
    echo "== installing ${missing[*]}"
    sudo_cmd=""; [ "$(id -u)" -eq 0 ] || sudo_cmd="sudo"
    $sudo_cmd apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq "${missing[@]}" >/dev/null
fi
bash tools/fuzz.sh 30 "$build"
