#!/usr/bin/env bash
# The benchmark baselines of tools/bench compute the right product on RANKS ranks on every
# process grid (each checks elements of C against closed forms and exits 1 when they differ):
# the dgemm ceiling, the MPI + OpenBLAS SUMMA (whose counted bytes must equal the 2-D SUMMA
# formula and never undercut the communication lower bound) and ScaLAPACK pdgemm where built.
# Usage: bash test_bench_baselines.sh TRA_BINARY SOURCE_DIR WORK_DIR RANKS MPIEXEC
set -euo pipefail

# shellcheck source=tests/test_helpers.bash
source "$(dirname "${BASH_SOURCE[0]}")/../test_helpers.bash" mpi bench_baselines "$@"

bench=$(cd "$(dirname "$TRA")/../tools/bench" && pwd) || fail "no tools/bench build folder"
for b in ceiling summa; do [ -x "$bench/bench_$b" ] || fail "bench_$b was not built"; done
enter_work_dir
export OPENBLAS_NUM_THREADS=1

# I K J: square, a large inner dimension, a large outer one; all divide by 1..4 ranks and by
# NB = 20 per rank. Every program runs in f64 and, on the square shape, in f32 (SUMMA's bytes
# then count 4 per element).
shapes=("240 240 240" "120 480 240" "480 240 120")
for shape in "${shapes[@]}"; do
    read -r I K J <<< "$shape"
    first=$([ "$shape" = "${shapes[0]}" ] && echo 1 || echo 0)  # the others: SUMMA in f64 only
    elements=(f64)
    ((first)) && elements=(f64 f32)
    for element in "${elements[@]}"; do
        if ((first)); then
            "$MPIEXEC" -n "$RANKS" "$bench/bench_ceiling" "$I" "$K" "$J" 1 "$element" \
                > "$WORK/ceiling.json" || fail "bench_ceiling $shape $element"
        fi
        for ((pr = 1; pr <= RANKS; pr++)); do
            ((RANKS % pr == 0)) || continue
            pc=$((RANKS / pr))
            "$MPIEXEC" -n "$RANKS" "$bench/bench_summa" "$I" "$K" "$J" $pr $pc 20 2 "$element" \
                > "$WORK/summa.json" || fail "bench_summa $shape $element on ${pr}x$pc"
            /usr/bin/python3 - "$SRC/tools/bench" "$WORK/summa.json" "$I" "$K" "$J" $pr $pc \
                "$element" <<'PY' ||
import json, sys
sys.path.insert(0, sys.argv[1])
import lower_bound
got = json.load(open(sys.argv[2]))["received_bytes"]
I, K, J, pr, pc = map(int, sys.argv[3:8])
size = lower_bound.ELEMENT_BYTES[sys.argv[8]]
want = size * lower_bound.summa_words(I, J, K, pr, pc)
bound = size * lower_bound.memory_independent_words(I, J, K, pr * pc)
if got != want or got < bound - 1e-6:
    sys.exit("received %d bytes, formula %g, lower bound %g" % (got, want, bound))
PY
                fail "SUMMA bytes on ${pr}x$pc for $shape $element"
            if ((first)) && [ -x "$bench/bench_pdgemm" ]; then
                # Blocks of 32 do not divide the extents: the ragged last block is exercised.
                "$MPIEXEC" -n "$RANKS" "$bench/bench_pdgemm" "$I" "$K" "$J" $pr $pc 32 1 \
                    "$element" > "$WORK/pdgemm.json" ||
                    fail "bench_pdgemm $shape $element on ${pr}x$pc"
            fi
        done
    done
done

# An element type the baselines do not know is refused with a usage message.
if "$MPIEXEC" -n 1 "$bench/bench_ceiling" 8 8 8 1 f16 > "$WORK/bad.out" 2>&1; then
    fail "bench_ceiling accepted element type f16"
fi
grep -q "usage: bench_ceiling" "$WORK/bad.out" || fail "no usage message for f16"

# The lower bound quoted in docs/benchmarks.md: 4096^3 in f64, 104.66 MB on 2 ranks, 236.52 on 4.
/usr/bin/python3 - "$SRC/tools/bench" <<'PY' || fail "lower bound figures"
import sys
sys.path.insert(0, sys.argv[1])
import lower_bound
for p, mb in ((1, 0.0), (2, 104.658), (4, 236.519)):
    got = lower_bound.memory_independent_words(4096, 4096, 4096, p) * 8 / 1e6
    if abs(got - mb) > 0.001:
        sys.exit("%d ranks: %.3f MB, expected %.3f" % (p, got, mb))
PY
echo "ok (bench_baselines, $RANKS ranks)"
