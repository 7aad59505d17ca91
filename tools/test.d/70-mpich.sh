#!/usr/bin/env bash
# Stage: tra against another MPI. Centres run MPICH-based MPIs (Cray MPICH, Intel MPI, MVAPICH),
# so tra is built here against Debian's MPICH (libmpich-dev, with MPICH's parallel HDF5,
# libhdf5-mpich-dev) and its MPI tests run under MPICH's mpiexec (Hydra): the C++ MPI tests at
# 1-3 ranks, the shell MPI tests at 1-2. Differences from the main suite, and why:
# - no pml monitoring cross-check: that is an Open MPI component (tests/mpi/plan_runs.bash then
#   checks the measured bytes against the prediction only);
# - here the point is the MPI library, and the main suite has run every plan at 1-4 ranks, so
#   as in the sanitizer stage the plan sweeps run each workflow's 3 cheapest plans
#   (PLAN_RUNS_TOP) and skip 1 rank, where they move no message; the two sweeps of the paper
#   workflows and of repeated plan files (`paper_plans`, `repeat_and_plan_files`, the slowest:
#   3 minutes each under MPICH's busy-polling waits on 2 cores) do not run, as their exchanges
#   are the ones `run_plans`, `rmm_plans` and `random_programs` already run here;
# - the shell tests (whole `tra run`s) at 2 ranks only; 2 ranks move every kind of message (at 1
#   they run the same operators without the exchanges, as the main suite does at 1-4 ranks under
#   Open MPI), and the C++ tests still run at 1-3. (CI failed in mpi.run_failures here twice, at
#   3 ranks and then at 2, with a job that ended non-zero but printed nothing: Hydra tore its
#   stdio forwarding down on MPI_Abort before reading the aborting rank's error line. abort_job
#   now waits half a second for the launcher to read it before aborting; it never failed on
#   this machine.)
# - only tra and the MPI test programs are built (the unit and CLI tests do not touch MPI's
#   messaging).
# Runs last: installing MPICH leaves Debian's mpirun/mpicc alternatives on Open MPI, but no
# earlier stage should depend on that.
# Usage: bash tools/test.d/70-mpich.sh MAIN_BUILD_DIR   (builds MAIN_BUILD_DIR-mpich)
set -euo pipefail
cd "$(dirname "$0")/../.."
build="${1:-build}-mpich"

bash tools/install-packages.sh libmpich-dev mpich libhdf5-mpich-dev

start=$SECONDS
echo "== configuring $build (MPICH, MPICH's HDF5)"
# With ccache (tools/setup.sh installs it), every source that includes neither mpi.h nor hdf5.h
# comes out of the main build's cache: ccache hashes the preprocessed source, not the -I flags.
launcher=()
command -v ccache > /dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DTRA_WERROR=ON \
    -DMPI_C_COMPILER=/usr/bin/mpicc.mpich -DMPIEXEC_EXECUTABLE=/usr/bin/mpiexec.mpich \
    -DHDF5_C_COMPILER_EXECUTABLE=/usr/bin/h5pcc.mpich "${launcher[@]}" >/dev/null
cache="$build/CMakeCache.txt"
grep -q '^MPI_C_LIB_NAMES:STRING=.*mpich' "$cache" ||
    { echo "FAIL: $build did not find MPICH: $(grep '^MPI_C_LIB_NAMES' "$cache")" >&2; exit 1; }
grep -q '^HDF5_C_LIBRARY_hdf5:FILEPATH=.*/hdf5/mpich/' "$cache" ||
    { echo "FAIL: $build did not find MPICH's HDF5: $(grep '^HDF5_C_LIBRARY_hdf5:' "$cache")" >&2; exit 1; }

targets=(tra bench_ceiling bench_summa)
for source in tests/mpi/test_*.cpp; do
    name=$(basename "$source" .cpp)
    targets+=("mpi_${name#test_}")
done
cmake --build "$build" -j "$(nproc)" --target "${targets[@]}"

# The binary runs on MPICH alone: Open MPI's library linked in too would be a broken build.
tra="$build/apps/tra"
if ldd "$tra" | grep -E 'libmpi\.so|libopen-(rte|pal)'; then
    echo "FAIL: $tra links Open MPI (above) as well as MPICH" >&2
    exit 1
fi
"$tra" --version | grep -i 'mpich' >/dev/null ||
    { "$tra" --version; echo "FAIL: tra --version does not name MPICH" >&2; exit 1; }
echo "== built in $((SECONDS - start)) s; MPI tests at 1-3 (C++) and 2 ranks under mpiexec.mpich"

# The C++ MPI tests (mpi.NAME_cpp.nR) at 1-3 ranks, then the shell MPI tests at 2.
(cd "$build" && ctest --output-on-failure -j "$(nproc)" -R '^mpi\..*_cpp\.n[123]$')
skip='_cpp\.|\.n[134]$|^mpi\.(paper_plans|repeat_and_plan_files)\.'
export PLAN_RUNS_TOP=3
(cd "$build" && ctest --output-on-failure -j "$(nproc)" -R '^mpi\.' -E "$skip")

echo "== MPICH suite passed in $((SECONDS - start)) s"
