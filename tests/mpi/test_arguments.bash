# The arguments and first checks every MPI test script (tests/mpi/test_*.sh) shares. Sourced as
#
#   source "$(dirname "${BASH_SOURCE[0]}")/test_arguments.bash" NAME "$@"
#
# with the script's five arguments TRA_BINARY SOURCE_DIR WORK_DIR RANKS MPIEXEC (what
# tests/CMakeLists.txt passes): sets TRA, SRC, WORK, RANKS and MPIEXEC, defines
# `fail MESSAGE` ("FAIL (NAME, RANKS ranks): MESSAGE" on stderr, exit 1; a script that needs
# more in its message defines its own afterwards), and checks that the binary and the launcher
# exist and that RANKS is a positive integer.
test_name=${1:?"usage: source test_arguments.bash NAME TRA_BINARY SOURCE_DIR WORK_DIR RANKS MPIEXEC"}
usage="usage: bash test_$test_name.sh TRA_BINARY SOURCE_DIR WORK_DIR RANKS MPIEXEC"
TRA=${2:?$usage}
SRC=${3:?$usage}
WORK=${4:?$usage}
RANKS=${5:?$usage}
MPIEXEC=${6:?$usage}

fail() {
    echo "FAIL ($test_name, $RANKS ranks): $*" >&2
    exit 1
}

[ -x "$TRA" ] || fail "tra binary '$TRA' is missing or not executable"
command -v "$MPIEXEC" > /dev/null || fail "mpiexec '$MPIEXEC' not found"
[[ "$RANKS" =~ ^[1-9][0-9]*$ ]] || fail "RANKS must be a positive integer, not '$RANKS'"
