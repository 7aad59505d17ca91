#!/usr/bin/env bash
# `tra calibrate --quick` as a plain process (1 rank) and under mpiexec -n 2: it writes a machine
# profile (docs/machine-profile.md) that PyYAML reads with every field present, every rate a
# positive finite number, gemm sizes ascending, the threads and ranks it ran with, and links
# measured only where the run has a pair of ranks for them; nothing else is left in the output
# folder. Bad options are refused with exit 2 before anything is measured or written.
# Usage: bash test_calibrate.sh TRA_BINARY SOURCE_DIR WORK_DIR
set -euo pipefail

# shellcheck source=tests/test_helpers.bash
source "$(dirname "${BASH_SOURCE[0]}")/../test_helpers.bash" cli calibrate "$@"
: "$SRC"

enter_work_dir
count_failures

# check_profile FILE RANKS NAME SAME_HOST(measured|unmeasured)
check_profile() {
    "$PY" - "$@" << 'PY' || fail "$1: the profile is not what it should be (see above)"
import math, sys, yaml
path, ranks, name, same_host = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
text = open(path).read()
assert text.startswith("#") and "tra calibrate" in text.split("format:")[0], "no header comment"
p = yaml.safe_load(text)
# message_seconds: only where ranks exchanged messages, and the runtime took longer than the
# links' price for them (every machine seen so far).
assert set(p) - {"message_seconds"} == {
    "format", "name", "blas", "ranks", "dtypes", "memory_bytes_per_second",
    "permute_bytes_per_second", "kernel_call_seconds", "einsum_call_seconds", "operator_seconds",
    "exchange_seconds", "first_touch_bytes_per_second", "links"}, sorted(p)
def rate(v, what):
    assert isinstance(v, (int, float)) and not isinstance(v, bool), (what, v)
    assert math.isfinite(v) and v > 0, (what, v)
assert p["format"] == "tra-machine/1", p["format"]
assert p["name"] == name, (p["name"], name)
assert p["blas"]["threads"] == 1, p["blas"]  # ctest sets OPENBLAS_NUM_THREADS=1
assert isinstance(p["blas"]["core"], str), p["blas"]
assert p["ranks"] == ranks, p["ranks"]
assert set(p["dtypes"]) == {"f32", "f64"}, p["dtypes"]
for dtype, d in p["dtypes"].items():
    sizes = [g["size"] for g in d["gemm"]]
    assert sizes == [16, 32, 64, 128, 256, 512], (dtype, sizes)  # --quick's sizes
    for g in d["gemm"]:
        rate(g["flops_per_second"], f"{dtype} gemm {g['size']}")
    rate(d["loop_flops_per_second"], f"{dtype} loop")
    rate(d["lanes_flops_per_second"], f"{dtype} lanes product")
    counts = [l["lanes"] for l in d["lanes_by_count"]]
    assert counts == [8, 16, 64, 256, 1024], (dtype, counts)
    for l in d["lanes_by_count"]:
        rate(l["flops_per_second"], f"{dtype} lanes product, {l['lanes']} lanes")
rate(p["memory_bytes_per_second"], "memory")
rate(p["permute_bytes_per_second"], "permute")
rate(p["first_touch_bytes_per_second"], "first touch")
rate(p["kernel_call_seconds"], "kernel call")
assert p["kernel_call_seconds"] < 1e-3, p["kernel_call_seconds"]
rate(p["einsum_call_seconds"], "einsum call")
assert p["kernel_call_seconds"] <= p["einsum_call_seconds"] < 1e-3, p["einsum_call_seconds"]
rate(p["operator_seconds"], "operator")
assert p["operator_seconds"] < 0.1, p["operator_seconds"]  # tiny joins, even oversubscribed
rate(p["exchange_seconds"], "exchange")
assert p["exchange_seconds"] < 0.1, p["exchange_seconds"]  # a carry that moves nothing
if ranks == 1:
    assert "message_seconds" not in p, p["message_seconds"]  # no messages on one rank
elif "message_seconds" in p:
    rate(p["message_seconds"], "message")
    assert p["message_seconds"] < 0.1, p["message_seconds"]
links = p["links"]
assert links["across_hosts"] == "unmeasured", links  # the test runs on one host
if same_host == "unmeasured":
    assert links["same_host"] == "unmeasured", links
else:
    rate(links["same_host"]["latency_seconds"], "latency")
    rate(links["same_host"]["bytes_per_second"], "bandwidth")
    rate(links["same_host"]["duplex_bytes_per_second"], "duplex bandwidth")
    assert set(links["same_host"]) == {"latency_seconds", "bytes_per_second",
                                       "duplex_bytes_per_second"}, links
print(f"{path}: {p['ranks']} rank(s), f64 gemm 512 {p['dtypes']['f64']['gemm'][-1]['flops_per_second']:.3g} flop/s, links {links}")
PY
}

# only_file FOLDER NAME: FOLDER holds NAME and nothing else (no temporary file left behind).
only_file() {
    local listing
    listing=$(ls -A "$1")
    [ "$listing" = "$2" ] || fail "$1 holds '$listing', expected only '$2'"
}

# One rank, a plain process; the folder does not exist yet.
rc=0
timeout 60 "$TRA" calibrate --quick -o one/m.yaml --name "test host: one" > one.log 2>&1 || rc=$?
if [ "$rc" -ne 0 ]; then
    cat one.log >&2
    fail "tra calibrate --quick (1 rank) exited with $rc"
else
    grep -q "^measuring matmul f64 64$" one.log || fail "1 rank: no progress line for matmul f64 64"
    grep -q "^wrote one/m.yaml (1 rank," one.log || fail "1 rank: no 'wrote' line"
    check_profile one/m.yaml 1 "test host: one" unmeasured
    only_file one m.yaml
fi

# Two ranks on this host: the same-host link is measured. The file is replaced.
mkdir two
echo "old" > two/m.yaml
rc=0
timeout 60 mpiexec -n 2 "$TRA" calibrate --quick -o two/m.yaml --name two > two.log 2>&1 || rc=$?
if [ "$rc" -ne 0 ]; then
    cat two.log >&2
    fail "mpiexec -n 2 tra calibrate --quick exited with $rc"
else
    grep -q "^measuring ping-pong on one host: ranks 0 and 1$" two.log ||
        fail "2 ranks: no progress line for the ping-pong"
    check_profile two/m.yaml 2 two measured
    only_file two m.yaml
fi

# --for: the workflow's product (4 x 6 by 6 x 5 tiles, f64) measured at its shape and used by
# `tra plan` with that profile. The workflow is a matrix product of 2 x 2 by 2 x 2 tiles.
mkdir shapes
cat > shapes/mm.yaml << 'YAML'
name: mm
sites: 1
inputs:
  A: {shape: [8, 12], tile: [4, 6], generate: {uniform: [-1, 1], seed: 1}}
  B: {shape: [12, 10], tile: [6, 5], generate: {uniform: [-1, 1], seed: 2}}
program:
  - Cj: {join: [A, B], on: [[1], [0]], kernel: matmul}
  - C:  {aggregate: Cj, by: [0, 2], kernel: add}
outputs:
  C: {file: out/c.h5}
YAML
rc=0
timeout 60 "$TRA" calibrate --quick -o shapes/m.yaml --for shapes/mm.yaml > shapes.log 2>&1 || rc=$?
if [ "$rc" -ne 0 ]; then
    cat shapes.log >&2
    fail "tra calibrate --quick --for exited with $rc"
else
    grep -q "^measuring matmul f64 4 x 6 by 6 x 5$" shapes.log ||
        fail "--for: no progress line for the product 4 x 6 by 6 x 5"
    "$PY" - shapes/m.yaml << 'PY' || fail "--for: gemm_shapes is not the workflow's product"
import math, sys, yaml
p = yaml.safe_load(open(sys.argv[1]))
shapes = p["dtypes"]["f64"]["gemm_shapes"]
assert [(s["m"], s["n"], s["k"]) for s in shapes] == [(4, 5, 6)], shapes
assert math.isfinite(shapes[0]["flops_per_second"]) and shapes[0]["flops_per_second"] > 0
assert "gemm_shapes" not in p["dtypes"]["f32"], "an f64 workflow measured f32 shapes"
PY
    "$TRA" plan shapes/mm.yaml --machine shapes/m.yaml > shapes-plan.log 2>&1 ||
        fail "tra plan with the --for profile failed: $(cat shapes-plan.log)"
fi
rc=0
"$TRA" calibrate --quick -o shapes/n.yaml --for shapes/missing.yaml > missing.log 2>&1 || rc=$?
[ "$rc" -eq 2 ] || fail "--for a missing workflow: exit $rc, expected 2"
grep -q "missing.yaml" missing.log || fail "--for a missing workflow: not named in $(cat missing.log)"
[ ! -e shapes/n.yaml ] || fail "--for a missing workflow: a profile was written"

# Bad options: exit 2, a message naming the problem, nothing written.
expect_refused() {
    local what=$1 message=$2
    shift 2
    rc=0
    "$TRA" calibrate --quick "$@" > bad.log 2>&1 || rc=$?
    [ "$rc" -eq 2 ] || fail "$what: exit $rc, expected 2"
    grep -q -- "$message" bad.log || fail "$what: no '$message' in: $(cat bad.log)"
}
mkdir bad
expect_refused "--threads 0" "--threads must be at least 1" -o bad/m.yaml --threads 0
expect_refused "an output that is a folder" "is a folder" -o bad
expect_refused "no --output" "--output is required"
[ -z "$(ls -A bad)" ] || fail "a refused calibrate left files: $(ls -A bad)"

finish_counted "PASS (calibrate)"
