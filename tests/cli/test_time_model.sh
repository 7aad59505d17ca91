#!/usr/bin/env bash
# `--cost time` (ia::estimated_seconds), the default ranking: with one output tile and a long
# shared dimension, the exact model ranks first a plan that moves 0 bytes by computing every
# product on one site; the time model (and so a plan listing without --cost) ranks first a plan
# that splits the products over both sites, and every plan in its list has an estimate no
# smaller than the first. `--flop-rate` and `--bandwidth` move the
# estimates, bad values are refused, and `tra run --cost time` runs the plan it ranks first. On
# one site, plans that join and sum apart rank below the fused join and sum.
# Usage: bash test_time_model.sh TRA_BINARY SOURCE_DIR WORK_DIR
set -euo pipefail

# shellcheck source=tests/test_helpers.bash
source "$(dirname "${BASH_SOURCE[0]}")/../test_helpers.bash" cli time_model "$@"
: "$SRC"

enter_work_dir
matmul_workflow common_k "64, 1024" "64, 64" "1024, 64" "64, 64" einsum > k.yaml

"$TRA" plan k.yaml --sites 2 --top 50 --cost exact --format json > exact.json ||
    fail "plan --cost exact"
"$TRA" plan k.yaml --sites 2 --top 50 --format json > default.json || fail "plan"
"$TRA" plan k.yaml --sites 2 --top 50 --cost time --format json > time.json ||
    fail "plan --cost time"
"$TRA" plan k.yaml --sites 2 --top 50 --cost time --flop-rate 1e9 --format json > slow.json ||
    fail "plan --cost time --flop-rate"
"$PY" - exact.json time.json slow.json default.json << 'PY' || fail "rankings (see above)"
import json, sys
exact, time, slow, default = (json.load(open(f)) for f in sys.argv[1:5])
assert time["cost"] == "time", time["cost"]
assert default == time, "the default ranking is not the time model's"
assert time["machine"]["source"] == "built-in", time["machine"]
first_exact, first_time = exact["plans"][0], time["plans"][0]
print("exact first:", first_exact["name"], first_exact["exact_bytes"], first_exact["estimated_seconds"])
print("time first: ", first_time["name"], first_time["exact_bytes"], first_time["estimated_seconds"])
assert first_exact["exact_bytes"] == 0 and "rmm" in first_exact["name"], first_exact
assert "rmm" not in first_time["name"] and first_time["exact_bytes"] > 0, first_time
assert first_time["estimated_seconds"] < first_exact["estimated_seconds"]
assert all(p["estimated_seconds"] >= first_time["estimated_seconds"] for p in time["plans"])
assert all("estimated_seconds" in p for p in exact["plans"])
# 50x slower flops: estimates grow (compute dominates both).
assert slow["plans"][0]["estimated_seconds"] > 10 * first_time["estimated_seconds"]
PY

# One site: joining and summing apart (a shuffle between them, which moves nothing here) costs a
# memory pass the fused join and sum does not.
"$TRA" plan k.yaml --sites 1 --top 50 --cost time --format json > one.json || fail "plan --sites 1"
"$PY" - one.json << 'PY' || fail "one-site ranking (see above)"
import json, sys
plans = json.load(open(sys.argv[1]))["plans"]
apart = [p for p in plans if p["name"].endswith("C=shuffle") or "C=shuffle[" in p["name"]]
print("first:", plans[0]["name"], plans[0]["estimated_seconds"], "apart:", len(apart))
assert apart and "shuffle" not in plans[0]["name"], plans[0]
assert all(p["estimated_seconds"] > plans[0]["estimated_seconds"] for p in apart)
PY

"$TRA" plan k.yaml --sites 2 --cost time | grep -q "est. seconds" ||
    fail "the text table under --cost time has no estimate column"
rc=0
"$TRA" plan k.yaml --sites 2 --cost time --bandwidth 0 > bad.out 2>&1 || rc=$?
[ "$rc" -ne 0 ] || fail "--bandwidth 0 was accepted"
grep -q "bandwidth" bad.out || fail "--bandwidth 0: the message does not name the option"
"$TRA" run k.yaml --cost time --check > run.out 2>&1 || { cat run.out >&2; fail "run --cost time"; }
"$TRA" run k.yaml --check --force --report default.report.json > run-default.out 2>&1 ||
    { cat run-default.out >&2; fail "run"; }
"$PY" - time.json default.report.json << 'PY' || fail "the default run (see above)"
import json, sys
listed, report = (json.load(open(f)) for f in sys.argv[1:3])
# On one site (no launcher) the plan is the first of a 1-site listing; its report has the
# time model's predictions per operator and in total.
ops = [op for op in report["operators"] if op["op"] != "write"]
assert all(op["predicted_seconds"] >= 0 for op in ops), ops
assert abs(sum(op["predicted_seconds"] for op in ops) - report["predicted_seconds"]) < 1e-9
assert report["predicted_seconds"] > 0 and report["machine"]["source"] == "built-in", report
PY
echo "PASS (time_model)"
