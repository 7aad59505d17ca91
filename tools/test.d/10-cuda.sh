#!/usr/bin/env bash
# The GPU backend: builds tra with -DTRA_CUDA=ON in its own folder (sm_80 and sm_90: A100 and
# H100/H200; TRA_CUDA_ARCH overrides, e.g. "90") and runs the gpu-labelled tests and the unit
# tests that check the backend's wiring. The gpu tests skip (CTest "Not Run") when no GPU is
# visible, so on a machine without one this stage proves the backend compiles warning-free and
# links. Where no CUDA toolkit is installed at all (/usr/local/cuda missing) it skips (exit 0);
# where one is expected (/usr/local/cuda exists, or TRA_REQUIRE_CUDA=1) and nvcc is missing, it
# fails. It also packages the GPU build (cpack -G DEB: tra-cuda) and checks the package's fields.
# Usage: 10-cuda.sh MAIN_BUILD_DIR
set -euo pipefail
cd "$(dirname "$0")/../.."
main=${1:?usage: 10-cuda.sh MAIN_BUILD_DIR}
nvcc=/usr/local/cuda/bin/nvcc
if [ ! -x "$nvcc" ]; then
    if [ -d /usr/local/cuda ] || [ "${TRA_REQUIRE_CUDA:-0}" = 1 ]; then
        echo "FAIL: a CUDA toolkit is expected here (/usr/local/cuda or TRA_REQUIRE_CUDA=1)," \
            "but $nvcc is missing: the GPU backend cannot be built" >&2
        exit 1
    fi
    echo "skip: no CUDA toolkit (/usr/local/cuda is missing); the GPU backend was not built"
    exit 0
fi
build="$(dirname "$main")/$(basename "$main")-cuda"
arch=${TRA_CUDA_ARCH:-80;90}
start=$SECONDS
echo "building the GPU backend in $build (CUDA $("$nvcc" --version | sed -n 's/.*release \([0-9.]*\).*/\1/p'), architectures $arch)"
launcher=()
command -v ccache > /dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DTRA_WERROR=ON -DTRA_CUDA=ON \
    -DCMAKE_SKIP_INSTALL_ALL_DEPENDENCY=ON \
    -DCMAKE_CUDA_COMPILER="$nvcc" -DCMAKE_CUDA_ARCHITECTURES="$arch" "${launcher[@]}" > /dev/null
cmake --build "$build" -j "$(nproc)" --target tra gpu_kernels unit_residence bench_gpu_ceiling
echo "built in $((SECONDS - start)) s"
if command -v nvidia-smi > /dev/null && nvidia-smi -L > /dev/null 2>&1; then
    echo "GPUs: $(nvidia-smi -L | tr '\n' ' ')"
else
    echo "no GPU is visible here: the gpu tests were compiled but will be skipped"
fi
(cd "$build" && ctest --output-on-failure -L gpu -R 'gpu\.' && ctest --output-on-failure -R 'unit\.residence\.|cli\.device')

# The GPU build's own package (cmake/TraPackage.cmake, docs/install.md): tra-cuda, in conflict
# with tra, its Depends from dpkg-shlibdeps (so the MPI, HDF5 and BLAS packages) but none on the
# toolkit's libraries, which no Debian package provides, and a description naming them. (The
# build is configured with CMAKE_SKIP_INSTALL_ALL_DEPENDENCY, so cpack installs what was built
# here instead of first building every test of this folder.)
cmake --build "$build" -j "$(nproc)" --target tra_man tra_completion
bash tools/install-packages.sh dpkg-dev file
package=$(cd "$build" && pwd)/package
rm -rf "$package"
(cd "$build" && cpack -G DEB -B "$package" > /dev/null)
deb=$(ls "$package"/tra-cuda_*.deb)
depends=$(dpkg-deb -f "$deb" Depends)
echo "$(basename "$deb"): Depends: $depends"
package_fail() { echo "FAIL: $deb: $1" >&2; exit 1; }
! grep -qiE 'cuda|cublas|nvidia' <<< "$depends" || package_fail "depends on the CUDA toolkit"
grep -q 'libhdf5' <<< "$depends" || package_fail "dpkg-shlibdeps gave no library Depends"
[ "$(dpkg-deb -f "$deb" Conflicts)" = tra ] || package_fail "does not conflict with tra"
grep -q 'libcublas\.so' <<< "$(dpkg-deb -f "$deb" Description)" ||
    package_fail "its description does not say what it needs at run time"
grep -q ' \./usr/bin/tra$' <<< "$(dpkg-deb -c "$deb")" || package_fail "has no /usr/bin/tra"
echo "10-cuda: done in $((SECONDS - start)) s"
