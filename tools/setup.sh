#!/usr/bin/env bash
# Installs tra's build and test dependencies from Debian's archive, then configures and builds.
# Usage: tools/setup.sh [build-dir]   (default: build)
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
packages=(cmake g++ make pkg-config libcli11-dev libyaml-cpp-dev libhdf5-openmpi-dev hdf5-tools
          libopenmpi-dev openmpi-bin libopenblas-dev catch2 python3 python3-numpy python3-h5py
          python3-yaml libscalapack-openmpi-dev libdbcsr-dev gfortran gnuplot-nox help2man dpkg-dev
          ccache)
bash tools/install-packages.sh "${packages[@]}"
echo "== configuring $build"
# ccache: the test stages (tools/test.d) build tra again (the GPU backend, MPICH), and every
# source that is compiled alike there comes out of this build's cache instead of the compiler.
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DTRA_WERROR=ON \
    -DCMAKE_CXX_COMPILER_LAUNCHER=ccache >/dev/null
echo "== building"
cmake --build "$build" -j "$(nproc)"
