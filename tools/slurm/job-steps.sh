# shellcheck shell=bash
# The steps every sbatch script in tools/slurm shares: where tra and the outputs are, how ranks
# are launched (srun or mpirun), and one plan run (plan file, run, report checked against the
# plan). Sourced by the scripts, never run on its own. docs/cluster.md explains the choices.
#
# Environment (all optional):
#   TRA_SRC       the tra checkout (default: the folder sbatch was called from)
#   TRA           the tra binary (default: $TRA_SRC/build/apps/tra)
#   TRA_OUT       where plans, outputs and reports go; must be on a file system every node sees
#                 (default: $SLURM_SUBMIT_DIR/runs/JOBNAME-JOBID)
#   TRA_LAUNCHER  srun (default) or mpirun
#   TRA_SRUN_MPI  the PMI plugin srun uses (default pmix: Debian's OpenMPI speaks PMIx, not PMI-2)
#   TRA_PYTHON    python3 for the report check (standard library only)

# The job's exit status is the first failing step's: a message naming the step, then exit 1.
fail() {
    echo "tra-job: error: $*" >&2
    exit 1
}

step() {
    echo "== $(date -u +%H:%M:%S) $*"
}

[ -n "${SLURM_JOB_ID:-}" ] || fail "not inside a Slurm allocation (submit with sbatch)"
TRA_SRC=${TRA_SRC:-$SLURM_SUBMIT_DIR}
TRA=${TRA:-$TRA_SRC/build/apps/tra}
TRA_OUT=${TRA_OUT:-$SLURM_SUBMIT_DIR/runs/$SLURM_JOB_NAME-$SLURM_JOB_ID}
TRA_LAUNCHER=${TRA_LAUNCHER:-srun}
TRA_PYTHON=${TRA_PYTHON:-python3}
RUN_OPTIONS=()
[ -x "$TRA" ] || fail "tra binary '$TRA' is missing (build it, or set TRA or TRA_SRC)"
[ -f "$TRA_SRC/tools/slurm/compare_report.py" ] || fail "TRA_SRC='$TRA_SRC' is not a tra checkout"
case $TRA_LAUNCHER in
    srun | mpirun) ;;
    *) fail "TRA_LAUNCHER must be srun or mpirun, not '$TRA_LAUNCHER'" ;;
esac
mkdir -p "$TRA_OUT" || fail "cannot create the output folder '$TRA_OUT'"

# One BLAS thread per CPU Slurm gave each task, unless the user chose. Without
# --cpus-per-task tra itself divides the node's cores among the ranks on it (docs/runtime.md).
if [ -n "${SLURM_CPUS_PER_TASK:-}" ] && [ -z "${OPENBLAS_NUM_THREADS:-}${OMP_NUM_THREADS:-}" ]; then
    export OPENBLAS_NUM_THREADS=$SLURM_CPUS_PER_TASK OMP_NUM_THREADS=$SLURM_CPUS_PER_TASK
fi

echo "tra-job: job $SLURM_JOB_ID on ${SLURM_JOB_NUM_NODES:-1} node(s) (${SLURM_JOB_NODELIST:-?})," \
    "${SLURM_NTASKS:-1} tasks x ${SLURM_CPUS_PER_TASK:-?} CPUs, launcher $TRA_LAUNCHER," \
    "BLAS threads ${OPENBLAS_NUM_THREADS:-chosen by tra}, outputs in $TRA_OUT"

# launch CMD...: CMD on every task of the allocation, one MPI rank per task.
launch() {
    if [ "$TRA_LAUNCHER" = srun ]; then
        # srun (Slurm >= 22.05) does not inherit the job's --cpus-per-task: pass it on.
        srun --mpi="${TRA_SRUN_MPI:-pmix}" --kill-on-bad-exit=1 \
            --ntasks="$SLURM_NTASKS" --cpus-per-task="${SLURM_CPUS_PER_TASK:-1}" "$@"
    else
        # mpirun reads the allocation from Slurm; environment variables reach remote ranks only
        # through -x. No binding: each rank's BLAS threads use the CPUs Slurm gave it.
        local forward=() var
        for var in OPENBLAS_NUM_THREADS OMP_NUM_THREADS; do
            [ -z "${!var:-}" ] || forward+=(-x "$var")
        done
        mpirun -n "$SLURM_NTASKS" --bind-to none "${forward[@]}" "$@"
    fi
}

# run_plan DIR WORKFLOW [tra plan options...]: writes the chosen plan for the allocation's task
# count to DIR/plan.yaml (with DIR/explain.json, its per-operator prediction), runs it on every
# task with the outputs under DIR/out and the report at DIR/run.json, then checks the report
# against the plan. RUN_OPTIONS (an array, may be empty) adds `tra run` options such as --check.
run_plan() {
    local dir=$1 workflow=$2
    shift 2
    mkdir -p "$dir" || fail "cannot create '$dir'"
    step "plan $workflow on $SLURM_NTASKS sites $* -> $dir/plan.yaml"
    "$TRA" plan "$workflow" --sites "$SLURM_NTASKS" "$@" -o "$dir/plan.yaml" > "$dir/plan.txt" 2>&1 ||
        { cat "$dir/plan.txt" >&2; fail "tra plan failed for $workflow $*"; }
    "$TRA" explain "$dir/plan.yaml" --format json > "$dir/explain.json" 2> "$dir/explain.err" ||
        { cat "$dir/explain.err" >&2; fail "tra explain failed for $dir/plan.yaml"; }
    step "run $dir/plan.yaml on $SLURM_NTASKS ranks (${TRA_LAUNCHER})"
    local rc=0
    launch "$TRA" run "$dir/plan.yaml" --out-dir "$dir" --force --report "$dir/run.json" \
        "${RUN_OPTIONS[@]}" > "$dir/run.log" 2>&1 || rc=$?
    cat "$dir/run.log"
    [ "$rc" -eq 0 ] || fail "tra run of $dir/plan.yaml exited with $rc (log: $dir/run.log)"
    step "compare $dir/run.json with the plan"
    "$TRA_PYTHON" "$TRA_SRC/tools/slurm/compare_report.py" "$dir/run.json" "$dir/explain.json" ||
        fail "the run report $dir/run.json does not match its plan $dir/plan.yaml"
}
