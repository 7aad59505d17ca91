#!/usr/bin/env bash
# `tra --version`: the first line is "tra X.Y.Z" with the version of project() in CMakeLists.txt
# (scripts and help2man parse it), then the commit and one line per library, each from the
# library itself; printing it must not need a launcher or start MPI.
# Usage: bash test_version.sh TRA_BINARY SOURCE_DIR WORK_DIR
set -uo pipefail

# shellcheck source=tests/test_helpers.bash
source "$(dirname "${BASH_SOURCE[0]}")/../test_helpers.bash" cli version "$@"

count_failures

enter_work_dir

rc=0
"$TRA" --version > version.out 2> version.err || rc=$?
[ "$rc" -eq 0 ] || fail "tra --version exited $rc: $(cat version.err)"
[ ! -s version.err ] || fail "tra --version wrote to stderr: $(cat version.err)"

project_version=$(sed -n 's/^project(tra VERSION \([0-9.]*\) .*/\1/p' "$SRC/CMakeLists.txt")
[ -n "$project_version" ] || fail "no project(tra VERSION ...) in CMakeLists.txt"
first=$(head -n 1 version.out)
[ "$first" = "tra $project_version" ] ||
    fail "first line is '$first', expected 'tra $project_version'"
grep -qE '^commit ([0-9a-f]{7,}|unknown)$' version.out || fail "no commit line: $(cat version.out)"
grep -qE '^BLAS [A-Za-z]' version.out || fail "no BLAS line: $(cat version.out)"
grep -qE '^MPI .*[0-9]+\.[0-9]+' version.out || fail "no MPI library version: $(cat version.out)"
grep -qE '^HDF5 [0-9]+\.[0-9]+\.[0-9]+ \((parallel|serial)\)$' version.out ||
    fail "no HDF5 version: $(cat version.out)"
lines=$(wc -l < version.out)
[ "$lines" -ge 5 ] || fail "tra --version printed $lines lines, expected at least 5"

finish_counted "version: $first, $((lines - 1)) build lines"
