#!/usr/bin/env bash
# The Debian package as a user gets it: `cpack -G DEB` from the CI build, installed with apt
# (which resolves the Depends that dpkg-shlibdeps computed), then the installed tra, from a
# folder outside the source tree, validates and runs an installed example with the reference
# evaluator and on 2 MPI ranks, writing under --out-dir since /usr/share/tra is read-only.
# Also `cpack -G RPM`, checked for its file list only (rpm cannot install on Debian). The
# package is removed at the end, whatever happened.
# Usage: tools/test.d/45-package.sh BUILD_DIR
set -euo pipefail
cd "$(dirname "$0")/../.."
build=$(cd "${1:?usage: 45-package.sh BUILD_DIR}" && pwd)
start=$(date +%s)
sudo_cmd=""; [ "$(id -u)" -eq 0 ] || sudo_cmd="sudo"

if dpkg -s tra >/dev/null 2>&1; then
    echo "45-package: a tra package is already installed on this machine; not replacing it (skipped)"
    exit 0
fi
# dpkg-shlibdeps (dpkg-dev) for the Depends, rpmbuild (rpm) for the RPM.
bash tools/install-packages.sh dpkg-dev rpm
[ -f "$build/man/tra.1" ] || { echo "no man page in $build: is help2man installed?" >&2; exit 1; }

out=$build-package
rm -rf "$out"
mkdir -p "$out"
echo "== cpack -G DEB, -G RPM (into $out)"
(cd "$build" && cpack -G DEB -B "$out" >/dev/null && cpack -G RPM -B "$out" >/dev/null)
deb=$(ls "$out"/tra_*.deb)
rpm=$(ls "$out"/tra-*.rpm)
rpm -qpl "$rpm" | grep -x /usr/bin/tra >/dev/null || { echo "$rpm has no /usr/bin/tra" >&2; exit 1; }
dpkg-deb -f "$deb" Depends | grep libhdf5 >/dev/null ||
    { echo "$deb Depends has no HDF5 library: $(dpkg-deb -f "$deb" Depends)" >&2; exit 1; }

echo "== apt-get install $(basename "$deb")"
installed=0
cleanup() {
    if [ "$installed" -eq 1 ]; then
        echo "== apt-get remove tra"
        $sudo_cmd apt-get remove -y -qq tra >/dev/null
    fi
}
trap cleanup EXIT
(cd "$out" && DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq "./$(basename "$deb")" \
    >/dev/null)
installed=1

# As the tests run mpirun (tests/CMakeLists.txt): as root in a container, on a shared machine.
export OPENBLAS_NUM_THREADS=1 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 \
    OMPI_MCA_btl_vader_single_copy_mechanism=none OMPI_MCA_rmaps_base_oversubscribe=1 \
    OMPI_MCA_hwloc_base_binding_policy=none
work=$(mktemp -d)
trap 'rm -rf "$work"; cleanup' EXIT
cd "$work"
example=/usr/share/tra/plans/examples/matmul.yaml
expected=/usr/share/tra/data/examples/matmul/expected.h5
[ "$(command -v tra)" = /usr/bin/tra ] || { echo "tra is not /usr/bin/tra" >&2; exit 1; }
for f in "$example" "$expected" /usr/share/bash-completion/completions/tra /usr/share/doc/tra/README.md; do
    [ -f "$f" ] || { echo "the package has no $f" >&2; exit 1; }
done
echo "== tra --version"
tra --version
echo "== tra validate, run --reference, mpirun -n 2 tra run on $example"
tra validate "$example" >/dev/null
tra run "$example" --reference --out-dir ref >/dev/null
mpirun -n 2 tra run "$example" --out-dir mpi >/dev/null
tra diff mpi/out/C.h5:/C ref/out/C.h5:/C >/dev/null
tra diff mpi/out/C.h5:/C "$expected":/C >/dev/null
[ ! -e /usr/share/tra/plans/examples/out ] ||
    { echo "a run wrote into /usr/share/tra despite --out-dir" >&2; exit 1; }
cd /
cleanup
installed=0
[ ! -e /usr/bin/tra ] || { echo "/usr/bin/tra is still there after apt-get remove" >&2; exit 1; }
echo "45-package: $(basename "$deb") ($(du -k "$deb" | cut -f1) KiB) and $(basename "$rpm") built," \
    "installed, run and removed in $(($(date +%s) - start)) s"
