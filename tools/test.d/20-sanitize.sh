#!/usr/bin/env bash
# Stage: the whole CTest suite (unit, CLI, and MPI tests at 1 and 2 ranks) built with clang-14
# under AddressSanitizer + UndefinedBehaviorSanitizer (-DTRA_SANITIZE=ON, plus -DTRA_FUZZ=ON
# so that stage 30 reuses this build). Fails on any failing test and on any sanitizer report,
# even one from a process that was expected to exit non-zero. Only leaks inside MPI and HDF5
# are suppressed (tools/sanitize/lsan.supp). The shell MPI tests (whole `tra run`s) run at 2
# ranks only here: at 1 rank they run the same operators minus the exchanges (the main suite
# runs them at 1-4 ranks, and the CLI tests run tra as one process under the sanitizers), and
# under the sanitizers each costs about as much again. The C++ MPI tests run at 1 and 2. For
# the same reason the plan sweeps run each workflow's 3 cheapest plans, not 10 (PLAN_RUNS_TOP),
# and the 65 einsum expressions run at 1 and 3 ranks (EINSUM_COVERAGE_RANKS): every plan and
# rank count still runs in the main suite; here the point is the code paths, which these cover.
# Three sweeps do not run here at all, as in the MPICH stage: `paper_plans` and
# `repeat_and_plan_files` run the exchanges `run_plans`, `rmm_plans` and `random_programs`
# already run, and `auto_tiling` the re-tilings of plans/examples/{retile,auto_tiling}.yaml,
# which `run_plans` runs; the plan-file parser is fuzzed (stage 30). They were a fifth of
# this stage's test time.
# Debug information is line tables only (TRA_DEBUG_INFO=lines): enough for the reports' source
# lines, and the build is faster.
# Usage: bash tools/test.d/20-sanitize.sh MAIN_BUILD_DIR   (builds MAIN_BUILD_DIR-sanitize)
set -euo pipefail
cd "$(dirname "$0")/../.."
build="${1:-build}-sanitize"

bash tools/install-packages.sh clang-14 libclang-rt-14-dev llvm-14

start=$SECONDS
echo "== configuring $build (clang-14, ASan + UBSan)"
CC=clang-14 CXX=clang++-14 cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DTRA_WERROR=ON -DTRA_SANITIZE=ON -DTRA_FUZZ=ON -DTRA_DEBUG_INFO=lines >/dev/null
logs="$PWD/$build/sanitizer-logs"
rm -rf "$logs"
# Test discovery runs the unit binaries at build time, so the settings apply from here on.
source tools/sanitize/env.sh "$logs"
cmake --build "$build" -j "$(nproc)"
echo "== built in $((SECONDS - start)) s; testing (C++ MPI tests at 1 and 2 ranks, shell MPI tests at 2)"
rc=0
shell_mpi_n1=$(cd "$build" && ctest -N | sed -n 's/^ *Test *#[0-9]*: \(mpi\.[a-z0-9_]*\.n1\)$/\1/p' |
    grep -v '_cpp\.n1$' | sed 's/\./\\./g' | paste -sd '|')
[ -n "$shell_mpi_n1" ] || { echo "FAIL: ctest -N lists no shell MPI tests at 1 rank" >&2; exit 1; }
skip="^mpi\\..*\\.n[34]\$|^($shell_mpi_n1)\$|^mpi\\.(paper_plans|repeat_and_plan_files|auto_tiling)\\."
export PLAN_RUNS_TOP=3 EINSUM_COVERAGE_RANKS="1 3"
(cd "$build" && ctest --output-on-failure -j "$(nproc)" -E "$skip") || rc=$?
# LeakSanitizer's own tracer thread, which stops a process's threads for the leak check at exit,
# sometimes crashes ("Tracer caught signal 11 ... LeakSanitizer has encountered a fatal error";
# seen once in about 400 tests, in mpi.exchange_cpp.n1 after all its cases had passed). That is
# the tool failing, not a finding: such a report, when it says nothing else, is shown and set
# aside, and the failed tests run once more; any other report still fails the stage. Its cause,
# clang 14 misreading glibc 2.36's dynamic TLS, is avoided in tools/sanitize/env.sh
# (intercept_tls_get_addr=0) since it failed twice in a row once the layout triggered it.
set_aside=0
for f in $(grep -l 'Tracer caught signal' "$logs"/* 2>/dev/null || true); do
    other=$(grep -v -e 'Tracer caught signal' -e 'LeakSanitizer has encountered a fatal error' \
        -e '==HINT:' "$f" || true)
    [ -z "$other" ] || continue
    echo "== LeakSanitizer's tracer crashed (not a finding), set aside: $f"
    cat "$f"
    rm "$f"
    set_aside=1
done
if [ "$set_aside" = 1 ] && [ "$rc" -ne 0 ]; then
    # By name: `ctest --rerun-failed` goes by test number, and without the same -E the numbers
    # name other tests (CI once reran mpi.provenance.n2 for mpi.exchange_cpp.n1).
    failed=$(sed -n 's/^[0-9]*://p' "$build/Testing/Temporary/LastTestsFailed.log" |
        sed 's/[][\.*^$()+?{}|]/\\&/g' | paste -sd '|')
    echo "== running the failed tests once more: $failed"
    rc=0
    (cd "$build" && ctest --output-on-failure -R "^($failed)\$") || rc=$?
fi
reports=$(find "$logs" -type f)
if [ -n "$reports" ]; then
    for f in $reports; do echo "== sanitizer report $f"; cat "$f"; done
    echo "FAIL: the sanitizer build reported problems (above)" >&2
    exit 1
fi
[ "$rc" -eq 0 ] || { echo "FAIL: tests failed under the sanitizers" >&2; exit "$rc"; }
echo "== sanitizer suite clean in $((SECONDS - start)) s"
