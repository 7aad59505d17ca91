#!/usr/bin/env bash
# The benchmark baselines of tools/bench compute the right product on RANKS ranks on every
# process grid (each checks elements of C against closed forms and exits 1 when they differ):
# the dgemm ceiling, the MPI + OpenBLAS SUMMA (whose counted bytes must equal the 2-D SUMMA
# formula and never undercut the communication lower bound), ScaLAPACK pdgemm and DBCSR's
# block-sparse multiply where built.
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

# DBCSR's block-sparse multiply where built (libdbcsr-dev): A (110 x 60) and B (60 x 90) in
# HDF5 with 20 x 20 chunks, only some written (the last block row and column ragged); its
# norm of C, block count and flops must be numpy's and the pattern's.
if [ -x "$bench/bench_dbcsr_multiply" ]; then
    /usr/bin/python3 - "$WORK" <<'PY' || fail "writing DBCSR's inputs"
import sys, h5py, numpy as np
rng = np.random.default_rng(7)
dense = {}
for name, (m, n) in (("A", (110, 60)), ("B", (60, 90))):
    with h5py.File("%s/%s.h5" % (sys.argv[1], name), "w") as f:
        ds = f.create_dataset(name, (m, n), dtype="f8", chunks=(20, 20))
        full = np.zeros((m, n))
        for i in range(0, m, 20):
            for j in range(0, n, 20):
                if rng.random() < 0.5:
                    full[i:i + 20, j:j + 20] = rng.uniform(-1, 1, full[i:i + 20, j:j + 20].shape)
                    ds[i:i + 20, j:j + 20] = full[i:i + 20, j:j + 20]
    dense[name] = full
np.save("%s/C.npy" % sys.argv[1], dense["A"] @ dense["B"])
pa = np.array([[dense["A"][i:i + 20, k:k + 20].any() for k in range(0, 60, 20)]
               for i in range(0, 110, 20)])
pb = np.array([[dense["B"][k:k + 20, j:j + 20].any() for j in range(0, 90, 20)]
               for k in range(0, 60, 20)])
rows = [min(20, 110 - i) for i in range(0, 110, 20)]
cols = [min(20, 90 - j) for j in range(0, 90, 20)]
flops = sum(2 * rows[i] * 20 * cols[j] for i in range(len(rows)) for j in range(len(cols))
            for k in range(3) if pa[i, k] and pb[k, j])
blocks = ((pa.astype(int) @ pb.astype(int)) > 0).sum()
open("%s/expected" % sys.argv[1], "w").write("%d %d" % (flops, blocks))
PY
    # One OpenMP thread per rank: DBCSR's threads spin, and the ranks may outnumber the cores.
    OMP_NUM_THREADS=1 "$MPIEXEC" -n "$RANKS" "$bench/bench_dbcsr_multiply" \
        "$WORK/A.h5" /A "$WORK/B.h5" /B 20 2 > "$WORK/dbcsr.json" || fail "bench_dbcsr_multiply"
    /usr/bin/python3 - "$WORK" <<'PY' || fail "DBCSR's product"
import json, sys, numpy as np
got = json.loads(open("%s/dbcsr.json" % sys.argv[1]).read().splitlines()[-1])
c = np.load("%s/C.npy" % sys.argv[1])
flops, blocks = map(int, open("%s/expected" % sys.argv[1]).read().split())
if abs(got["norm_c"] - np.linalg.norm(c)) > 1e-12 * np.linalg.norm(c):
    sys.exit("norm %r, numpy %r" % (got["norm_c"], np.linalg.norm(c)))
if (got["flops"], got["blocks_c"], len(got["seconds"])) != (flops, blocks, 2):
    sys.exit("flops %d, blocks %d; expected %d, %d" % (got["flops"], got["blocks_c"], flops,
                                                        blocks))
PY
fi

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
