# shellcheck shell=bash
# The steps of the paper-experiment sbatch scripts (tools/slurm/paper-*.sbatch): which workflows
# of plans/paper to run, at full size or scaled, and one pinned paper plan per run. Sourced by
# those scripts after job-steps.sh, never run on its own.

# parse_paper_args WORKFLOW... -- ARG...: the experiment's workflows, then the script's arguments
#   [--scaled] [--check] [--gen] [WORKFLOW...]
# Sets WORKFLOW_DIR (plans/paper, or plans/paper/scaled with --scaled), WORKFLOWS (the named ones,
# default all of the experiment's), GEN (--gen: also write the generated inputs with `tra gen`,
# for checks outside tra) and RUN_OPTIONS (--check: `tra run --check`, which evaluates the
# workflow once more on rank 0 with the reference evaluator: for scaled workflows only).
parse_paper_args() {
    local known=()
    while [ "$1" != -- ]; do
        known+=("$1")
        shift
    done
    shift
    WORKFLOW_DIR=$TRA_SRC/plans/paper
    WORKFLOWS=()
    GEN=0
    local arg
    for arg in "$@"; do
        case $arg in
            --scaled) WORKFLOW_DIR=$TRA_SRC/plans/paper/scaled ;;
            --check) RUN_OPTIONS+=(--check) ;;
            --gen) GEN=1 ;;
            -*) fail "unknown option '$arg' (expected --scaled, --check, --gen or workflow names)" ;;
            *)
                [[ " ${known[*]} " == *" $arg "* ]] ||
                    fail "'$arg' is not a workflow of this experiment (one of: ${known[*]})"
                WORKFLOWS+=("$arg")
                ;;
        esac
    done
    ((${#WORKFLOWS[@]})) || WORKFLOWS=("${known[@]}")
}

# paper_workflow NAME: validates plans/paper[/scaled]/NAME.yaml, checks that the allocation has
# the paper's site count (the workflow's `sites:`), writes the inputs with --gen, and prints the
# workflow's path.
paper_workflow() {
    local wf=$WORKFLOW_DIR/$1.yaml sites
    [ -f "$wf" ] || fail "no workflow $wf"
    "$TRA" validate "$wf" > "$TRA_OUT/$1.validate.txt" 2>&1 ||
        { cat "$TRA_OUT/$1.validate.txt" >&2; fail "tra validate $wf failed"; }
    sites=$(sed -n 's/^sites: *\([0-9]*\).*/\1/p' "$wf")
    [ "$sites" = "$SLURM_NTASKS" ] ||
        fail "the paper runs $1 on $sites sites, this job has $SLURM_NTASKS tasks (sbatch --ntasks=$sites)"
    if [ "$GEN" = 1 ] && [ ! -d "$TRA_OUT/$1/inputs" ]; then
        step "gen $wf -> $TRA_OUT/$1/inputs" >&2
        "$TRA" gen "$wf" --out-dir "$TRA_OUT/$1/inputs" --force >&2 || fail "tra gen $wf failed"
    fi
    echo "$wf"
}

# run_paper_plan NAME LABEL PINS PLACEMENT...: runs the plan PINS (empty: tra's cheapest) of
# workflow NAME with the inputs starting at PLACEMENT (NAME=Part[d]) into $TRA_OUT/NAME/LABEL.
run_paper_plan() {
    local name=$1 label=$2 pins=$3 wf args=() placement
    shift 3
    wf=$(paper_workflow "$name") || exit 1
    [ -z "$pins" ] || args+=(--plan "$pins")
    for placement in "$@"; do args+=(--input-placement "$placement"); done
    run_plan "$TRA_OUT/$name/$label" "$wf" "${args[@]}"
}
