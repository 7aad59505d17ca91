#!/usr/bin/env bash
# `mpiexec -n RANKS tra run --trace DIR --report FILE` (docs/runtime.md, "Traces" and "Report"):
# every rank writes DIR/rank-R.json, valid trace-event JSON with a complete event for every
# operator of the report on every rank, phases inside their operator (an exchange's pack, post,
# wait and unpack, a read's read, the write's write), and no temporary file left; the report's
# per-operator seconds_min <= seconds_median <= seconds_max == seconds, slowest_rank a rank.
# A --trace that names a file, an empty --trace and --trace with --reference are refused (exit 2).
# In a loop every operator's spans are tagged with their iteration.
# Usage: bash test_trace.sh TRA_BINARY SOURCE_DIR WORK_DIR RANKS MPIEXEC
set -euo pipefail

# shellcheck source=tests/test_helpers.bash
source "$(dirname "${BASH_SOURCE[0]}")/../test_helpers.bash" mpi trace "$@"

enter_work_dir

# Tiny: 2 x 2 tiles each side, so every plan has a few operators and the run takes no time.
matmul_workflow mm "8, 8" "4, 4" "8, 8" "4, 4" join > mm.yaml

# run NAME [tra run args...]: runs under mpiexec with a time limit; sets rc, NAME.out, NAME.err.
run() {
    local name=$1
    shift
    rc=0
    timeout 60 "$MPIEXEC" -n "$RANKS" "$TRA" run "$@" --out-dir "$name" > "$name.out" 2> "$name.err" || rc=$?
    [ "$rc" -ne 124 ] || fail "$name: the job hung (killed after 60 s)"
}

# 1. A traced run: one file per rank, consistent with the report.
run traced mm.yaml --report traced.json --trace traced.trace
[ "$rc" -eq 0 ] || { cat traced.out traced.err >&2; fail "traced: exited with $rc"; }
[ -z "$(find traced.trace -name '*.tmp*')" ] || fail "traced: temporary files left: $(find traced.trace -name '*.tmp*')"
"$PY" - traced.json traced.trace "$RANKS" << 'PY' || fail "traced: the traces or the report's seconds are not consistent"
import json, os, sys
report, folder, ranks = json.load(open(sys.argv[1])), sys.argv[2], int(sys.argv[3])
files = sorted(os.listdir(folder))
assert files == sorted(f"rank-{r}.json" for r in range(ranks)), files
# Writing the files: timed, within the run's seconds.
assert 0 < report["trace"]["seconds"] <= report["seconds"], (report["trace"], report["seconds"])
for op in report["operators"]:
    lo, mid, hi = op["seconds_min"], op["seconds_median"], op["seconds_max"]
    assert 0 <= lo <= mid <= hi, op
    assert hi == op["seconds"], op
    assert 0 <= op["slowest_rank"] < ranks, op
for r in range(ranks):
    events = json.load(open(os.path.join(folder, f"rank-{r}.json")))["traceEvents"]
    spans = [e for e in events if e["ph"] == "X"]
    assert all(e["pid"] == r and e["dur"] >= 0 for e in spans), r
    whole = {e["args"]["id"]: e for e in spans if e["cat"] == "operator"}
    for op in report["operators"]:
        assert op["id"] in whole, (r, op["id"], op["op"])
        assert whole[op["id"]]["args"]["op"] == op["op"], (r, op)
    phases = {}
    for e in spans:
        if e["cat"] != "phase":
            continue
        w = whole[e["args"]["id"]]
        assert w["ts"] <= e["ts"] and e["ts"] + e["dur"] <= w["ts"] + w["dur"], (r, e, w)
        phases.setdefault(e["args"]["id"], set()).add(e["args"]["phase"])
    for op in report["operators"]:
        want = {"read": {"read"}, "write": {"write"}}.get(op["op"], set())
        if op["op"] in ("bcast", "shuffle", "grid"):
            want = {"pack", "post", "wait", "unpack"}
        assert want <= phases.get(op["id"], set()), (r, op, phases.get(op["id"]))
PY

# 2. Without --trace nothing is traced; the report has the new fields all the same.
run plain mm.yaml --report plain.json
[ "$rc" -eq 0 ] || { cat plain.out plain.err >&2; fail "plain: exited with $rc"; }
[ -z "$(find . -name 'rank-*.json' -not -path './traced.trace/*')" ] || fail "plain: a trace was written"
"$PY" -c 'import json, sys; r = json.load(open(sys.argv[1])); assert all("slowest_rank" in o for o in r["operators"]) and "trace" not in r' plain.json ||
    fail "plain: the report has no slowest_rank, or has a trace"

# 3. Bad --trace: exit 2 with one message, before any output.
touch a_file
run into_file mm.yaml --trace a_file
[ "$rc" -eq 2 ] || { cat into_file.err >&2; fail "into_file: exited with $rc, expected 2"; }
[ "$(grep -c '^tra: error.*--trace a_file' into_file.err)" -eq 1 ] || { cat into_file.err >&2; fail "into_file: not one message naming --trace a_file"; }
[ ! -e into_file/out/C.h5 ] || fail "into_file: an output was written"
rc=0
"$TRA" run mm.yaml --trace "" > empty.out 2> empty.err || rc=$?
if [ "$rc" -ne 2 ] || ! grep -q -- "--trace needs a folder" empty.err; then
    cat empty.err >&2
    fail "empty --trace: exited with $rc"
fi
rc=0
"$TRA" run mm.yaml --reference --trace t --out-dir ref > ref.out 2> ref.err || rc=$?
if [ "$rc" -ne 2 ] || ! grep -q -- "--reference" ref.err; then
    cat ref.err >&2
    fail "--reference --trace: exited with $rc"
fi

# 4. A loop (plans/models/mlp_loop.yaml, 6 iterations): every operator of the body appears once
# per iteration on every rank, tagged with its iteration (args and name), and in order; the
# carry runs between iterations, so after the first five.
run loop "$SRC/plans/models/mlp_loop.yaml" --report loop.json --trace loop.trace
[ "$rc" -eq 0 ] || { cat loop.out loop.err >&2; fail "loop: exited with $rc"; }
"$PY" - loop.json loop.trace "$RANKS" << 'PY' || fail "loop: the trace does not tag each iteration"
import json, os, sys
report, folder, ranks = json.load(open(sys.argv[1])), sys.argv[2], int(sys.argv[3])
times = 6
body = [op["id"] for op in report["operators"] if op["op"] not in ("read", "write", "carry")]
carry = [op["id"] for op in report["operators"] if op["op"] == "carry"]
assert body and carry, report["operators"]
for r in range(ranks):
    events = json.load(open(os.path.join(folder, f"rank-{r}.json")))["traceEvents"]
    whole = [e for e in events if e["ph"] == "X" and e["cat"] == "operator"]
    for k in range(1, times + 1):
        ids = {e["args"]["id"] for e in whole if e["args"].get("iteration") == k}
        want = set(body) | (set(carry) if k < times else set())
        assert want <= ids, (r, k, sorted(want - ids))
        assert all(e["name"].endswith(f" @{k}") for e in whole if e["args"].get("iteration") == k)
    iterations = [e["args"]["iteration"] for e in sorted(whole, key=lambda e: e["ts"])
                  if "iteration" in e["args"]]
    assert iterations == sorted(iterations), (r, iterations)
PY

echo "trace: ok on $RANKS ranks"
