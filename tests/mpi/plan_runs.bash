# Shared by the MPI tests (sourced, not a test itself): list the candidate plans `tra plan --top
# 10` shows for RANKS sites, run one under MPIEXEC with OpenMPI's pml monitoring, and check what
# it moved against the prediction and the monitoring's independent count.
# The sourcing script has sourced tests/test_helpers.bash (mpi) first: TRA, SRC, RANKS,
# MPIEXEC, PY, fail and outputs_written.

CHECK_REPORT="$SRC/tools/reference/check_report.py"
# shellcheck disable=SC2034  # used by the tests that source this file
SAME_OUTPUTS="$SRC/tools/reference/same_outputs.py"

# OpenMPI's pml monitoring counts every point-to-point byte each rank sends. It is part of
# Debian's openmpi-bin; without it the independent count cannot be made, which is a failure.
# Under another MPI (the MPICH stage, tools/test.d/70-mpich.sh) there is no such component: the
# runs then check the measured bytes against the prediction only, and say so once.
if "$MPIEXEC" --version 2>&1 | grep -qiE 'open ?mpi|openrte'; then
    MONITORING=1
else
    MONITORING=0
fi

require_monitoring() {
    if [ "$MONITORING" = 0 ]; then
        echo "note: $MPIEXEC is not Open MPI: no pml monitoring cross-check (measured bytes are" \
            "still checked against the prediction)"
        return
    fi
    command -v ompi_info > /dev/null || fail "ompi_info not found (OpenMPI's pml monitoring is needed)"
    ompi_info --parsable | grep -q '^mca:pml:monitoring:' ||
        fail "this OpenMPI has no pml monitoring component (ompi_info lists none)"
}

# How many plans each workflow runs: the 10 `tra plan --top 10` lists. The sanitizer stage
# (tools/test.d/20-sanitize.sh) sets PLAN_RUNS_TOP=3: there the plans run for memory errors, and
# the main suite has already run every listed plan at 1-4 ranks.
PLAN_RUNS_TOP=${PLAN_RUNS_TOP:-10}

# list_plans WF [PLANS_DIR]: prints "RANK NAME EXACT_BYTES OVERHEAD_BYTES" for each plan `tra
# plan --sites RANKS --top PLAN_RUNS_TOP` lists, cheapest first; with PLANS_DIR, also writes
# each as the plan file PLANS_DIR/plan-RANK.yaml (--plans-dir).
list_plans() {
    local json=plans.$$.json files=()
    [ -z "${2:-}" ] || files=(--plans-dir "$2")
    "$TRA" plan "$1" --sites "$RANKS" --top "$PLAN_RUNS_TOP" --format json "${files[@]}" > "$json" 2> "$json.log" ||
        { cat "$json.log" >&2; fail "tra plan $1 --sites $RANKS failed"; }
    "$PY" -c '
import json, sys
for p in json.load(open(sys.argv[1]))["plans"]:
    print(p["rank"], p["name"], p["exact_bytes"], p["overhead_bytes"])' "$json"
}

# run_plan DIR ARGS...: `MPIEXEC -n RANKS tra run ARGS --report DIR.json --out-dir DIR` with pml
# monitoring (files DIR.mon.RANK.prof); fails unless it exits 0 and the report's bytes equal the
# prediction for every operator and the monitoring's count of what was really sent.
run_plan() {
    local dir=$1 rc=0
    shift
    rm -rf "$dir" "$dir".mon.*.prof
    local monitor=() count=()
    if [ "$MONITORING" = 1 ]; then
        monitor=(--mca pml_monitoring_enable 2 --mca pml_monitoring_enable_output 3
            --mca pml_monitoring_filename "$PWD/$dir.mon")
        count=(--monitoring "$PWD/$dir.mon")
    fi
    timeout 300 "$MPIEXEC" -n "$RANKS" "${monitor[@]}" \
        "$TRA" run "$@" --report "$dir.json" --out-dir "$dir" < /dev/null > "$dir.log" 2>&1 || rc=$?
    [ "$rc" -ne 124 ] || fail "$dir: tra run $* hung (killed after 300 s)"
    [ "$rc" -eq 0 ] || { cat "$dir.log" >&2; fail "$dir: tra run $* exited with $rc"; }
    "$PY" "$CHECK_REPORT" "$dir.json" "${count[@]}" > "$dir.bytes" ||
        { cat "$dir.bytes" >&2; fail "$dir: tra run $*: the bytes moved are not the predicted ones"; }
}

# report_field DIR.json FIELD: a top-level field of a run report.
report_field() {
    "$PY" -c 'import json, sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])' "$1" "$2"
}

# outputs_of DIR: "OUTPUT LOCATION" for each output the run in DIR reported writing.
outputs_of() {
    outputs_written "$1.log"
}

# check_outputs DIR REFERENCE: every output the run wrote equals (tra diff, the dtype's
# documented tolerance) the dataset of the same name in REFERENCE, an .h5 file or a folder
# holding a run's outputs (a relative location is looked up under it).
check_outputs() {
    local dir=$1 reference=$2 written=0 output location expected rc
    outputs_of "$dir" > "$dir.outputs"
    while read -r output location; do
        written=$((written + 1))
        # A loop's observation of OUTPUT after iteration K is the dataset OUTPUT@K.
        local suffix=""
        [[ ${location##*:} =~ @[0-9]+$ ]] && suffix=${BASH_REMATCH[0]}
        if [ -d "$reference" ]; then
            expected=$(outputs_of "$reference" | awk -v o="$output" -v s="$suffix" \
                '$1 == o && (s == "" ? $2 !~ /@[0-9]+$/ : substr($2, length($2) - length(s) + 1) == s) {print $2}')
            [ -n "$expected" ] || fail "$dir: the reference run $reference wrote no $output$suffix"
        else
            expected="$reference:/$output$suffix"
        fi
        rc=0
        "$TRA" diff "$location" "$expected" > "$dir.$output.diff" 2>&1 || rc=$?
        [ "$rc" -eq 0 ] || { cat "$dir.$output.diff" >&2; fail "$dir: $location differs from $expected"; }
    done < "$dir.outputs"
    [ "$written" -gt 0 ] || { cat "$dir.log" >&2; fail "$dir: the run reported no outputs written"; }
}

# ran_listed_plan DIR NAME EXACT OVERHEAD: the run in DIR ran the plan tra plan lists as NAME,
# predicting the listed exact bytes and overhead.
ran_listed_plan() {
    # One Python start, not two: a sweep makes hundreds of these checks.
    local ran
    ran=$("$PY" -c '
import json, sys
r = json.load(open(sys.argv[1]))
it = r.get("iterations")
p = it[0] if it and len(it) > 1 else r
print(r["plan"], p["predicted_bytes"], p["predicted_overhead_bytes"])' "$1.json")
    [ "${ran%% *}" = "$2" ] || fail "$1: ran '${ran%% *}', tra plan lists '$2'"
    # A loop's plan lists one iteration's bytes with its carry: the report's first iteration.
    if [ "${ran#* }" != "$3 $4" ]; then
        fail "$1: the run predicts other bytes than tra plan lists ($3 + $4)"
    fi
}

# run_every_plan NAME WF REFERENCE [ARGS...]: every plan `tra plan --top 10` lists for RANKS
# sites runs (run_plan, with ARGS); the run picks the listed plan with the listed prediction,
# and its outputs equal REFERENCE (check_outputs). Prints one line.
# The first plan runs from the workflow (`--plan 1`: tra run's own search picks it); the others
# from the plan files the listing wrote (--plans-dir), which hold the same plans: a search at 4
# sites costs a second or more, most of such a run, and the plans are the same ones either way
# (test_repeat_and_plan_files.sh and test_random_programs.sh run --plan N for other ranks).
run_every_plan() {
    local name=$1 wf=$2 reference=$3 n plan exact overhead count=0
    shift 3
    list_plans "$wf" "$name.planfiles" > "$name.plans"
    while read -r n plan exact overhead; do
        if [ "$n" = 1 ]; then
            run_plan "$name.p$n" "$wf" --plan "$n" "$@"
        else
            run_plan "$name.p$n" "$name.planfiles/plan-$n.yaml" "$@"
        fi
        ran_listed_plan "$name.p$n" "$plan" "$exact" "$overhead"
        check_outputs "$name.p$n" "$reference"
        count=$((count + 1))
    done < "$name.plans"
    [ "$count" -gt 0 ] || fail "$name: tra plan lists no plans"
    echo "$name: all $count listed plans ok on $RANKS ranks"
    PLAN_RUNS=$((${PLAN_RUNS:-0} + count))
}
