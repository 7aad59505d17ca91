#!/usr/bin/env bash
# Runs each libFuzzer target of tests/fuzz (key_expr, workflow, plan_file, expression) for a
# bounded time and fails on any crash, hang, sanitizer finding or uncaught exception. Seeds: the
# committed corpus (tests/fuzz/corpus), every regression input (tests/fuzz/regressions), every
# workflow under plans/ and every ```yaml block of docs/, and plan files that `tra plan -o` writes
# for plans/examples. The growing corpus and any crash input stay in BUILD/fuzz/ for inspection; a
# crash input belongs in tests/fuzz/regressions/TARGET/ with its fix. Dictionaries
# (tests/fuzz/dictionaries) add huge numbers and each target's words; memory is capped at 2 GB.
# Usage: tools/fuzz.sh [seconds-per-target] [build-dir]   (default: 60, build-sanitize; the
#        build folder is configured with clang-14, -DTRA_FUZZ=ON and built when needed)
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-60}
build=${2:-build-sanitize}
targets=(key_expr workflow plan_file expression)

if [ ! -f "$build/CMakeCache.txt" ] || ! grep -q '^TRA_FUZZ:BOOL=ON' "$build/CMakeCache.txt"; then
    echo "== configuring $build (clang-14, libFuzzer, ASan + UBSan)"
    CC=clang-14 CXX=clang++-14 cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
        -DTRA_WERROR=ON -DTRA_SANITIZE=ON -DTRA_FUZZ=ON >/dev/null
fi
cmake --build "$build" -j "$(nproc)" --target tra "${targets[@]/#/fuzz_}"

work="$PWD/$build/fuzz"
seeds="$work/seeds"
rm -rf "$seeds"
mkdir -p "$seeds"/{workflow,plan_file}
# Workflows: every committed one, and every YAML example in the docs.
find plans -name '*.yaml' -exec cp --backup=numbered -t "$seeds/workflow" {} +
awk -v dir="$seeds/workflow" '
    /^```yaml/ { n++; file = sprintf("%s/doc-%03d.yaml", dir, n); inside = 1; next }
    /^```/ { inside = 0 }
    inside { print > file }' docs/*.md
# Plan files beside copies of the examples, as fuzz_plan_file sees them (the copies keep their
# place relative to data/ so that `tra plan` finds their input files).
plan_root="$work/plan-seeds-root"
plan_dir="$plan_root/plans/examples"
rm -rf "$plan_root"
mkdir -p "$plan_dir"
ln -s "$PWD/data" "$plan_root/data"
cp plans/examples/*.yaml "$plan_dir"
for wf in "$plan_dir"/*.yaml; do
    for sites in 1 2 4; do
        plan="$seeds/plan_file/$(basename "$wf" .yaml)-s$sites.plan"
        "$build/apps/tra" plan "$wf" --sites "$sites" -o "$plan" >/dev/null
    done
done

source tools/sanitize/env.sh "$work/sanitizer-logs"
# libFuzzer reports its own findings; the log files would only duplicate them.
unset TRA_SANITIZER_LOGS
export ASAN_OPTIONS=${ASAN_OPTIONS//log_path=*asan:/}
export UBSAN_OPTIONS=${UBSAN_OPTIONS//log_path=*ubsan:/}
fuzzers="$PWD/$build/tests/fuzz"
failed=()
for target in "${targets[@]}"; do
    corpus="$work/corpus/$target"
    artifacts="$work/artifacts/$target"
    mkdir -p "$corpus" "$artifacts"
    dirs=("$corpus")
    for d in "$PWD/tests/fuzz/corpus/$target" "$PWD/tests/fuzz/regressions/$target" "$seeds/$target"; do
        [ -d "$d" ] && dirs+=("$d")
    done
    # Huge numbers (tests/fuzz/dictionaries), plus the target's own words where it has some.
    dict="$work/$target.dict"
    cat "$PWD/tests/fuzz/dictionaries/numbers.dict" > "$dict"
    [ -f "$PWD/tests/fuzz/dictionaries/$target.dict" ] &&
        cat "$PWD/tests/fuzz/dictionaries/$target.dict" >> "$dict"
    echo "== fuzzing $target for $seconds s"
    rc=0
    (cd "$work" && "$fuzzers/fuzz_$target" -max_total_time="$seconds" -timeout=10 \
        -rss_limit_mb=2048 -max_len=8192 -print_final_stats=1 -dict="$dict" \
        -artifact_prefix="$artifacts/" "${dirs[@]}") > "$work/$target.log" 2>&1 || rc=$?
    grep -E '^stat::number_of_executed_units|^stat::peak_rss_mb|^Done ' "$work/$target.log" || true
    if [ "$rc" -ne 0 ]; then
        tail -n 60 "$work/$target.log"
        echo "FAIL: fuzz_$target found a problem; inputs in $artifacts" >&2
        failed+=("$target")
    fi
done
((${#failed[@]} == 0)) || { echo "FAIL: ${failed[*]}" >&2; exit 1; }
echo "== fuzzing clean"
