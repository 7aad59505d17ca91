#!/usr/bin/env bash
# The default memory budget honours the tightest limit in force and chooses the plan: under
# Slurm's SLURM_MEM_PER_NODE / SLURM_MEM_PER_CPU, and inside a real cgroup v1 with a small
# memory.limit_in_bytes, `tra run` prints the budget with its source, runs the cheapest plan that
# fits it (the one `tra plan --memory-per-site BUDGET` ranks first) or refuses up front with
# exit 2, and is never killed. Expected budgets are 3/4 of the limit, computed here.
# Usage: bash test_memory_budget.sh TRA_BINARY SOURCE_DIR WORK_DIR
set -euo pipefail

# shellcheck source=tests/test_helpers.bash
source "$(dirname "${BASH_SOURCE[0]}")/../test_helpers.bash" cli memory_budget "$@"
enter_work_dir
unset SLURM_MEM_PER_NODE SLURM_MEM_PER_CPU SLURM_CPUS_PER_TASK

# C = A B as a join + sum: plans whose peaks differ by megabytes.
cat > mm.yaml <<'YAML'
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

# Three ranks on this host, launched by mpirun, priced by the built-in default profile but with
# memory so fast that RMM's replica copies (a memory pass each) cost next to nothing: the time
# model then ranks rmm first, with a larger peak than the broadcasts. (At the built-in 5 GB/s
# the copies make rmm the slower plan.) TRA_MACHINE reaches `tra plan` and `tra run` alike.
export TRA_MACHINE=$SRC/tests/cli/fast_memory.machine.yaml
mpirun=$(command -v mpirun) || fail "no mpirun on PATH"
ranks=3
launch() { "$mpirun" -n "$ranks" "$@"; }

# The plans for three sites on one host, unfiltered: rank 1's peak, and the smallest peak.
"$TRA" plan mm.yaml --sites "$ranks" --ranks-per-host "$ranks" --top 1000 --format json > plans.json
read -r first_peak least_peak < <("$PY" -c '
import json; p = json.load(open("plans.json"))["plans"]
print(p[0]["peak_bytes_per_site"], min(x["peak_bytes_per_site"] for x in p))')

# expect_plan LOG BUDGET: the run used the plan `tra plan --memory-per-site BUDGET` ranks first,
# which is not the cheapest plan of all (that one does not fit).
expect_plan() {
    local want
    [ "$2" -ge "$least_peak" ] && [ "$2" -lt "$first_peak" ] ||
        fail "budget $2 does not separate the plans (peaks: cheapest $first_peak, least $least_peak)"
    want=$("$TRA" plan mm.yaml --sites "$ranks" --ranks-per-host "$ranks" --memory-per-site "$2" --format json |
        "$PY" -c 'import json, sys; print(json.load(sys.stdin)["plans"][0]["name"])')
    "$PY" - "$want" "$2" <<'PY' || { cat "$1" >&2; fail "$1: the run did not use the plan that fits $2"; }
import json, sys
r = json.load(open("run.json"))
assert r["plan"] == sys.argv[1], (r["plan"], sys.argv[1])
assert r["predicted_peak_bytes"] <= int(sys.argv[2]), r["predicted_peak_bytes"]
PY
}

# (a) SLURM_MEM_PER_NODE: shared by the host's ranks. 3/4 of MB MiB over 3 ranks is MB x 262144.
mb=$(( (least_peak + 262143) / 262144 ))
budget=$(( mb * 262144 ))
rc=0
SLURM_MEM_PER_NODE=$mb launch "$TRA" run mm.yaml --report run.json > node.log 2>&1 || rc=$?
[ "$rc" -eq 0 ] || { cat node.log >&2; fail "the run under SLURM_MEM_PER_NODE=$mb exited with $rc"; }
grep -q "^memory budget: $budget bytes .* per rank, 3/4 of Slurm's SLURM_MEM_PER_NODE=$mb MB .* over 3 ranks on the host" node.log ||
    { cat node.log >&2; fail "the run does not print its budget from SLURM_MEM_PER_NODE"; }
expect_plan node.log "$budget"
rm -rf out run.json

# (b) SLURM_MEM_PER_CPU x SLURM_CPUS_PER_TASK: each rank's own, 3/4 of 2 x MB MiB.
mb=$(( (least_peak + 1572863) / 1572864 ))
budget=$(( mb * 1572864 ))
rc=0
SLURM_MEM_PER_CPU=$mb SLURM_CPUS_PER_TASK=2 launch "$TRA" run mm.yaml --report run.json > cpu.log 2>&1 || rc=$?
[ "$rc" -eq 0 ] || { cat cpu.log >&2; fail "the run under SLURM_MEM_PER_CPU=$mb x 2 exited with $rc"; }
grep -q "^memory budget: $budget bytes .* per rank, 3/4 of Slurm's SLURM_MEM_PER_CPU=$mb MB x 2 CPUs per task .* per rank" cpu.log ||
    { cat cpu.log >&2; fail "the run does not print its budget from SLURM_MEM_PER_CPU"; }
expect_plan cpu.log "$budget"
rm -rf out run.json

# (c) No plan fits: refused up front, exit 2, nothing written.
rc=0
SLURM_MEM_PER_NODE=1 "$TRA" run mm.yaml > none.log 2>&1 || rc=$?
[ "$rc" -eq 2 ] || { cat none.log >&2; fail "the run under SLURM_MEM_PER_NODE=1 exited with $rc, expected 2"; }
grep -q "no plan fits" none.log && grep -q "default budget" none.log ||
    { cat none.log >&2; fail "the refusal does not say that no plan fits the default budget"; }
[ ! -e out ] || fail "a refused run wrote out/"

# (d) A value Slurm would not set: exit 2 naming the variable.
rc=0
SLURM_MEM_PER_NODE=2G "$TRA" run mm.yaml > bad.log 2>&1 || rc=$?
[ "$rc" -eq 2 ] && grep -q "SLURM_MEM_PER_NODE='2G'" bad.log ||
    { cat bad.log >&2; fail "SLURM_MEM_PER_NODE=2G: exit $rc without naming the variable"; }

# (e) A real cgroup v1 memory limit of 256 MiB (this machine kind's cgroups are v1): a workflow
#     that fits runs within it; one whose inputs alone exceed it is refused up front, never
#     OOM-killed (exit 137).
own=$(awk -F: '$2 ~ /(^|,)memory(,|$)/ {print $3}' /proc/self/cgroup)
mount_point=/sys/fs/cgroup/memory
if [ -z "$own" ] || [ ! -d "$mount_point" ]; then
    echo "memory_budget: skipping the cgroup part: no cgroup v1 memory controller here"
    echo "memory_budget: ok (without a cgroup)"
    exit 0
fi
cg="$mount_point${own%/}/tra-test-$$"
if ! mkdir "$cg" 2> mkdir.err; then
    if grep -Eq "Permission denied|Read-only file system" mkdir.err; then
        echo "memory_budget: skipping the cgroup part: $(cat mkdir.err)"
        echo "memory_budget: ok (without a cgroup)"
        exit 0
    fi
    cat mkdir.err >&2
    fail "cannot create the cgroup $cg"
fi
trap 'rmdir "$cg" 2>/dev/null || true' EXIT
limit=$((256 * 1048576))
echo "$limit" > "$cg/memory.limit_in_bytes"
budget=$(( limit * 3 / 4 ))
# in_cgroup LOG ARGS...: tra ARGS in the cgroup; sets rc.
in_cgroup() {
    local log=$1
    shift
    rc=0
    bash -c 'echo $$ > "$0/cgroup.procs" && exec "$@"' "$cg" "$TRA" "$@" > "$log" 2>&1 || rc=$?
}
in_cgroup small.log run mm.yaml --report run.json
[ "$rc" -eq 0 ] || { cat small.log >&2; fail "the run in a 256 MiB cgroup exited with $rc"; }
grep -q "^memory budget: $budget bytes .* 3/4 of cgroup v1 $cg/memory.limit_in_bytes (256.0 MiB) over 1 rank on the host" small.log ||
    { cat small.log >&2; fail "the run in a cgroup does not print the cgroup's budget"; }
"$PY" -c "import json; r = json.load(open('run.json')); assert r['predicted_peak_bytes'] <= $budget" ||
    fail "the run in a cgroup chose a plan above its budget"
rm -rf out run.json
sed -e 's/\[1200, 1200\]/[6000, 6000]/g' -e 's/\[300, 300\]/[1500, 1500]/g' mm.yaml > big.yaml
in_cgroup big.log run big.yaml
[ "$rc" -eq 2 ] || { cat big.log >&2; fail "the run of big.yaml in a 256 MiB cgroup exited with $rc, expected 2 (refused up front)"; }
grep -q "no plan fits" big.log || { cat big.log >&2; fail "big.yaml in a 256 MiB cgroup: not refused for its memory"; }
[ ! -e out ] || fail "a refused run wrote out/"

echo "memory_budget: ok"
