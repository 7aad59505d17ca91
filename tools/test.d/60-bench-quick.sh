#!/usr/bin/env bash
# The benchmark harness end to end at its --quick sizes (docs/benchmarks.md): every baseline and
# every tra case runs on 1 and 2 ranks and lands in the JSON report. Times are not checked (the
# machine is shared); that the harness works, and ScaLAPACK and DBCSR are found, is. Then the
# block-sparse bench (tools/bench/block_sparse.py) at a small size, which checks every product.
# Usage: tools/test.d/60-bench-quick.sh BUILD_DIR
set -euo pipefail
cd "$(dirname "$0")/../.."
build=$(cd "${1:?usage: 60-bench-quick.sh BUILD_DIR}" && pwd)
start=$(date +%s)
echo "== tools/bench/compare.py --quick"
[ -x "$build/tools/bench/bench_pdgemm" ] ||
    { echo "bench_pdgemm was not built: is libscalapack-openmpi-dev installed?" >&2; exit 1; }
[ -x "$build/tools/bench/bench_dbcsr_multiply" ] ||
    { echo "bench_dbcsr_multiply was not built: is libdbcsr-dev installed?" >&2; exit 1; }
out="$build/bench-quick"
rm -rf "$out" "$out-f32" "$out-sparse"
nice -n 10 /usr/bin/python3 tools/bench/compare.py --quick --build "$build" --out "$out"
/usr/bin/python3 - "$out/bench.json" <<'PY'
import json, sys
rows = json.load(open(sys.argv[1]))["rows"]
cases = {(r["case"], r["ranks"]) for r in rows}
assert len(cases) == 16, sorted(cases)  # 4 matrix products and 4 workflows on 1 and 2 ranks
for r in rows:
    m = r["methods"]
    assert m["tra"]["seconds"] > 0, r["case"]
    # Ranked with the profile `tra calibrate` measured in the same invocation, and predicted.
    assert all(p["predicted_seconds"] > 0 for p in r["tra_plans"]), r["tra_plans"]
    if r["case"].startswith("mm-"):
        assert {"scalapack", "summa", "ceiling"} <= m.keys(), (r["case"], sorted(m))
        if r["ranks"] > 1:  # no plan moves less than the lower bound
            assert m["tra"]["bytes"] >= r["lower_bound_bytes"], r
PY
# Single precision end to end on one shape: tra's f32 workflow and every baseline in f32.
nice -n 10 /usr/bin/python3 tools/bench/compare.py --quick --build "$build" --out "$out-f32" \
    --dtype f32 --cases mm-square --tiles 512
/usr/bin/python3 - "$out-f32/bench.json" <<'PY'
import json, sys
report = json.load(open(sys.argv[1]))
assert report["dtype"] == "f32", report["dtype"]
rows = report["rows"]
assert {(r["case"], r["ranks"]) for r in rows} == {("mm-square", 1), ("mm-square", 2)}, rows
for r in rows:
    assert r["dtype"] == "f32" and {"tra", "scalapack", "summa", "ceiling"} <= r["methods"].keys()
    if r["ranks"] > 1:  # no plan moves less than the bound, counted in 4-byte elements
        assert r["lower_bound_bytes"] > 0 and r["methods"]["tra"]["bytes"] >= r["lower_bound_bytes"]
PY
# Block-sparse C = A B: tra sparse, tra dense and DBCSR at 3 densities on 1 and 2 ranks; the
# script exits 1 when a product (tra's output file, DBCSR's norm, flops or blocks) is wrong.
echo "== tools/bench/block_sparse.py (small)"
nice -n 10 /usr/bin/python3 tools/bench/block_sparse.py --build "$build" --out "$out-sparse" \
    --n 1024 --block 128 --densities 0.05,0.3,1 --repeats 1 --no-calibrate
/usr/bin/python3 - "$out-sparse/block_sparse.json" <<'PY'
import json, sys
rows = json.load(open(sys.argv[1]))["rows"]
assert len(rows) == 6, [(r["density"], r["ranks"]) for r in rows]
for r in rows:
    assert set(r["seconds"]) == {"tra sparse", "tra dense", "dbcsr"}, r["seconds"]
    assert not r["errors"], r["errors"]
PY
echo "== bench quick: ok in $(($(date +%s) - start)) s"
