#!/usr/bin/env bash
# Planner benchmark: median wall time of `tra plan` (no data is touched) on every paper
# workflow, on the paper's matmuls with tile: auto (plans/paper/auto: at their own sites and at
# 1024) and on generated transformer-like stacks (tools/bench/gen_stack.py), 5 runs each.
# Usage: tools/bench/planner.sh [build-dir]   (default: build; TRA=PATH names the binary instead)
set -euo pipefail
cd "$(dirname "$0")/../.."
tra=${TRA:-${1:-build}/apps/tra}
unset TRA_MACHINE  # the built-in machine profile
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
for wf in plans/paper/auto/*.yaml; do  # validate adds a "tile: auto" line: not an operator
    ops=$("$tra" validate "$wf" | grep -v '^tile: ' | grep -c '^[A-Za-z_]' || true)
    for sites in "" 1024; do
        printf '%-32s %10s %12s\n' "auto/$(basename "$wf")${sites:+ @$sites}" "$((ops - 2))" \
            "$(median_ms "$tra" plan "$wf" --top 1 ${sites:+--sites "$sites"})"
    done
done
for layers in 1 2 4 8 24; do
    /usr/bin/python3 tools/bench/gen_stack.py "$layers" > "$work/stack$layers.yaml"
    ops=$("$tra" validate "$work/stack$layers.yaml" | grep -c '^[A-Za-z_]' || true)
    printf '%-32s %10s %12s\n' "stack, $layers layers" "$((ops - 2))" \
        "$(median_ms "$tra" plan "$work/stack$layers.yaml" --top 1)"
done
