#!/usr/bin/env bash
# Machine profiles for the time model (docs/machine-profile.md): `--machine FILE` and
# `TRA_MACHINE` select one; `tra plan` says which in one line and in its JSON; a profile's
# rates change the ranking (a network 1000x slower than the default makes a plan that moves
# nothing rank first); plan files record what ranked them; `tra run` reports the profile; a
# profile's lanes-product rate decides, in the model and in the run's kernels alike, whether a
# batch-innermost einsum runs as lanes or permutes for BLAS; a malformed profile is an error
# naming file:line and the field, exit 2, on plan and run alike.
# Usage: bash test_machine_profile.sh TRA_BINARY SOURCE_DIR WORK_DIR
set -euo pipefail

# shellcheck source=tests/test_helpers.bash
source "$(dirname "${BASH_SOURCE[0]}")/../test_helpers.bash" cli machine_profile "$@"
: "$SRC"

enter_work_dir
count_failures
matmul_workflow common_k "64, 1024" "64, 64" "1024, 64" "64, 64" einsum > k.yaml

# profile NAME BYTES_PER_SECOND [LANES_FLOPS_PER_SECOND]: a complete profile with that
# bandwidth on both links (and that f64 lanes-product rate; none: unmeasured).
profile() {
    local lanes=""
    [ -z "${3:-}" ] || lanes="
    lanes_flops_per_second: $3"
    cat << YAML
format: tra-machine/1
name: "$1"
blas: {core: "", threads: 1}
ranks: 2
dtypes:
  f64:
    gemm:
      - {size: 64, flops_per_second: 2.0e+10}
      - {size: 512, flops_per_second: 4.0e+10}
    loop_flops_per_second: 6.0e+08$lanes
  f32:
    gemm:
      - {size: 64, flops_per_second: 4.0e+10}
    loop_flops_per_second: 8.0e+08
memory_bytes_per_second: 5.0e+09
kernel_call_seconds: 2.0e-06
links:
  same_host: {latency_seconds: 2.0e-06, bytes_per_second: $2}
  across_hosts: unmeasured
YAML
}
profile fast 5.0e+09 > fast.yaml
profile slow-net 5.0e+06 > slow.yaml

"$TRA" plan k.yaml --sites 2 > builtin.txt || fail "plan"
grep -q "^machine profile: built-in default" builtin.txt ||
    fail "the listing does not say it uses the built-in profile"
"$TRA" plan k.yaml --sites 2 --top 50 --machine fast.yaml --format json > fast.json ||
    fail "plan --machine fast.yaml"
TRA_MACHINE=slow.yaml "$TRA" plan k.yaml --sites 2 --top 50 --format json > slow.json ||
    fail "plan with TRA_MACHINE"
TRA_MACHINE=slow.yaml "$TRA" plan k.yaml --sites 2 > slow.txt || fail "plan with TRA_MACHINE"
grep -q "^machine profile: slow-net (slow.yaml, fnv1a64:" slow.txt ||
    fail "the listing does not name TRA_MACHINE's profile: $(grep machine slow.txt)"
"$PY" - fast.json slow.json << 'PY' || fail "rankings by profile (see above)"
import json, sys
fast, slow = (json.load(open(f)) for f in sys.argv[1:3])
assert fast["machine"]["name"] == "fast" and fast["machine"]["source"] == "fast.yaml", fast["machine"]
assert slow["machine"]["name"] == "slow-net", slow["machine"]
assert fast["machine"]["content_hash"] != slow["machine"]["content_hash"]
f, s = fast["plans"][0], slow["plans"][0]
print("fast network first:", f["name"], f["exact_bytes"], "slow network first:", s["name"], s["exact_bytes"])
# Moving 64 KiB tiles at 5 MB/s costs more than computing every product on one site.
assert f["exact_bytes"] > 0 and s["exact_bytes"] == 0, (f, s)
PY

"$TRA" plan k.yaml --sites 2 --machine slow.yaml -o plan.yaml > /dev/null || fail "plan -o"
grep -q '^ranked_by: {cost: "time", machine: "slow-net", machine_hash: "fnv1a64:' plan.yaml ||
    fail "the plan file does not record its ranking: $(grep ranked_by plan.yaml)"
"$TRA" explain plan.yaml > /dev/null || fail "explain of a plan file with ranked_by"

"$TRA" run k.yaml --machine fast.yaml --report run.json > run.out 2>&1 ||
    { cat run.out >&2; fail "run --machine"; }
grep -q "by machine profile fast (fast.yaml)" run.out || fail "run does not name its profile"
"$PY" -c 'import json, sys; r = json.load(open(sys.argv[1])); assert r["machine"]["name"] == "fast", r' \
    run.json || fail "the run report does not name its profile"

# The lanes product's rate (docs/machine-profile.md): b is innermost in every operand of
# ikb,kjb->ijb, so BLAS needs all three permuted (3 x 32 KiB read and written) while the lanes
# product permutes nothing. Lanes at 1e6 flop/s (131072 flops: 0.13 s) lose to BLAS, lanes at
# 1e13 win: the model predicts the join and its sum faster with the fast lanes by the permutes'
# passes (196608 bytes at 5e9 B/s, 39 us), and each run, whose kernels choose by its profile,
# equals numpy's einsum.
cat > lanes.yaml << 'YAML'
name: lanes
inputs:
  A: {shape: [16, 16, 16], tile: [16, 16, 16], generate: {uniform: [-1, 1], seed: 1}}
  B: {shape: [16, 16, 16], tile: [16, 16, 16], generate: {uniform: [-1, 1], seed: 2}}
program:
  - Z: {einsum: "ikb,kjb->ijb", inputs: [A, B]}
outputs:
  Z: {file: out/Z.h5}
YAML
profile slow-lanes 5.0e+09 1.0e+06 > slow_lanes.yaml
profile fast-lanes 5.0e+09 1.0e+13 > fast_lanes.yaml
"$TRA" gen lanes.yaml > gen.log 2>&1 || { cat gen.log >&2; fail "tra gen lanes.yaml"; }
"$PY" - << 'PY' || fail "numpy could not compute ikb,kjb->ijb"
import h5py, numpy as np
a, b = (h5py.File(n + ".h5", "r")["/" + n][...] for n in "AB")
with h5py.File("lanes_expected.h5", "w") as f:
    f["Z"] = np.einsum("ikb,kjb->ijb", a, b)
PY
for speed in slow fast; do
    rm -rf out
    "$TRA" run lanes.yaml --machine "${speed}_lanes.yaml" --report "lanes_$speed.json" \
        > "lanes_$speed.out" 2>&1 || { cat "lanes_$speed.out" >&2; fail "run with $speed lanes"; }
    "$TRA" diff out/Z.h5:/Z lanes_expected.h5:/Z > "lanes_$speed.diff" 2>&1 ||
        fail "$speed lanes: Z differs from numpy's einsum: $(cat "lanes_$speed.diff")"
done
"$PY" - lanes_slow.json lanes_fast.json << 'PY' || fail "the lanes rate does not price the join"
import json, sys
def join_seconds(path):  # the join and its sum, fused: predicted as one pair
    ops = json.load(open(path))["operators"]
    return sum(o["predicted_seconds"] for o in ops if o["op"] in ("local_join", "local_aggregate"))
slow, fast = (join_seconds(p) for p in sys.argv[1:3])
print(f"join predicted: slow lanes {slow:.3g} s (BLAS and permutes), fast lanes {fast:.3g} s")
assert slow < 0.01, slow  # not 0.13 s at the slow lanes' rate: BLAS was chosen
assert abs((slow - fast) - 196608 / 5e9) < 1e-6, (slow, fast)
PY

# Malformed profiles: exit 2, file:line and the field, and no output written.
sed 's/bytes_per_second: 5.0e+09}/bytes_per_second: -1}/' fast.yaml > negative.yaml
sed '/^memory_bytes_per_second/d' fast.yaml > missing.yaml
sed 's/^ranks: 2/ranks: 2\nspeed: 11/' fast.yaml > unknown.yaml
for bad in negative:bytes_per_second missing:memory_bytes_per_second unknown:speed; do
    file=${bad%%:*}.yaml field=${bad#*:}
    for verb in plan run; do
        rm -rf out
        rc=0
        sites=()
        [ "$verb" = run ] || sites=(--sites 1)
        "$TRA" "$verb" k.yaml "${sites[@]}" --machine "$file" > "$file.$verb.out" 2>&1 || rc=$?
        [ "$rc" -eq 2 ] || fail "$verb --machine $file: exit $rc, expected 2"
        grep -q "$file:[0-9]*:[0-9]*" "$file.$verb.out" ||
            fail "$verb --machine $file: no file:line:col in: $(cat "$file.$verb.out")"
        grep -q "$field" "$file.$verb.out" ||
            fail "$verb --machine $file: the field $field is not named: $(cat "$file.$verb.out")"
        [ ! -e out/C.h5 ] || fail "$verb --machine $file wrote an output"
    done
done
rc=0
TRA_MACHINE=missing.yaml "$TRA" plan k.yaml --sites 2 > env.out 2>&1 || rc=$?
[ "$rc" -eq 2 ] || fail "a malformed TRA_MACHINE: exit $rc, expected 2"

finish_counted "PASS (machine_profile)"
