#!/usr/bin/env bash
# The GPU backend: builds tra with -DTRA_CUDA=ON in its own folder (one architecture, to keep CI
# fast; TRA_CUDA_ARCH overrides, default 80) and runs the gpu-labelled tests and the unit tests
# that check the backend's wiring. The gpu tests skip (CTest "Not Run") when no GPU is visible,
# so on a machine without one this stage proves the backend compiles warning-free and links.
# Skips (exit 0) when /usr/local/cuda/bin/nvcc is missing. Usage: 10-cuda.sh MAIN_BUILD_DIR
set -euo pipefail
cd "$(dirname "$0")/../.."
main=${1:?usage: 10-cuda.sh MAIN_BUILD_DIR}
nvcc=/usr/local/cuda/bin/nvcc
if [ ! -x "$nvcc" ]; then
    echo "skip: no CUDA toolkit ($nvcc is missing); the GPU backend was not built"
    exit 0
fi
build="$(dirname "$main")/$(basename "$main")-cuda"
arch=${TRA_CUDA_ARCH:-80}
start=$SECONDS
echo "building the GPU backend in $build (CUDA $("$nvcc" --version | sed -n 's/.*release \([0-9.]*\).*/\1/p'), sm_$arch)"
launcher=()
command -v ccache > /dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DTRA_WERROR=ON -DTRA_CUDA=ON \
    -DCMAKE_CUDA_COMPILER="$nvcc" -DCMAKE_CUDA_ARCHITECTURES="$arch" "${launcher[@]}" > /dev/null
cmake --build "$build" -j "$(nproc)" --target tra gpu_kernels unit_residence
echo "built in $((SECONDS - start)) s"
if command -v nvidia-smi > /dev/null && nvidia-smi -L > /dev/null 2>&1; then
    echo "GPUs: $(nvidia-smi -L | tr '\n' ' ')"
else
    echo "no GPU is visible here: the gpu tests were compiled but will be skipped"
fi
(cd "$build" && ctest --output-on-failure -L gpu -R 'gpu\.' && ctest --output-on-failure -R 'unit\.residence\.|cli\.device')
echo "10-cuda: done in $((SECONDS - start)) s"
