#!/usr/bin/env bash
# Every workflow in plans/examples/ and plans/models/ gives the same outputs with --device gpu as on the CPU, on one
# rank and, under mpiexec, on two (tra diff, default tolerances). Exits 77 (skipped) when this tra
# has no GPU backend or no GPU is visible.
# Usage: bash test_examples_gpu.sh TRA_BINARY SOURCE_DIR WORK_DIR MPIEXEC
set -euo pipefail

usage="usage: bash test_examples_gpu.sh TRA_BINARY SOURCE_DIR WORK_DIR MPIEXEC"
TRA=${1:?$usage}
SRC=${2:?$usage}
WORK=${3:?$usage}
MPIEXEC=${4:?$usage}

fail() {
    echo "FAIL (examples on gpu): $*" >&2
    exit 1
}

rm -rf "$WORK"
mkdir -p "$WORK"
shopt -s nullglob
workflows=("$SRC"/plans/examples/*.yaml "$SRC"/plans/models/*.yaml)
[ "${#workflows[@]}" -gt 0 ] || fail "no workflows in $SRC/plans/examples or $SRC/plans/models"

# Can this tra use a GPU here? Its own error says why not.
rc=0
"$TRA" run "${workflows[0]}" --device gpu --out-dir "$WORK/probe" > "$WORK/probe.log" 2>&1 || rc=$?
if [ "$rc" -ne 0 ]; then
    if grep -q -e "-DTRA_CUDA=ON" -e "no GPU is visible" "$WORK/probe.log"; then
        echo "SKIP: $(grep -m1 'error' "$WORK/probe.log")"
        exit 77
    fi
    cat "$WORK/probe.log" >&2
    fail "probe run on the GPU exited with $rc"
fi

checked=0
for wf in "${workflows[@]}"; do
    name=$(basename "$wf" .yaml)
    for ranks in 1 2; do
        launch=()
        [ "$ranks" -gt 1 ] && launch=("$MPIEXEC" -n "$ranks")
        for device in cpu gpu; do
            out="$WORK/$name.n$ranks.$device"
            rc=0
            "${launch[@]}" "$TRA" run "$wf" --device "$device" --out-dir "$out" \
                > "$out.log" 2>&1 || rc=$?
            [ "$rc" -eq 0 ] || { cat "$out.log" >&2; fail "$name: $device run on $ranks rank(s) exited with $rc"; }
        done
        while read -r output location; do
            file=${location%%:*}
            dataset=${location#*:}
            gpu_file="$WORK/$name.n$ranks.gpu/${file#"$WORK/$name.n$ranks.cpu/"}"
            rc=0
            "$TRA" diff "$file:$dataset" "$gpu_file:$dataset" > "$WORK/$name.n$ranks.$output.diff" 2>&1 || rc=$?
            [ "$rc" -eq 0 ] || { cat "$WORK/$name.n$ranks.$output.diff" >&2; fail "$name: output $output differs on the GPU ($ranks rank(s))"; }
            checked=$((checked + 1))
        done < <(sed -n 's/^wrote \([^ ]*\) to \(.*\)$/\1 \2/p' "$WORK/$name.n$ranks.cpu.log")
    done
done
[ "$checked" -gt 0 ] || fail "no outputs compared"
echo "ok: $checked outputs of ${#workflows[@]} example workflows equal on GPU and CPU"
