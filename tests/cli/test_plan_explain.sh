#!/usr/bin/env bash
# tra plan and tra explain through the real binary: every format, ranking order, pins, ranks,
# the memory budget, the plan-file round trip (plan -o, then explain PLAN.yaml gives the same
# costs), and bad input (exit 2 with a message naming what is wrong).
# Usage: bash test_plan_explain.sh TRA_BINARY SOURCE_DIR WORK_DIR
set -euo pipefail
# shellcheck source=tests/test_helpers.bash
source "$(dirname "${BASH_SOURCE[0]}")/../test_helpers.bash" cli plan_explain "$@"
enter_work_dir
WF=$SRC/plans/examples/matmul.yaml

# Text table: header, ranks 1..K, cheapest first.
"$TRA" plan "$WF" --sites 2 --top 4 > plan.txt
grep -q "^rank  name" plan.txt || fail "no table header: $(cat plan.txt)"
[ "$(grep -c '^[0-9]' plan.txt)" = 4 ] || fail "--top 4 did not list 4 plans"

# JSON: the documented fields, sorted by exact bytes (then paper floats, then name); --cost
# paper sorts by paper floats.
for cost in exact paper; do
    "$TRA" plan "$WF" --sites 3 --format json --cost "$cost" > plan.json
    "$PY" - "$cost" plan.json <<'PYEOF' || fail "JSON for --cost $cost"
import json, sys
cost, path = sys.argv[1], sys.argv[2]
d = json.load(open(path))
assert d["sites"] == 3 and d["cost"] == cost, d
plans = d["plans"]
assert len(plans) >= 3, plans
for i, p in enumerate(plans):
    assert p["rank"] == i + 1
    for f in ("name", "paper_floats", "exact_bytes", "overhead_bytes", "peak_bytes_per_site", "flops"):
        assert f in p, (f, p)
key = (lambda p: (p["exact_bytes"], p["paper_floats"], p["name"])) if cost == "exact" else \
      (lambda p: (p["paper_floats"], p["exact_bytes"], p["name"]))
assert plans == sorted(plans, key=key), "not sorted"
assert len({p["name"] for p in plans}) == len(plans), "names repeat"
PYEOF
done

# Explain shows the plan as it runs: matmul's joins (kernel matmul, and einsum ik,kj->ij) are each
# read only by a sum with add, so each runs fused inside that aggregate (ia/fused_joins.hpp):
# text lines and notes, and fused_into / fused_with pointing at each other in the JSON.
"$TRA" explain "$WF" --sites 2 > fused.txt
"$TRA" explain "$WF" --sites 2 --format json > fused.json
"$PY" - fused.json fused.txt <<'PYEOF' || fail "explain does not show the fused joins"
import json, re, sys
ops = json.load(open(sys.argv[1]))["operators"]
text = open(sys.argv[2]).read()
by_id = {o["id"]: o for o in ops}
joins = [o for o in ops if o["op"] == "local_join"]
assert len(joins) == 2, joins
for j in joins:
    # The join's only reader sums it with add.
    readers = [o for o in ops if j["id"] in o["inputs"]]
    assert len(readers) == 1 and readers[0]["op"] == "local_aggregate", readers
    agg = readers[0]
    assert "kernel add" in agg["does"], agg
    assert j.get("fused_into") == agg["id"] and agg.get("fused_with") == j["id"], (j, agg)
    assert re.search(r"^fused: #%d local_join runs inside #%d local_aggregate" % (j["id"], agg["id"]),
                     text, re.M), text
    assert "local_join (fused into #%d)" % agg["id"] in text, text
unfused = [o for o in ops if o["op"] not in ("local_join", "local_aggregate")]
assert all("fused_into" not in o and "fused_with" not in o for o in unfused), unfused
PYEOF

# The strategies a matrix multiply must offer at S = 2, 3, 4.
for s in 2 3 4; do
    "$TRA" plan "$WF" --sites "$s" --top 1000 --format json > all.json
    "$PY" - all.json <<'PYEOF' || fail "strategies at S=$s"
import json, sys
names = [p["name"] for p in json.load(open(sys.argv[1]))["plans"]]
ab = {n.split(",")[0] for n in names}
for want in ("AB=bcast-left", "AB=bcast-right", "AB=cmm"):
    assert want in ab, (want, sorted(ab))
PYEOF
done

# Pins and ranks choose the plan explain shows; the plan file round trip keeps every cost.
"$TRA" plan "$WF" --sites 2 --plan 'AB=cmm' -o p.yaml --format json > pinned.json
"$TRA" explain p.yaml --format json > from_file.json
"$TRA" explain "$WF" --sites 2 --plan 'AB=cmm' --format json > from_wf.json
"$PY" - pinned.json from_file.json from_wf.json <<'PYEOF' || fail "plan -o / explain round trip"
import json, sys
first = json.load(open(sys.argv[1]))["plans"][0]
a, b = json.load(open(sys.argv[2])), json.load(open(sys.argv[3]))
assert first["name"].startswith("AB=cmm"), first
for d in (a, b):
    assert d["plan"] == first["name"], (d["plan"], first["name"])
    for f in ("exact_bytes", "overhead_bytes", "paper_floats", "peak_bytes_per_site", "flops"):
        assert d[f] == first[f], (f, d[f], first[f])
assert a["operators"] == b["operators"]
ids = [op["id"] for op in a["operators"]]
assert ids == list(range(len(ids)))
assert sum(op["exact_bytes"] for op in a["operators"]) == a["exact_bytes"]
PYEOF
# --plans-dir: every listed plan as a plan file, each the file `-o` writes for its rank; the
# folder is made (parents too); a path that cannot be a folder fails (exit 1) naming it.
"$TRA" plan "$WF" --sites 3 --top 4 --plans-dir every/sub > every.txt ||
    fail "plan --plans-dir exited non-zero"
grep -q "^wrote 4 plan file(s) to every/sub/plan-RANK.yaml$" every.txt || { cat every.txt >&2; fail "--plans-dir: no 'wrote' line"; }
[ "$(find every/sub -type f | sort | tr '\n' ' ')" = "every/sub/plan-1.yaml every/sub/plan-2.yaml every/sub/plan-3.yaml every/sub/plan-4.yaml " ] ||
    fail "--plans-dir wrote $(find every -type f | tr '\n' ' ')"
for n in 1 2 3 4; do
    "$TRA" plan "$WF" --sites 3 --plan "$n" -o "every/sub/o$n.yaml" > /dev/null
    cmp -s "every/sub/o$n.yaml" "every/sub/plan-$n.yaml" || fail "--plans-dir: plan-$n.yaml is not what --plan $n -o writes"
    rm "every/sub/o$n.yaml"
done
rc=0
"$TRA" plan "$WF" --sites 3 --top 4 --plans-dir p.yaml/x > /dev/null 2> notdir.err || rc=$?
[ "$rc" -eq 1 ] || fail "--plans-dir under a file exited with $rc, expected 1"
grep -q "^tra: error: --plans-dir: cannot make the folder 'p.yaml/x'" notdir.err || { cat notdir.err >&2; fail "--plans-dir under a file: no clear error"; }
"$TRA" explain "$WF" --sites 2 --plan 2 > rank2.txt
second=$(awk '$1 == 2 {print $2}' plan.txt)
grep -q "^plan $second " rank2.txt || fail "--plan 2 did not explain the second plan ($second)"
"$TRA" explain "$WF" --sites 2 --format dot > plan.dot
grep -q '^digraph plan {' plan.dot && grep -q ' -> ' plan.dot || fail "dot output"
if command -v dot > /dev/null; then dot -Tsvg plan.dot > /dev/null || fail "Graphviz rejects the dot output"; fi

# The workflow's sites: is the default; --sites overrides it.
sed 's/^name: matmul$/name: matmul\nsites: 3/' "$WF" > with_sites.yaml
sed -i "s#\.\./\.\./data/#$SRC/data/#" with_sites.yaml
"$TRA" plan with_sites.yaml --format json | grep -q '"sites":3' || fail "sites: not used"
"$TRA" plan with_sites.yaml --sites 4 --format json | grep -q '"sites":4' || fail "--sites does not override"

# Memory budget: plans over it are dropped and listed; none fitting is an error naming the need.
"$TRA" plan "$WF" --sites 2 --format json --memory-per-site 84000 > budget.json
"$PY" - budget.json <<'PYEOF' || fail "--memory-per-site"
import json, sys
d = json.load(open(sys.argv[1]))
assert all(p["peak_bytes_per_site"] <= 84000 for p in d["plans"])
assert d["dropped"] and all(p["peak_bytes_per_site"] > 84000 for p in d["dropped"])
PYEOF

# Bad input: exit 2 with a clear message.
expect_2() {
    local what=$1 pattern=$2
    shift 2
    local rc=0
    "$@" > out.txt 2> err.txt || rc=$?
    [ "$rc" = 2 ] || fail "$what: exit $rc, expected 2 ($(cat err.txt))"
    grep -q "$pattern" err.txt || fail "$what: message '$(cat err.txt)' lacks '$pattern'"
}
expect_2 "no sites" "no site count" "$TRA" plan "$WF"
expect_2 "S < 1" "sites" "$TRA" plan "$WF" --sites 0
expect_2 "unknown pin node" "ZZ" "$TRA" plan "$WF" --sites 2 --plan 'ZZ=cmm'
expect_2 "unknown strategy" "bcast-left" "$TRA" plan "$WF" --sites 2 --plan 'AB=nope'
expect_2 "rank too large" "there are" "$TRA" explain "$WF" --sites 2 --plan 999
expect_2 "budget" "needs" "$TRA" plan "$WF" --sites 2 --memory-per-site 10
expect_2 "bad input placement" "placement" "$TRA" plan "$WF" --sites 2 --input-placement A=Nowhere
expect_2 "plan for other S" "sites" "$TRA" explain p.yaml --sites 3
sed 's/op: local_join, origin: AB, inputs: \[\([0-9]*\), \([0-9]*\)\]/op: local_join, origin: AB, inputs: [0, 1]/' p.yaml > bad_plan.yaml
if ! cmp -s p.yaml bad_plan.yaml; then
    expect_2 "not co-located" "AB" "$TRA" explain bad_plan.yaml
fi
echo "plan/explain: ok"
