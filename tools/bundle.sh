#!/usr/bin/env bash
# Bundles a tra build (a -DTRA_CUDA=ON one, typically) with the Debian runtime libraries and the
# Open MPI it needs, to run on a machine that has a CUDA driver and toolkit but none of Debian's
# packages (a lent GPU machine; docs/gpu.md, "Validated on an H200"). The glibc, libstdc++ and
# CUDA libraries are the target's own. Open MPI is relocated with OPAL_PREFIX.
# Usage: tools/bundle.sh BUILD_DIR DEST      then, on the target:  source DEST/env.sh
#        (env.sh unpacks into /tmp/tra-bundle once and sets PATH, LD_LIBRARY_PATH, OPAL_PREFIX;
#         DEST/bin holds tra, the GPU tests and the benchmarks' programs; tools/gpu_check.sh
#         runs them all)
set -euo pipefail
build=$(cd "${1:?usage: tools/bundle.sh BUILD_DIR DEST}" && pwd)
dest=${2:?usage: tools/bundle.sh BUILD_DIR DEST}
mkdir -p "$dest/bin"
dest=$(cd "$dest" && pwd)
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
multiarch=/usr/lib/x86_64-linux-gnu
mkdir -p "$stage/lib" "$stage/usr/bin" "$stage$multiarch" "$stage/usr/share"
cp -a "$multiarch/openmpi" "$multiarch/pmix2" "$stage$multiarch/"
cp -a /usr/share/openmpi "$stage/usr/share/"
cp /usr/bin/orterun /usr/bin/orted "$stage/usr/bin/"
ln -s orterun "$stage/usr/bin/mpiexec"
ln -s orterun "$stage/usr/bin/mpirun"
for program in apps/tra tests/gpu_kernels tests/unit_gpu_geometry tests/unit_residence \
               tools/bench/bench_gpu_ceiling tools/bench/bench_ceiling tools/bench/bench_summa \
               tools/bench/bench_pdgemm tools/bench/bench_einsum_layouts; do
    [ -x "$build/$program" ] && cp "$build/$program" "$dest/bin/"
done
strip "$dest"/bin/*
# Every shared library the programs and Open MPI's plugins load, but the C/C++ runtime and CUDA's.
skip='^(libc|libm|libdl|librt|libpthread|libstdc\+\+|libgcc_s|ld-linux-x86-64|libcudart|libcublas|libcublasLt|libcuda|linux-vdso)\.'
{
    ldd "$dest"/bin/* /usr/bin/orterun /usr/bin/orted
    find "$multiarch/openmpi" "$multiarch/pmix2" -name '*.so*' -exec ldd {} \;
} 2> /dev/null | awk '$2 == "=>" && $3 ~ /^\// {print $1, $3}' | sort -u |
    while read -r name path; do
        [[ "$name" =~ $skip ]] && continue
        case "$path" in */openmpi/lib/*) continue ;; esac
        cp -L "$path" "$stage/lib/$name"
    done
tar -C "$stage" -cf - . | xz -T2 -6 > "$dest/bundle.tar.xz"
cat > "$dest/env.sh" <<'ENV'
# Sourced on the target: unpacks the bundle once and points the loader and Open MPI at it.
_bundle=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
if [ ! -d /tmp/tra-bundle/usr ]; then
    mkdir -p /tmp/tra-bundle && xz -dc "$_bundle/bundle.tar.xz" | tar -C /tmp/tra-bundle -xf -
fi
_cublas=$(find /usr/local/cuda*/ -name 'libcublas.so.*' 2> /dev/null | head -1)
export OPAL_PREFIX=/tmp/tra-bundle/usr PATH="$_bundle/bin:/tmp/tra-bundle/usr/bin:$PATH"
export LD_LIBRARY_PATH="/tmp/tra-bundle/lib:/tmp/tra-bundle/usr/lib/x86_64-linux-gnu/openmpi/lib${_cublas:+:$(dirname "$_cublas")}${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export PMIX_MCA_pcompress_base_silence_warning=1
ENV
ls -la "$dest/bundle.tar.xz" "$dest"/bin
