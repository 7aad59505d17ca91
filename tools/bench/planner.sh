#!/usr/bin/env bash
# Planner benchmark: median wall time of `tra plan` (no data is touched) on every paper
# workflow and on generated transformer-like stacks (tools/bench/gen_stack.py), 5 runs each.
# Usage: tools/bench/planner.sh [build-dir]   (default: build)
set -euo pipefail
cd "$(dirname "$0")/../.."
tra=${1:-build}/apps/tra
[ -x "$tra" ] || { echo "build tra first (bash tools/setup.sh)" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
median_ms() {  # median of 5 runs of "$@", in milliseconds
    local times=()
    for _ in 1 2 3 4 5; do
        local t0 t1
        t0=$(date +%s%N)
        "$@" > /dev/null
        t1=$(date +%s%N)
        times+=($(((t1 - t0) / 1000000)))
    done
    printf '%s\n' "${times[@]}" | sort -n | sed -n 3p
}
printf '%-32s %10s %12s\n' workflow operators "median ms"
for wf in plans/paper/*.yaml; do
    ops=$("$tra" validate "$wf" | grep -c '^[A-Za-z_]' || true)
    printf '%-32s %10s %12s\n' "$(basename "$wf")" "$((ops - 2))" "$(median_ms "$tra" plan "$wf" --top 1)"
done
for layers in 1 2 4 8 24; do
    /usr/bin/python3 tools/bench/gen_stack.py "$layers" > "$work/stack$layers.yaml"
    ops=$("$tra" validate "$work/stack$layers.yaml" | grep -c '^[A-Za-z_]' || true)
    printf '%-32s %10s %12s\n' "stack, $layers layers" "$((ops - 2))" \
        "$(median_ms "$tra" plan "$work/stack$layers.yaml" --top 1)"
done
