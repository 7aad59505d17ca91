# shellcheck shell=bash
# What every end-to-end test script shares, CLI (tests/cli/test_*.sh) and MPI
# (tests/mpi/test_*.sh) alike. Sourced first thing as
#
#   source "$(dirname "${BASH_SOURCE[0]}")/../test_helpers.bash" cli NAME "$@"
#   source "$(dirname "${BASH_SOURCE[0]}")/../test_helpers.bash" mpi NAME "$@"
#
# with the script's arguments as tests/CMakeLists.txt passes them: TRA_BINARY SOURCE_DIR WORK_DIR
# for cli, and RANKS MPIEXEC after them for mpi. Sets TRA, SRC, WORK (mpi: RANKS, MPIEXEC) and PY
# (the python with numpy and h5py: $TRA_PYTHON, else Debian's), defines the functions below, and
# checks that the binary exists (mpi: also the launcher, and that RANKS is a positive integer).
test_kind=${1:?"usage: source test_helpers.bash cli|mpi NAME ARGS..."}
test_name=${2:?"usage: source test_helpers.bash cli|mpi NAME ARGS..."}
shift 2
case $test_kind in
    cli) usage="usage: bash test_$test_name.sh TRA_BINARY SOURCE_DIR WORK_DIR" ;;
    mpi) usage="usage: bash test_$test_name.sh TRA_BINARY SOURCE_DIR WORK_DIR RANKS MPIEXEC" ;;
    *)
        echo "test_helpers.bash: the kind is cli or mpi, not '$test_kind'" >&2
        exit 2
        ;;
esac
# Tests never inherit a machine profile: rankings under the time model must not depend on the
# machine the suite runs on (tests that mean bytes pass --cost exact).
unset TRA_MACHINE
TRA=${1:?$usage}
SRC=${2:?$usage}
WORK=${3:?$usage}
if [ "$test_kind" = mpi ]; then
    RANKS=${4:?$usage}
    MPIEXEC=${5:?$usage}
    test_label="$test_name, $RANKS ranks"
else
    test_label=$test_name
fi
PY=${TRA_PYTHON:-/usr/bin/python3}

# fail MESSAGE: "FAIL (NAME): MESSAGE" (mpi: "FAIL (NAME, R ranks): ...") on stderr, exit 1. A
# script that needs more in its message defines its own afterwards.
fail() {
    echo "FAIL ($test_label): $*" >&2
    exit 1
}

# count_failures: from here on `fail` reports and counts instead of exiting, so a script checks
# everything and lists every failure; end it with finish_counted.
count_failures() {
    failures=0
    fail() {
        echo "FAIL ($test_label): $*" >&2
        failures=$((failures + 1))
    }
}

# finish_counted OK_LINE: exit 1 after "NAME: N failure(s)" when any check failed, else prints
# OK_LINE.
finish_counted() {
    if [ "$failures" -ne 0 ]; then
        echo "$test_name: $failures failure(s)" >&2
        exit 1
    fi
    echo "$1"
}

# enter_work_dir: WORK emptied (a test never sees a previous run's files) and made the current
# folder.
enter_work_dir() {
    rm -rf "$WORK"
    mkdir -p "$WORK"
    cd "$WORK" || exit 1
}

# outputs_written LOG: "OUTPUT FILE:/DATASET" for each "wrote OUTPUT to FILE:/DATASET" line of a
# tra run's output in LOG, i.e. every output the run really wrote.
outputs_written() {
    sed -n 's/^wrote \([^ ]*\) to \(.*\)$/\1 \2/p' "$1"
}

# matmul_workflow NAME A_SHAPE A_TILE B_SHAPE B_TILE FORM [SEED_B]: prints the workflow NAME
# computing C = A B (output out/C.h5) of generated inputs, uniform in [-1, 1] with seeds 1 and
# SEED_B (default 2), e.g. matmul_workflow mm "8, 8" "2, 2" "8, 8" "2, 2" join > mm.yaml. FORM
# `einsum` is one step C (ik,kj->ij); `join` is the TRA form: AB (a matmul join on A's column and
# B's row key) and C (the add aggregate over (i, j)).
matmul_workflow() {
    local name=$1 a_shape=$2 a_tile=$3 b_shape=$4 b_tile=$5 form=$6 seed_b=${7:-2}
    echo "name: $name"
    echo "inputs:"
    echo "  A: {shape: [$a_shape], tile: [$a_tile], generate: {uniform: [-1, 1], seed: 1}}"
    echo "  B: {shape: [$b_shape], tile: [$b_tile], generate: {uniform: [-1, 1], seed: $seed_b}}"
    echo "program:"
    case $form in
        einsum) echo '  - C: {einsum: "ik,kj->ij", inputs: [A, B]}' ;;
        join)
            echo "  - AB: {join: [A, B], on: [[1], [0]], kernel: matmul}"
            echo "  - C:  {aggregate: AB, by: [0, 2], kernel: add}"
            ;;
        *) fail "matmul_workflow: FORM is einsum or join, not '$form'" ;;
    esac
    echo "outputs:"
    echo "  C: {file: out/C.h5}"
}

[ -x "$TRA" ] || fail "tra binary '$TRA' is missing or not executable"
if [ "$test_kind" = mpi ]; then
    command -v "$MPIEXEC" > /dev/null || fail "mpiexec '$MPIEXEC' not found"
    [[ "$RANKS" =~ ^[1-9][0-9]*$ ]] || fail "RANKS must be a positive integer, not '$RANKS'"
fi
