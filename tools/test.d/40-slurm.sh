#!/usr/bin/env bash
# A real one-node Slurm cluster runs the sbatch scripts of tools/slurm (docs/cluster.md):
# installs Debian's slurmctld, slurmd, slurm-client and munge, starts munged, slurmctld and
# slurmd as root with a generated key and config (8 CPUs and 8 GiB declared, whatever the machine has) in a
# private folder, then submits with `sbatch --wait`:
#   1. paper-ffnn.sbatch --scaled --check --gen ffnn-speech (5 tasks, srun --mpi=pmix): the
#      paper's TRA-DP and TRA-MP plans and tra's own, each checked by `tra run --check` (outputs
#      and bytes), its report against the plan, and here its outputs against numpy;
#   2. tra.sbatch on the scaled nn-wide workflow (3 tasks, mpirun inside the allocation), checked
#      the same way;
#   3. `tra run` of a workflow (no plan file) in two jobs with `--mem`: under a limit that only
#      some plans fit, the run prints the budget Slurm gave (3/4 of SLURM_MEM_PER_NODE over the
#      node's 3 ranks) and runs the plan `tra plan --memory-per-site` ranks first for it; under
#      1 MB it is refused up front (exit 2, "no plan fits"), writing nothing;
#   4. a loop (plans/examples/ffnn_train.yaml) killed in its first job and resumed from its
#      checkpoint by a second job with the same command line, bit-identical to a whole run;
#   5. three jobs that must fail, each with a clear message: a workflow that does not exist, a
#      paper experiment given the wrong task count, and srun without PMI (--mpi=none: OpenMPI
#      cannot start under srun without PMIx).
# The daemons are stopped on every exit (trap), jobs first. Usage: 40-slurm.sh BUILD_DIR
set -euo pipefail
cd "$(dirname "$0")/../.."
src=$PWD
build=$(realpath "${1:-build}")
tra=$build/apps/tra
work=$build-slurm
py=/usr/bin/python3

fail() {
    echo "FAIL (slurm): $*" >&2
    exit 1
}

[ -x "$tra" ] || fail "no tra binary at $tra (build first: tools/setup.sh)"
packages=(slurmctld slurmd slurm-client munge)
bash tools/install-packages.sh --no-install-recommends "${packages[@]}"
[ "$(id -u)" -eq 0 ] || fail "the cluster runs its daemons as root (SlurmUser=root); run as root"

# A fresh cluster every time: stale state reuses job ids and collides with old PMIx sockets.
rm -rf "$work"
mkdir -p "$work"/{run,state,spool,tmp,log,jobs}
# munged refuses a socket under any folder that is not executable for all, as a clone inside a
# `mktemp -d` folder (0700) is: its key and socket live in a folder of their own under /tmp.
munge=$(mktemp -d /tmp/tra-munge.XXXXXX)
chmod 711 "$munge"
node=$(hostname -s)

stop_cluster() {
    local rc=$?
    set +e
    if [ -s "$work/run/slurmctld.pid" ]; then
        scancel --full --quiet --user=root 2> /dev/null
        for _ in $(seq 50); do
            [ -z "$(squeue --noheader 2> /dev/null)" ] && break
            sleep 0.2
        done
    fi
    local daemon pid
    for daemon in slurmd slurmctld munged; do
        pid=$(cat "$work/run/$daemon.pid" 2> /dev/null) || continue
        kill "$pid" 2> /dev/null || continue
        for _ in $(seq 50); do
            kill -0 "$pid" 2> /dev/null || break
            sleep 0.2
        done
        kill -0 "$pid" 2> /dev/null && { echo "$daemon ($pid) ignored SIGTERM, killing it"; kill -9 "$pid"; }
    done
    if [ "$rc" -ne 0 ]; then
        for log in "$work"/log/*.log; do
            echo "---- last lines of $log" >&2
            tail -n 20 "$log" >&2
        done
    fi
    rm -rf "$munge"
    echo "slurm: daemons stopped"
    exit "$rc"
}
trap stop_cluster EXIT INT TERM

# Two free TCP ports for slurmctld and slurmd, so the stage never meets another Slurm here.
read -r ctld_port slurmd_port < <("$py" -c '
import socket
s = [socket.socket() for _ in range(2)]
for x in s: x.bind(("127.0.0.1", 0))
print(*[x.getsockname()[1] for x in s])')

echo "== munge: key and daemon in $munge"
mungekey --create --keyfile="$munge/munge.key"
chmod 600 "$munge/munge.key"
munged --key-file="$munge/munge.key" --socket="$munge/munge.socket" \
    --pid-file="$work/run/munged.pid" --log-file="$work/log/munged.log" \
    --seed-file="$munge/munged.seed"

cat > "$work/slurm.conf" << EOF
ClusterName=tra-test
SlurmctldHost=$node(127.0.0.1)
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$munge/munge.socket
StateSaveLocation=$work/state
SlurmdSpoolDir=$work/spool
TmpFS=$work/tmp
SlurmctldPidFile=$work/run/slurmctld.pid
SlurmdPidFile=$work/run/slurmd.pid
SlurmctldLogFile=$work/log/slurmctld.log
SlurmdLogFile=$work/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SlurmdParameters=config_overrides
MpiDefault=none
MailProg=/bin/true
ReturnToService=2
MinJobAge=5
EnforcePartLimits=ALL
NodeName=$node NodeAddr=127.0.0.1 CPUs=8 RealMemory=8192 State=UNKNOWN
PartitionName=debug Nodes=$node Default=YES MaxTime=30 State=UP
EOF
export SLURM_CONF=$work/slurm.conf

echo "== slurmctld and slurmd (ports $ctld_port, $slurmd_port)"
slurmctld -f "$SLURM_CONF"
slurmd -f "$SLURM_CONF"
for _ in $(seq 100); do
    state=$(sinfo --noheader --nodes="$node" --format=%T 2> /dev/null || true)
    [ "$state" = idle ] && break
    sleep 0.2
done
[ "$state" = idle ] || fail "the node did not become idle within 20 s (state: '${state:-none}')"
sinfo

# What every job needs: root may run OpenMPI when it says so; no CMA in containers; BLAS threads
# pinned by --cpus-per-task=1 below. sbatch exports this environment to the job.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_btl_vader_single_copy_mechanism=none OMPI_MCA_rmaps_base_oversubscribe=1
# The scripts find the checkout as the folder sbatch is called from (this one), as users submit.
export TRA=$tra TRA_PYTHON=$py
unset TRA_SRC TRA_OUT TRA_LAUNCHER TRA_SRUN_MPI

# submit NAME EXPECTED_RC SBATCH_ARGS...: sbatch --wait, its exit code must be EXPECTED_RC.
submit() {
    local name=$1 want=$2 rc=0 start=$SECONDS
    shift 2
    echo "== sbatch --wait $*"
    timeout 600 sbatch --wait --quiet --job-name="$name" --chdir="$work/jobs" \
        --output="$work/jobs/$name.out" --time=10 "$@" || rc=$?
    [ "$rc" -ne 124 ] || fail "job $name did not finish within 600 s"
    [ "$rc" -eq "$want" ] || { cat "$work/jobs/$name.out" >&2; fail "job $name exited with $rc, expected $want"; }
    echo "job $name: exit $rc after $((SECONDS - start)) s"
}

# numpy WORKFLOW RUN_DIR INPUTS_DIR: the run's outputs against plain numpy.
numpy() {
    "$py" "$src/plans/paper/check_scaled.py" "$1" "$2" --inputs "$3" || fail "$2 differs from numpy"
}

ffnn_out=$work/jobs/ffnn
TRA_OUT=$ffnn_out submit paper-ffnn 0 --ntasks=5 --cpus-per-task=1 \
    "$src/tools/slurm/paper-ffnn.sbatch" --scaled --check --gen ffnn-speech
grep -q "all runs done, reports match their plans" "$work/jobs/paper-ffnn.out" ||
    { cat "$work/jobs/paper-ffnn.out" >&2; fail "paper-ffnn did not report success"; }
for plan in dp mp tra; do
    dir=$ffnn_out/ffnn-speech/$plan
    [ -s "$dir/run.json" ] || fail "no report next to the outputs in $dir"
    grep -q "^check: outputs equal the reference" "$dir/run.log" || fail "$dir: tra run --check said nothing"
    numpy "$src/plans/paper/scaled/ffnn-speech.yaml" "$dir" "$ffnn_out/ffnn-speech/inputs"
done
grep -q '"plan":"z1j=bcast-right,z1=local' "$ffnn_out/ffnn-speech/dp/run.json" ||
    fail "the dp run did not run the paper's TRA-DP plan"

nn_out=$work/jobs/nn
TRA_OUT=$nn_out TRA_LAUNCHER=mpirun submit nn-wide 0 --ntasks=3 --cpus-per-task=1 \
    "$src/tools/slurm/tra.sbatch" "$src/plans/paper/scaled/nn-wide.yaml" --gen --check
grep -q "report matches the plan" "$work/jobs/nn-wide.out" || fail "nn-wide: no report check"
grep -q '"sites":3' "$nn_out/run.json" || fail "nn-wide did not run on 3 ranks"
numpy "$src/plans/paper/scaled/nn-wide.yaml" "$nn_out" "$nn_out/inputs"

# The memory Slurm gives a job (--mem) is the default budget of every rank on the node.
mem_dir=$work/jobs/mem
mkdir -p "$mem_dir"
cat > "$mem_dir/mm.yaml" << 'YAML'
name: mm
inputs:
  A: {shape: [1200, 1200], tile: [300, 300], generate: {uniform: [-1, 1], seed: 1}}
  B: {shape: [1200, 1200], tile: [300, 300], generate: {uniform: [-1, 1], seed: 2}}
program:
  - AB: {join: [A, B], on: [[1], [0]], kernel: matmul}
  - C:  {aggregate: AB, by: [0, 2], kernel: add}
outputs:
  C: {file: out/C.h5}
YAML
# Priced with memory so fast that RMM, whose peak is larger than the broadcasts', ranks first
# (the same profile as tests/cli/test_memory_budget.sh); sbatch passes it on to the jobs.
export TRA_MACHINE=$src/tests/cli/fast_memory.machine.yaml
# The cheapest plan's peak and the smallest peak on 3 sites of one host; a --mem in MB whose
# budget (3/4 of it over 3 ranks: MB x 262144 bytes) fits the smallest and not the cheapest.
"$tra" plan "$mem_dir/mm.yaml" --sites 3 --ranks-per-host 3 --top 1000 --format json > "$mem_dir/plans.json"
read -r first_peak least_peak < <("$py" -c '
import json, sys; p = json.load(open(sys.argv[1]))["plans"]
print(p[0]["peak_bytes_per_site"], min(x["peak_bytes_per_site"] for x in p))' "$mem_dir/plans.json")
mem_mb=$(( (least_peak + 262143) / 262144 ))
budget=$(( mem_mb * 262144 ))
[ "$budget" -lt "$first_peak" ] || fail "no --mem separates the plans (peaks $first_peak, $least_peak)"
want=$("$tra" plan "$mem_dir/mm.yaml" --sites 3 --ranks-per-host 3 --memory-per-site "$budget" --format json |
    "$py" -c 'import json, sys; print(json.load(sys.stdin)["plans"][0]["name"])')
run_job="mpirun -n 3 --bind-to none $tra run mm.yaml --report run.json"
submit mem-fits 0 --ntasks=3 --cpus-per-task=1 --mem="$mem_mb" --chdir="$mem_dir" \
    --wrap="$run_job"
grep -q "^memory budget: $budget bytes .* SLURM_MEM_PER_NODE=$mem_mb MB .* over 3 ranks on the host" \
    "$work/jobs/mem-fits.out" || { cat "$work/jobs/mem-fits.out" >&2; fail "mem-fits: the budget of --mem=$mem_mb is not printed"; }
"$py" - "$mem_dir/run.json" "$want" "$budget" << 'PY' || fail "mem-fits did not run the plan that fits --mem"
import json, sys
r = json.load(open(sys.argv[1]))
assert r["plan"] == sys.argv[2], (r["plan"], sys.argv[2])
assert r["predicted_peak_bytes"] <= int(sys.argv[3]), r["predicted_peak_bytes"]
PY
rm -rf "$mem_dir/out" "$mem_dir/run.json"
submit mem-none 2 --ntasks=3 --cpus-per-task=1 --mem=1 --chdir="$mem_dir" --wrap="$run_job"
grep -q "no plan fits" "$work/jobs/mem-none.out" ||
    { cat "$work/jobs/mem-none.out" >&2; fail "mem-none: not refused for its memory"; }
[ ! -e "$mem_dir/out" ] || fail "mem-none: a refused run wrote $mem_dir/out"
echo "slurm: --mem=$mem_mb chose plan $want (peak <= $budget bytes); --mem=1 refused up front"
unset TRA_MACHINE

# A loop (repeat:) whose job dies resumes in the next job with the same command line
# (docs/cluster.md, "Restarting a long loop"): the first job's run is killed in iteration 50 of
# 100 (TRA_FAULT kills rank 1), the second resumes from the checkpoint both name, and the
# outputs equal an uninterrupted run's bit for bit.
loop_dir=$work/jobs/loop
mkdir -p "$loop_dir"
"$tra" plan "$src/plans/examples/ffnn_train.yaml" --sites 2 -o "$loop_dir/plan.yaml" > /dev/null
loop_job="mpirun -n 2 --bind-to none $tra run plan.yaml --threads 1 --checkpoint ckpt"
loop_job+=" --checkpoint-every 10 --resume ckpt --out-dir run || exit 1"
TRA_FAULT='kill@1:local_join#50' submit loop-killed 1 --ntasks=2 --cpus-per-task=1 \
    --chdir="$loop_dir" --wrap="$loop_job"
[ -s "$loop_dir/ckpt/checkpoint.h5" ] || fail "loop-killed left no checkpoint"
[ ! -e "$loop_dir/run/out/ffnn_train.h5" ] || fail "loop-killed wrote its output"
submit loop-resumed 0 --ntasks=2 --cpus-per-task=1 --chdir="$loop_dir" --wrap="$loop_job"
grep -q "^resume: from ckpt/checkpoint.h5, after iteration 40 of 100" "$work/jobs/loop-resumed.out" ||
    { cat "$work/jobs/loop-resumed.out" >&2; fail "loop-resumed did not resume after iteration 40"; }
mpirun -n 2 --bind-to none "$tra" run "$loop_dir/plan.yaml" --threads 1 --out-dir "$loop_dir/whole" \
    > "$loop_dir/whole.log" 2>&1 || { cat "$loop_dir/whole.log" >&2; fail "the uninterrupted loop failed"; }
h5diff -q "$loop_dir/whole/out/ffnn_train.h5" "$loop_dir/run/out/ffnn_train.h5" ||
    fail "the resumed loop's outputs differ from the uninterrupted run's"
echo "slurm: a loop killed in iteration 50 resumed in the next job, outputs bit-identical"

# expect_failure NAME MESSAGE: the job NAME failed (checked by submit) and said MESSAGE.
expect_failure() {
    grep -qF "tra-job: error: $2" "$work/jobs/$1.out" ||
        { cat "$work/jobs/$1.out" >&2; fail "job $1 failed without saying '$2'"; }
    echo "job $1 failed as it should: $(grep -F "tra-job: error:" "$work/jobs/$1.out")"
}
TRA_OUT=$work/jobs/missing submit missing 1 "$src/tools/slurm/tra.sbatch" "$work/no-such.yaml"
expect_failure missing "no workflow '$work/no-such.yaml'"
TRA_OUT=$work/jobs/sites submit sites 1 --ntasks=2 --cpus-per-task=1 "$src/tools/slurm/paper-nn.sbatch" --scaled nn-wide
expect_failure sites "the paper runs nn-wide on 8 sites, this job has 2 tasks"
# srun without PMI (a cluster whose MpiDefault is none): OpenMPI's MPI_Init fails on every rank.
TRA_OUT=$work/jobs/nopmi TRA_SRUN_MPI=none submit nopmi 1 --ntasks=2 --cpus-per-task=1 \
    "$src/tools/slurm/tra.sbatch" "$src/plans/examples/matmul.yaml"
expect_failure nopmi "tra run of $work/jobs/nopmi/plan.yaml exited with"
grep -q "MPI_Init" "$work/jobs/nopmi.out" || fail "nopmi: the job output does not show the run's log"

echo "slurm: ok (10 jobs)"
