#!/usr/bin/env bash
# tools/trace_chart.py draws `tra run --trace` files as a PNG: a handmade two-rank trace gives a
# PNG (its signature checked, no temporary file left) and the summary line; malformed traces
# are refused with exit 2, naming the file. The drawing needs gnuplot: without it only the
# refusals are checked, and the test says it skipped the rest. No tra run (fast; the traces'
# format is tests/mpi's business).
# Usage: bash test_trace_chart.sh TRA_BINARY SOURCE_DIR WORK_DIR   (env TRA_PYTHON)
set -euo pipefail

# shellcheck source=tests/test_helpers.bash
source "$(dirname "${BASH_SOURCE[0]}")/../test_helpers.bash" cli trace_chart "$@"
CHART=$SRC/tools/trace_chart.py

enter_work_dir

# span PID TID TS DUR ID OP PHASE: one complete event as tra writes it.
span() {
    local name="#$5 $6"
    [ "$2" = 1 ] && name="$name $7"
    printf '{"name": "%s", "ph": "X", "ts": %s, "dur": %s, "pid": %s, "tid": %s, ' \
        "$name" "$3" "$4" "$1" "$2"
    printf '"args": {"id": %s, "op": "%s", "phase": "%s"}}' "$5" "$6" "$7"
}

# rank_file RANK START: a rank's trace of a read, a shuffle and a join, from START microseconds.
# The read has no phase span, so the phases' blocks of gnuplot data are not the first ones (an
# empty block once shifted every later phase onto the wrong data, which gnuplot warns about).
rank_file() {
    local r=$1 t=$2
    echo '{"traceEvents": ['
    echo "{\"name\": \"process_name\", \"ph\": \"M\", \"pid\": $r, \"tid\": 0, \"args\": {}},"
    span "$r" 0 "$t" 1000 0 read operator && echo ,
    span "$r" 0 $((t + 1000)) 500 1 shuffle operator && echo ,
    for p in pack post wait unpack; do
        span "$r" 1 $((t + 1000 + 100 * ${#p})) 90 1 shuffle "$p" && echo ,
    done
    span "$r" 0 $((t + 1500)) 3000 2 local_join operator && echo ,
    span "$r" 1 $((t + 1500)) 2500 2 local_join compute
    echo ']}'
}

mkdir good
rank_file 0 1700000000000000 > good/rank-0.json
rank_file 1 1700000000000200 > good/rank-1.json

# expect_refused NAME MESSAGE: the trace folder NAME is refused, exit 2, naming its rank-0.json
# and saying MESSAGE.
expect_refused() {
    local rc=0
    "$PY" "$CHART" "$1" "$1.png" > "$1.out" 2> "$1.err" || rc=$?
    [ "$rc" -eq 2 ] || { cat "$1.out" "$1.err" >&2; fail "$1: exit $rc, expected 2"; }
    grep -q "$1/rank-0.json: .*$2" "$1.err" ||
        { cat "$1.err" >&2; fail "$1: no '$2' about rank-0.json"; }
    [ ! -e "$1.png" ] || fail "$1: a PNG was written"
}
mkdir not_json no_events no_ts
cp good/rank-1.json not_json/ && echo '{"traceEvents": [' > not_json/rank-0.json
echo '{"events": []}' > no_events/rank-0.json
sed 's/"ts": [0-9]*, "dur": 3000/"dur": 3000/' good/rank-0.json > no_ts/rank-0.json
expect_refused not_json "not JSON"
expect_refused no_events 'no "traceEvents" list'
expect_refused no_ts '"#2 local_join": no ts'
mkdir empty
rc=0
"$PY" "$CHART" empty empty.png 2> empty.err || rc=$?
[ "$rc" -eq 2 ] || fail "empty: exit $rc, expected 2"
grep -q "empty: no rank-R.json files" empty.err || fail "empty: no message about the empty folder"

if ! command -v gnuplot > /dev/null; then
    echo "trace_chart: refusals ok; skipping the drawing: no gnuplot (apt-get install gnuplot-nox)"
    exit 0
fi
"$PY" "$CHART" good chart.png --title "handmade" > chart.out 2> chart.err ||
    { cat chart.err >&2; fail "a good trace was refused"; }
[ ! -s chart.err ] || { cat chart.err >&2; fail "warnings drawing a good trace"; }
[ "$(head -c 8 chart.png | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ] ||
    fail "chart.png is not a PNG"
[ -s chart.dat ] || fail "no gnuplot data next to the PNG"
! ls ./*.tmp-* > /dev/null 2>&1 || fail "a temporary PNG was left behind"
# 2 ranks, 3 operators, 4.7 ms (rank 1 starts 0.2 ms later): of the 2 x 4.7 ms, compute takes
# 2 x 2.5 ms and each exchange phase 2 x 90 us; no read or write phase.
summary="^chart.png: 2 ranks, 3 operators, 0.005 s; share of rank-time: pack 1.9%, post 1.9%"
grep -q "$summary, wait 1.9%, unpack 1.9%, compute 53.2%, outside phases 39.1%$" chart.out ||
    { cat chart.out >&2; fail "unexpected summary line"; }
echo "trace_chart: ok"
