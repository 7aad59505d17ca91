#!/usr/bin/env bash
# Output-writer benchmark: the `write` operator's seconds (the run report's, rank 0's wall time
# from the start of the write to the last rank's end) of `tra run` on an output of 64, 256 and
# 512 MiB (f64, tiles of 512 x 512, relu of a generated input), for 1-4 ranks, with each writer
# of TRA_OUTPUT_WRITER (lib/runtime/output_files.hpp): turns, collective, independent. The runs
# are interleaved (every writer once per repetition, 3 repetitions) and the median is printed.
# Outputs go to a folder on disk (the page cache takes them: this measures the writers' cost
# up to the kernel, not the disk). Ranks beyond the machine's cores are oversubscribed.
# Usage: [MIB="64 256 512"] tools/bench/output_writers.sh [build-dir] [ranks...]
#   (default: build 1 2 3 4; MIB picks among the three sizes)
set -euo pipefail
cd "$(dirname "$0")/../.."
tra=$PWD/${1:-build}/apps/tra
shift || true
ranks=("$@")
[ ${#ranks[@]} -gt 0 ] || ranks=(1 2 3 4)
[ -x "$tra" ] || { echo "build tra first (bash tools/setup.sh)" >&2; exit 1; }
work=$(mktemp -d "${TMPDIR:-/var/tmp}/tra-writers.XXXXXX")
trap 'rm -rf "$work"' EXIT
cd "$work"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
writers=(turns collective independent)
printf '%-8s %5s %12s %12s %12s\n' MiB ranks "${writers[@]}"
for mib in ${MIB:-64 256 512}; do
    case $mib in
        64) shape="4096, 2048" ;;
        256) shape="8192, 4096" ;;
        512) shape="8192, 8192" ;;
        *) echo "MIB is 64, 256 or 512, not $mib" >&2; exit 1 ;;
    esac
    cat > w.yaml <<YAML
name: writers
dtype: f64
inputs:
  X: {shape: [$shape], tile: [512, 512], generate: {uniform: [-1, 1], seed: 1}}
program:
  - Y: {transform: X, kernel: relu}
outputs:
  Y: {file: out/Y.h5}
YAML
    for n in "${ranks[@]}"; do
        declare -A times=()
        for rep in 1 2 3; do
            for w in "${writers[@]}"; do
                rm -rf "r"
                TRA_OUTPUT_WRITER=$w mpiexec -n "$n" "$tra" run w.yaml --out-dir r \
                    --report r.json > log 2>&1 || { cat log >&2; exit 1; }
                times[$w]+="$(/usr/bin/python3 -c 'import json,sys
print([o["seconds"] for o in json.load(open(sys.argv[1]))["operators"] if o["op"] == "write"][0])' r.json) "
            done
        done
        row=()
        for w in "${writers[@]}"; do
            row+=("$(printf '%s\n' ${times[$w]} | sort -g | sed -n 2p)")
        done
        printf '%-8s %5s %12.3f %12.3f %12.3f\n' "$mib" "$n" "${row[@]}"
        unset times
    done
done
