# The arguments and first check every end-to-end CLI test script (tests/cli/test_*.sh) shares.
# Sourced as
#
#   source "$(dirname "${BASH_SOURCE[0]}")/test_arguments.bash" NAME "$@"
#
# with the script's three arguments TRA_BINARY SOURCE_DIR WORK_DIR (what tests/CMakeLists.txt
# passes): sets TRA, SRC and WORK, defines `fail MESSAGE` ("FAIL (NAME): MESSAGE" on stderr,
# exit 1; a script that needs more defines its own afterwards), and checks that the binary exists.
test_name=${1:?"usage: source test_arguments.bash NAME TRA_BINARY SOURCE_DIR WORK_DIR"}
usage="usage: bash test_$test_name.sh TRA_BINARY SOURCE_DIR WORK_DIR"
TRA=${2:?$usage}
SRC=${3:?$usage}
WORK=${4:?$usage}

fail() {
    echo "FAIL ($test_name): $*" >&2
    exit 1
}

[ -x "$TRA" ] || fail "tra binary '$TRA' is missing or not executable"
